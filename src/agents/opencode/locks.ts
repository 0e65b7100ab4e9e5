/**
 * The lock an `opencode` run of ours leaves behind (issue 25 point 11).
 *
 * Every OpenCode process `npm install`s `@opencode-ai/plugin` into each
 * config directory it loads (the global `~/.config/opencode`, the project's
 * `.opencode/`, …) that has no finished install yet, in the background, under
 * a lock directory `$XDG_STATE_HOME/opencode/locks/<sha1("npm-install:" +
 * dir)>.lock/` holding `meta.json` `{token, pid, hostname, createdAt}` and a
 * `heartbeat` file touched every 20 s. Our `export`/`import`/`session delete`
 * runs exit before that install is done, without releasing the lock (1.18.33);
 * the next `opencode` that waits for its dependencies (any run with a project
 * plugin, ours included) then waits until the lock is 60 s stale: ≈ 55 s.
 *
 * Our runs start no install in the project's `.opencode/` at all
 * (`OPENCODE_DISABLE_PROJECT_CONFIG=1`, cli.ts: they need none of its
 * configuration). A global config directory without a finished install (a
 * fresh HOME) still gets one; when the run is over, the locks its process
 * left are released here, as OpenCode itself would once they went stale: only
 * a lock of this host whose owner process is gone and that was created while
 * our run lived, taken over through OpenCode's own `<lock>.breaker` directory
 * so that no other OpenCode process breaking it at the same moment is raced.
 * A run that exits between making the lock directory and writing its
 * `meta.json` leaves a lock that names no owner (seen with 1.18.33's
 * `export`): one made during our run that still has no `meta.json` a moment
 * later is taken as that run's (a live taker writes it within milliseconds of
 * the `mkdir`; OpenCode breaks such a lock by the directory's age). A lock a live process holds is never touched.
 */
import { lstatSync, mkdirSync, readdirSync, rmdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { os } from '../../builtins.js';
import { readFileNoFollow } from '../../trust/confined.js';

/** Where OpenCode keeps its locks: `$XDG_STATE_HOME/opencode/locks` (xdg-basedir: `~/.local/state` without it). */
export function openCodeLocksDir(env: NodeJS.ProcessEnv): string | null {
  const xdg = env['XDG_STATE_HOME'];
  const state = xdg && xdg.startsWith('/') ? xdg : env['HOME'] ? join(env['HOME'], '.local', 'state') : null;
  return state === null ? null : join(state, 'opencode', 'locks');
}

interface LockMeta {
  token: string;
  pid: number;
  hostname: string;
  createdAt: number;
}

function readMeta(lockDir: string): LockMeta | null {
  try {
    const v = JSON.parse(readFileNoFollow(join(lockDir, 'meta.json'), 4096)?.toString('utf8') ?? 'null') as Record<string, unknown> | null;
    if (!v || typeof v['token'] !== 'string' || typeof v['pid'] !== 'number' || typeof v['hostname'] !== 'string' || typeof v['createdAt'] !== 'string') return null;
    const createdAt = Date.parse(v['createdAt']);
    return Number.isFinite(createdAt) && Number.isInteger(v['pid']) && v['pid'] > 0 ? { token: v['token'], pid: v['pid'], hostname: v['hostname'], createdAt } : null;
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists, someone else's
    return (e as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

function isDir(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** A lock directory with no owner written in it (no `meta.json`), last changed within [lo, hi]. */
function ownerless(lock: string, lo: number, hi: number): boolean {
  try {
    const st = lstatSync(lock);
    return st.isDirectory() && st.mtimeMs >= lo && st.mtimeMs <= hi && !exists(join(lock, 'meta.json'));
  } catch {
    return false;
  }
}

/** How long an ownerless lock must stay so before it counts as a dead run's. */
const OWNERLESS_SETTLE_MS = 200;

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Release the locks an `opencode` run of ours left: of this host, created
 * within `[from, to]` (the run's lifetime, ms since the epoch), whose owner
 * process is gone. Returns the lock names released. Never throws.
 */
export function releaseLocksLeftBy(env: NodeJS.ProcessEnv, from: number, to: number): string[] {
  const dir = openCodeLocksDir(env);
  if (dir === null) return [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const released: string[] = [];
  const host = os().hostname();
  // createdAt is OpenCode's wall clock in ms: a little slack either side
  const lo = from - 1000;
  const hi = to + 1000;
  const candidates: { name: string; lock: string; token: string | null }[] = [];
  let settle = false;
  for (const name of names) {
    if (!/^[0-9a-f]{40}\.lock$/.test(name)) continue;
    const lock = join(dir, name);
    if (!isDir(lock)) continue;
    if (ownerless(lock, lo, hi)) {
      candidates.push({ name, lock, token: null });
      settle = true;
      continue;
    }
    const meta = readMeta(lock);
    if (meta === null || meta.hostname !== host || meta.createdAt < lo || meta.createdAt > hi || alive(meta.pid)) continue;
    candidates.push({ name, lock, token: meta.token });
  }
  if (settle) sleepSync(OWNERLESS_SETTLE_MS);
  for (const { name, lock, token } of candidates) {
    if (token === null && !ownerless(lock, lo, hi)) continue; // an owner wrote itself in meanwhile
    // OpenCode's own takeover: whoever makes `<lock>.breaker` may remove the stale lock
    const breaker = `${lock}.breaker`;
    try {
      mkdirSync(breaker, { mode: 0o700 });
    } catch {
      continue; // another process is breaking it (or cannot be told apart): its business
    }
    try {
      const again = readMeta(lock);
      const same = token === null ? again === null && ownerless(lock, lo, hi) : again !== null && again.token === token;
      if (same && isDir(lock)) {
        rmSync(lock, { recursive: true, force: true });
        released.push(name);
      }
    } catch {
      /* left as it was: OpenCode takes it over once stale */
    } finally {
      try {
        rmdirSync(breaker);
      } catch {
        /* gone already */
      }
    }
  }
  return released;
}
