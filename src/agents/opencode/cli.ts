/**
 * OpenCode keeps its sessions in its own database, so Entire reads and
 * writes them through its CLI (SPEC-2 §C.2): `opencode export <id>` at turn
 * end (and before a mid-turn commit is condensed), staged to
 * `.entire/tmp/<sid>.json` only when it is a session document, and
 * `opencode import <file>` to restore one. `opencode` is found on PATH and
 * run `--pure` (without project plugins: ours would report a deletion as the
 * session's end, and none of them has anything to do in these runs), without
 * the project's configuration (`OPENCODE_DISABLE_PROJECT_CONFIG=1`: no
 * background `npm install` into its `.opencode/`), and any install lock the
 * run left behind is released after it (./locks.ts): the next `opencode`
 * would otherwise wait ≈ 55 s for it to go stale.
 */
import { join } from 'node:path';
import { childProcess } from '../../builtins.js';
import { EntireError } from '../../errors.js';
import { validateSessionId } from '../../trust/ids.js';
import { confinedDir, readFileNoFollow, removeConfined, writeFileIn } from '../../trust/confined.js';
import { maxTranscriptBytes } from '../../trust/transcript-file.js';
import { randomHex } from '../../random.js';
import { parseOpenCodeExport } from './transcript.js';
import { releaseLocksLeftBy } from './locks.js';

const TMP_REL = '.entire/tmp';
/** An export starts the whole CLI (≈ 1–4 s on a busy machine); past this it is given up. */
const EXPORT_TIMEOUT_MS = 30_000;
const IMPORT_TIMEOUT_MS = 60_000;

/** Where a session's export is staged: `<root>/.entire/tmp` (the adapter's transcript root). */
export function openCodeStagingDir(repoRoot: string): string {
  return join(repoRoot, '.entire', 'tmp');
}

export function stagedExportName(sessionId: string): string {
  validateSessionId(sessionId);
  return `${sessionId}.json`;
}

export function stagedExportPath(repoRoot: string, sessionId: string): string {
  return join(openCodeStagingDir(repoRoot), stagedExportName(sessionId));
}

interface CliResult {
  status: number | null;
  stdout: Buffer;
  stderr: string;
  /** Why it did not run to completion (missing binary, timeout, too much output). */
  failure?: string;
}

/**
 * The environment git hands its hooks would point a child git at this repository's index: not
 * OpenCode's business. The project's configuration is not read: these runs need none of it, and
 * loading `.opencode/` starts a background `npm install` there that outlives them as a lock.
 */
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, OPENCODE_DISABLE_PROJECT_CONFIG: '1' };
  for (const k of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_PREFIX']) delete env[k];
  return env;
}

