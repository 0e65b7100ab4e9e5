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

/**
 * Issue 25 (4): `opencode import` files the session under the document's `info.id` (messages and
 * parts under that session, each part under the message its `messageID` names), whatever slot
 * it came from. Consent and backup are asked for the slot's id, so a document naming any other
 * session — `info.id`, a message's or a part's `sessionID` — or a part naming another message is
 * refused: it would be imported over a session nobody was asked about. Null when it is the slot's.
 */
export function foreignExportIds(doc: OpenCodeExport, sessionId: string): string | null {
  if (doc.info['id'] !== sessionId) return `its info.id is ${JSON.stringify(doc.info['id'] ?? null)}`;
  for (const m of doc.messages) {
    if (m.info['sessionID'] !== undefined && m.info['sessionID'] !== sessionId) return `a message names session ${JSON.stringify(m.info['sessionID'])}`;
    for (const p of m.parts) {
      if (p['sessionID'] !== undefined && p['sessionID'] !== sessionId) return `a part names session ${JSON.stringify(p['sessionID'])}`;
      if (p['messageID'] !== undefined && p['messageID'] !== m.info['id']) return `a part names message ${JSON.stringify(p['messageID'])} from another message`;
    }
  }
  return null;
}

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
  const foreign = foreignExportIds(stored, sessionId);
  if (foreign !== null) throw new EntireError('REFUSED', `the stored OpenCode session is not session ${sessionId} (${foreign})`);
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
