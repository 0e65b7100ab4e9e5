/**
 * Where `codex resume <id>` finds a restored rollout (SPEC-2 §C.1):
 *
 * - a thread `$CODEX_HOME/state_5.sqlite` already knows is looked up only at
 *   its row's `rollout_path`: that is the target (the generic restore refuses
 *   it when it is outside `$CODEX_HOME/sessions`, SPEC-2 §F.3);
 * - otherwise Codex scans `sessions/YYYY/MM/DD/rollout-*-<id>.jsonl` (a flat
 *   `sessions/<id>.jsonl` is not found): an existing file of that form is the
 *   target (so the restore compares with it, SPEC-2 §A.10), else the name
 *   Codex itself would have given it, in local time from
 *   `session_meta.timestamp` (UTC).
 *
 * The database is read with the `sqlite3` shell, read-only, when it is on
 * PATH; without it an existing rollout file is preferred.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { childProcess } from '../../builtins.js';
import { codexHome, codexTranscriptRoot, findRollout, sessionMeta } from './transcript.js';

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** `{dir: YYYY/MM/DD, stamp: YYYY-MM-DDThh-mm-ss}` in local time (TZ decides, as for Codex). */
export function localStamp(d: Date): { dir: string; stamp: string } {
  const date = `${pad(d.getFullYear(), 4)}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  return {
    dir: join(pad(d.getFullYear(), 4), pad(d.getMonth() + 1), pad(d.getDate())),
    stamp: `${date}T${pad(d.getHours())}-${pad(d.getMinutes())}-${pad(d.getSeconds())}`,
  };
}

/**
 * The thread's `rollout_path` in Codex's state database: a string when the
 * row exists, null when it does not, undefined when it cannot be told (no
 * database, no `sqlite3`, an error).
 */
export function stateDbRolloutPath(sessionId: string, env: NodeJS.ProcessEnv = process.env): string | null | undefined {
  const db = join(codexHome(env), 'state_5.sqlite');
  if (!existsSync(db)) return undefined;
  const sql = `SELECT rollout_path FROM threads WHERE id = '${sessionId.replace(/'/g, "''")}' LIMIT 1;`;
  try {
    const r = childProcess().spawnSync('sqlite3', ['-readonly', '-batch', '-noheader', db, sql], { encoding: 'utf8', timeout: 5000, stdio: ['ignore', 'pipe', 'pipe'] });
    if (r.error || r.status !== 0) return undefined;
    const out = r.stdout.replace(/\r?\n$/, '');
    return out === '' ? null : out;
  } catch {
    return undefined;
  }
}

export function codexRestorePath(_repoRoot: string, sessionId: string, content?: Buffer): string {
  const root = codexTranscriptRoot();
  if (!process.env['ENTIRE_TEST_CODEX_PROJECT_DIR']) {
    const known = stateDbRolloutPath(sessionId);
    if (typeof known === 'string' && known !== '') return known;
  }
  const existing = findRollout(root, sessionId);
  if (existing !== undefined) return existing;
  const ts = content ? sessionMeta(content.toString('utf8', 0, Math.min(content.length, 256 * 1024)))?.['timestamp'] : undefined;
  const parsed = typeof ts === 'string' ? new Date(ts) : new Date(NaN);
  const { dir, stamp } = localStamp(Number.isNaN(parsed.getTime()) ? new Date() : parsed);
  return join(root, dir, `rollout-${stamp}-${sessionId}.jsonl`);
}
