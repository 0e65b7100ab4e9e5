/**
 * The agent waits for its turn-end hook (Stop, after-agent, …), so that hook
 * only takes the session lock and hands the turn end (flush wait, step,
 * finalization) to a detached worker process, the same command with the
 * hook's input in a handover file, and exits. Order is kept by the lock: the
 * worker is handed the held lock (SessionLock.handOver), so the next hook of
 * the session (the next prompt, a commit's post-commit, session end) waits
 * for it. Nothing is lost if the worker dies: the state still says the turn
 * is active, the lock names a dead pid and is taken over, and the next hook
 * runs the missing turn end as it does for any turn end that never ran
 * (SPEC-2 §C.0).
 *
 * Inline instead: before the first commit (the turn end only prints a line),
 * when the worker cannot be started, and with ENTIRE_TURN_END=inline.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { HookContext } from './context.js';
import type { AgentAdapter, HookEvent } from '../agents/types.js';
import { acquireSessionLock, adoptSessionLock, type SessionLock } from '../session/lock.js';
import { DIR_MODE, SESSIONS_DIR_NAME, tryUnlink } from '../session/paths.js';
import { confinedDir, readFileNoFollow, writeFileIn } from '../trust/confined.js';
import type { TurnEndResult } from './turn.js';
import { recoverInterruptedCommit } from './interrupted-commit.js';
import { mark } from '../timing.js';
import { sessionEndWaiting, takeDeferredEnd } from './deferred-session-end.js';

/** The environment variable naming a worker's handover file. */
const HANDOVER_ENV = 'ENTIRE_HANDOVER';

export interface Handover {
  /** The session lock's token, to adopt it by. */
  token: string;
  /** The hook's stdin, as the agent sent it. */
  stdin: string;
}

export type TurnEndOutcome = TurnEndResult | { handedTo: number };

function handoverName(sessionId: string): string {
  return `${sessionId}.handover`;
}

/**
 * In a worker: the handover its parent left (read once, then removed, and
 * the variable dropped so the git processes it starts do not see it). Null
 * in any other process.
 */
export function takeHandover(): Handover | null {
  const path = process.env[HANDOVER_ENV];
  if (path === undefined) return null;
  delete process.env[HANDOVER_ENV];
  // only ever a file this module names: the variable never makes us read or remove anything else
  // (any other value is not ours: this is then an ordinary hook, reading its stdin)
  if (!/\/entire-sessions\/[^/]+\.handover$/.test(path)) return null;
  try {
    // never through a link planted at the name (the confined writer replaces one, issue 25)
    const raw = readFileNoFollow(path, 64 * 1024 * 1024);
    if (raw === null) throw new Error('handover file missing or not a regular file');
    const v = JSON.parse(raw.toString('utf8')) as unknown;
    if (typeof v === 'object' && v !== null && typeof (v as Handover).token === 'string' && typeof (v as Handover).stdin === 'string') return v as Handover;
    throw new Error('malformed handover file');
  } finally {
    tryUnlink(path);
  }
}

/** Start the worker holding `lock`; its pid, or null when it could not be started. */
function startWorker(ctx: HookContext, sessionId: string, stdin: string, lock: SessionLock, argv: readonly string[]): number | null {
  // through the confined writer (SPEC-2 §A.4, issue 25): a symlink planted at the name (say to
  // ~/.bashrc) is replaced, never written through; the directory must be a real one
  const dir = confinedDir(ctx.repo.commonDir, SESSIONS_DIR_NAME, { mode: DIR_MODE });
  const file = join(dir, handoverName(sessionId));
  writeFileIn(dir, handoverName(sessionId), JSON.stringify({ token: lock.token, stdin } satisfies Handover), 0o600);
  const script = process.argv[1];
  if (script === undefined) return null;
  // tests read the worker's output with the hook's (their spawnSync then returns once both are done)
  const inherit = process.env['ENTIRE_WORKER_STDIO'] === 'inherit';
  const child = spawn(process.execPath, [...process.execArgv, script, ...argv], {
    cwd: process.cwd(),
    detached: true,
    stdio: inherit ? ['ignore', 'inherit', 'inherit'] : 'ignore',
    env: { ...process.env, [HANDOVER_ENV]: file },
  });
  child.on('error', () => undefined); // reported through pid === undefined below
  if (child.pid === undefined) {
    tryUnlink(file);
    return null;
  }
  child.unref();
  try {
    lock.handOver(child.pid);
  } catch {
    // the worker adopts the lock by its token all the same (and names itself in it)
  }
  return child.pid;
}

/**
 * The turn-end hook. `argv`: this hook's own command line after the script
 * (`hooks <agent> <verb>`), for the worker; `handover`: set when this process is the worker.
 */
export async function runTurnEnd(
  ctx: HookContext,
  event: HookEvent,
  adapter: AgentAdapter,
  startedAt: number,
  io: { stdin: string; argv: readonly string[]; handover: Handover | null },
): Promise<TurnEndOutcome> {
  const { commonDir } = ctx.repo;
  if (io.handover) {
    const lock = adoptSessionLock(commonDir, event.sessionId, io.handover.token) ?? (await acquireSessionLock(commonDir, event.sessionId));
    const flows = await import('./turn.js');
    try {
      return await flows.turnEnd(ctx, event, adapter, startedAt, lock);
    } finally {
      // the session ended while this worker held the lock (deferred-session-end.ts): end it
      // now, checked after the release, as of when it ended
      if (sessionEndWaiting(commonDir, event.sessionId)) {
        try {
          const held = await acquireSessionLock(commonDir, event.sessionId);
          const endedAt = takeDeferredEnd(commonDir, event.sessionId);
          if (endedAt === null) held.release();
          else await flows.sessionEnd({ ...ctx, now: () => endedAt }, { ...event, kind: 'session-end' }, adapter, held);
        } catch (e) {
          ctx.log.warn('could not end the session that ended during the turn end', { error: e });
        }
      }
    }
  }
  // the turn flows are loaded only where the turn end runs (here inline, or in the worker)
  const turnEnd = async (held?: SessionLock) => (await import('./turn.js')).turnEnd(ctx, event, adapter, startedAt, held);
  if (!ctx.head || process.env['ENTIRE_TURN_END'] === 'inline') return turnEnd();
  await recoverInterruptedCommit(ctx);
  const lock = await acquireSessionLock(commonDir, event.sessionId);
  mark('turn end: locked');
  let pid: number | null = null;
  try {
    pid = startWorker(ctx, event.sessionId, io.stdin, lock, io.argv);
  } catch (e) {
    ctx.log.warn('cannot start the turn-end worker; ending the turn here', { error: e });
  }
  if (pid === null) return turnEnd(lock);
  mark('turn end: handed to the worker');
  return { handedTo: pid };
}