function runOpenCode(args: string[], cwd: string, timeoutMs: number): Promise<CliResult> {
  return new Promise((resolve) => {
    const max = maxTranscriptBytes();
    const out: Buffer[] = [];
    let size = 0;
    let stderr = '';
    let failure: string | undefined;
    let child: ReturnType<ReturnType<typeof childProcess>['spawn']>;
    const env = childEnv();
    const startedAt = Date.now();
    try {
      child = childProcess().spawn('opencode', args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      resolve({ status: null, stdout: Buffer.alloc(0), stderr: '', failure: (e as Error).message });
      return;
    }
    const timer = setTimeout(() => {
      failure = `timed out after ${timeoutMs} ms`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout!.on('data', (d: Buffer) => {
      size += d.length;
      if (size > max) {
        failure ??= `output over ${max} bytes`;
        child.kill('SIGKILL');
        return;
      }
      out.push(d);
    });
    child.stderr!.on('data', (d: Buffer) => {
      if (stderr.length < 4096) stderr += d.toString('utf8');
    });
    child.on('error', (e) => {
      failure ??= e.message;
    });
    child.on('close', (status) => {
      clearTimeout(timer);
      // the background dependency install it started and never finished
      releaseLocksLeftBy(env, startedAt, Date.now());
      resolve({ status, stdout: Buffer.concat(out), stderr: stderr.trim(), ...(failure !== undefined ? { failure } : {}) });
    });
  });
}

function why(what: string, r: CliResult): string {
  return `${what} failed: ${r.failure ?? `exit ${r.status}`}${r.stderr ? ` (${r.stderr.split('\n').pop()!.slice(0, 200)})` : ''}`;
}

/** `opencode export <id>` as a session document, else null (no such session, no CLI, not a document). */
export async function exportOpenCodeSession(repoRoot: string, sessionId: string): Promise<{ bytes: Buffer } | { error: string }> {
  validateSessionId(sessionId);
  const r = await runOpenCode(['export', '--pure', sessionId], repoRoot, EXPORT_TIMEOUT_MS);
  if (r.failure !== undefined || r.status !== 0) return { error: why(`opencode export ${sessionId}`, r) };
  if (parseOpenCodeExport(r.stdout.toString('utf8')) === null) return { error: `opencode export ${sessionId} printed no session document` };
  return { bytes: r.stdout };
}

/**
 * Turn end (and a commit in the middle of a turn): stage the session's
 * export at `path` (its staged path). A failed or invalid export leaves the
 * old copy byte-identical (SPEC-2 §C.2, C6); throws TRANSCRIPT_UNREADABLE
 * saying why, for the hook's log.
 */
export async function refreshOpenCodeTranscript(repoRoot: string, sessionId: string, path: string): Promise<void> {
  if (path !== stagedExportPath(repoRoot, sessionId)) throw new EntireError('UNSAFE_PATH', `not the staged export of ${sessionId}: ${path}`);
  const got = await exportOpenCodeSession(repoRoot, sessionId);
  if ('error' in got) throw new EntireError('TRANSCRIPT_UNREADABLE', got.error);
  const dir = confinedDir(repoRoot, TMP_REL, { mode: 0o750 });
  const name = stagedExportName(sessionId);
  const old = readFileNoFollow(join(dir, name), maxTranscriptBytes());
  if (old !== null && old.equals(got.bytes)) return;
  writeFileIn(dir, name, got.bytes);
}

/**
 * `opencode session delete <id>`: an import adds and updates messages but never removes one, so a
 * session is replaced (a rewind to an earlier point) by deleting it first. Throws REFUSED.
 */
export async function deleteOpenCodeSession(repoRoot: string, sessionId: string): Promise<void> {
  validateSessionId(sessionId);
  const r = await runOpenCode(['session', 'delete', '--pure', sessionId], repoRoot, EXPORT_TIMEOUT_MS);
  if (r.failure !== undefined || r.status !== 0) throw new EntireError('REFUSED', why(`opencode session delete ${sessionId}`, r));
}

/**
 * Restore: the (redacted) stored session goes to a private 0600 file in
 * `.entire/tmp/`, `opencode import <file>` takes it (keeping its id), the file
 * goes. The content is then staged as the session's export, so the next turn
 * starts counting after the restored messages. Throws REFUSED when OpenCode
 * does not take it.
 */
export async function importOpenCodeSession(repoRoot: string, sessionId: string, content: Buffer): Promise<void> {
  const name = stagedExportName(sessionId);
  const dir = confinedDir(repoRoot, TMP_REL, { mode: 0o750 });
  const file = `import-${sessionId}.${process.pid}.${randomHex(4)}.json`;
  writeFileIn(dir, file, content, 0o600);
  try {
    const r = await runOpenCode(['import', '--pure', join(dir, file)], repoRoot, IMPORT_TIMEOUT_MS);
    if (r.failure !== undefined || r.status !== 0) throw new EntireError('REFUSED', why('opencode import', r));
  } finally {
    removeConfined(repoRoot, `${TMP_REL}/${file}`);
  }
  writeFileIn(dir, name, content);
}
