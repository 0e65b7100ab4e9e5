/**
 * `resume`/`rewind` for OpenCode (SPEC-2 §C.2): the stored session goes back
 * through `opencode import`, which keeps its id, so `opencode -s <id>` finds
 * it. A session OpenCode already holds is SPEC-2 §A.10's existing file: the
 * same messages → nothing to do; other messages → replaced only with
 * consent, its export kept first as `.entire/tmp/<sid>.json.entire-bak-<stamp>`,
 * then deleted (an import never removes messages: a rewind would keep them).
 */
import { join } from 'node:path';
import { EntireError } from '../../errors.js';
import { confinedDir, writeFileIn } from '../../trust/confined.js';
import { validAgentSessionId } from '../../trust/ids.js';
import { deleteOpenCodeSession, exportOpenCodeSession, importOpenCodeSession, stagedExportName } from './cli.js';
import { parseOpenCodeExport, type OpenCodeExport } from './transcript.js';

const ids = (doc: OpenCodeExport): string => doc.messages.map((m) => String(m.info['id'] ?? '')).join('\n');

export async function restoreOpenCodeSession(
  repoRoot: string,
  sessionId: string,
  content: Buffer,
  consent: (question: string) => Promise<boolean>,
): Promise<{ status: 'restored' | 'same' | 'kept'; where: string; backup?: string }> {
  validAgentSessionId(sessionId);
  const where = `OpenCode's sessions (opencode import)`;
  const stored = parseOpenCodeExport(content.toString('utf8'));
  if (stored === null) throw new EntireError('REFUSED', 'the stored transcript is not an OpenCode session document');
  const existing = await exportOpenCodeSession(repoRoot, sessionId);
  let backup: string | undefined;
  if ('bytes' in existing) {
    const held = parseOpenCodeExport(existing.bytes.toString('utf8'))!;
    if (ids(held) === ids(stored)) return { status: 'same', where };
    if (!(await consent(`Replace OpenCode's session ${sessionId}, which differs from the stored transcript? (a backup is kept)`))) return { status: 'kept', where };
    const dir = confinedDir(repoRoot, '.entire/tmp', { mode: 0o750 });
    const name = `${stagedExportName(sessionId)}.entire-bak-${new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14)}`;
    writeFileIn(dir, name, existing.bytes, 0o600);
    backup = join(dir, name);
    await deleteOpenCodeSession(repoRoot, sessionId);
  }
  await importOpenCodeSession(repoRoot, sessionId, content);
  return backup ? { status: 'restored', where, backup } : { status: 'restored', where };
}
