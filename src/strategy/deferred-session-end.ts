/**
 * A session end that arrives while the turn-end worker (turn-end-worker.ts) still holds the
 * session lock does not wait for it: the agent is shutting down, and some kill the hook
 * within seconds (one agent after 3 s). It leaves `entire-sessions/<sid>.end` (when the session
 * ended) and exits; the worker ends the session when its turn end is done.
 *
 * Nothing is lost to a race: the session end writes the marker first and then tries the lock
 * once. If that fails, the worker held the lock then, so it releases it afterwards and checks
 * the marker after releasing it. Whoever then holds the lock with the marker still there
 * ends the session (takeDeferredEnd under the lock), exactly once.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isEntireError } from '../errors.js';
import { acquireSessionLock, inspectLock, type SessionLock } from '../session/lock.js';
import { lockFilePath, sessionsDir, tryUnlink, writeFileAtomic } from '../session/paths.js';

function markerPath(commonDir: string, sessionId: string): string {
  return join(sessionsDir(commonDir), `${sessionId}.end`);
}

/**
 * At a session end: the lock to end the session under (null: take it the usual way), or
 * 'deferred' when a live turn-end worker holds it and will end the session itself.
 */
export async function deferSessionEndToWorker(commonDir: string, sessionId: string, now: Date): Promise<SessionLock | 'deferred' | null> {
  const held = inspectLock(lockFilePath(commonDir, sessionId));
  if (!held || !held.handedOver || held.stale) return null;
  writeFileAtomic(markerPath(commonDir, sessionId), JSON.stringify({ ended_at: now.toISOString() }) + '\n', { mode: 0o600, fsync: false });
  try {
    return await acquireSessionLock(commonDir, sessionId, { waitMs: 0 });
  } catch (e) {
    if (isEntireError(e, 'LOCK_TIMEOUT')) return 'deferred';
    throw e;
  }
}

/**
 * Under the session lock: when the session ended while a worker held the lock, its end time,
 * and the marker is removed; null when there is none (or it is not one we wrote).
 */
export function takeDeferredEnd(commonDir: string, sessionId: string): Date | null {
  const path = markerPath(commonDir, sessionId);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return null;
  }
  tryUnlink(path);
  try {
    const v = JSON.parse(text) as { ended_at?: unknown };
    const at = typeof v.ended_at === 'string' ? Date.parse(v.ended_at) : NaN;
    return Number.isNaN(at) ? null : new Date(at);
  } catch {
    return null;
  }
}

/** In the worker, after its turn end released the lock: whether a session end is waiting. */
export function sessionEndWaiting(commonDir: string, sessionId: string): boolean {
  try {
    readFileSync(markerPath(commonDir, sessionId));
    return true;
  } catch {
    return false;
  }
}
