/**
 * Per-session lock `<sid>.lock` (SPEC §4.1): created with O_EXCL, holding
 * `{"pid","created_ms","token"}`. A lock is stale after 30 s or when its pid
 * is dead; a stale lock is taken over under a second O_EXCL guard so two
 * waiters never both take it over. Waiting is bounded (default 5 s, then
 * EntireError('LOCK_TIMEOUT')). Not re-entrant: do not nest locks of one
 * session in one process.
 */
import { closeSync, fstatSync, linkSync, openSync, readFileSync, statSync, unlinkSync, writeSync, type Stats } from 'node:fs';
import { basename, dirname } from 'node:path';
import { writeFileIn } from '../trust/confined.js';
import { processAlive, processStartTime } from '../process-identity.js';
import { EntireError } from '../errors.js';
import { ensureDir, errnoCode, isNotFound, lockFilePath, sessionsDir, tryUnlink } from './paths.js';
import { randomHex } from '../random.js';

export const LOCK_STALE_MS = 30_000;
export const LOCK_WAIT_MS = 5_000;
/** A takeover guard older than this was left by a crashed process. */
const TAKEOVER_STALE_MS = 10_000;

export interface LockOptions {
  /**
   * Maximum wait before LOCK_TIMEOUT; default `ENTIRE_LOCK_WAIT_MS` or 5000.
   * Given explicitly, it is a hard bound (git's hooks must not wait out a turn
   * end); by default a handed-over lock (a turn-end worker) is waited out up
   * to the stale bound.
   */
  waitMs?: number;
  /** Age after which a lock is stale regardless of its pid; default 30000. */
  staleMs?: number;
}

export interface SessionLock {
  readonly path: string;
  /** The lock's identity, written in the file (what a process handed the lock adopts it by). */
  readonly token: string;
  /** Remove the lock if it is still ours. Idempotent; never throws. */
  release(): void;
  /**
   * Give the lock to process `pid` (a worker this process started, which
   * adopts it with the returned token): the lock file names `pid` from now on,
   * so waiters see a live holder, and `release` here no longer removes it.
   * The worker adopts it by `token` (adoptSessionLock).
   */
  handOver(pid: number): void;
}

export interface LockInfo {
  pid: number | null;
  createdMs: number;
  token: string | null;
  /** The holder is gone (dead pid) or the lock is older than the stale bound. */
  stale: boolean;
  ino: number;
  /** With ino and token, what tells this lock from a later one that got the same inode number. */
  mtimeMs: number;
  size: number;
  /** The holder is a turn-end worker (SessionLock.handOver): its turn end used to be the agent's own wait. */
  handedOver: boolean;
}

function defaultWaitMs(): number {
  const env = process.env['ENTIRE_LOCK_WAIT_MS'];
  if (env !== undefined && env !== '' && /^\d+$/.test(env)) return Number(env);
  return LOCK_WAIT_MS;
}

export function isPidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: exists but belongs to someone else.
    return errnoCode(e) === 'EPERM';
  }
}

interface LockFields {
  pid: number | null;
  /** The holder's start time (src/process-identity.ts): a reused pid is no holder. */
  pidStart: string | undefined;
  createdMs: number | null;
  token: string | null;
  /** Held by a process it was handed to (a turn-end worker), not by the one that took it. */
  handedOver: boolean;
}

function parseLock(text: string): LockFields {
  try {
    const v = JSON.parse(text) as unknown;
    if (typeof v === 'object' && v !== null) {
      const o = v as Record<string, unknown>;
      return {
        pid: typeof o['pid'] === 'number' ? o['pid'] : null,
        pidStart: typeof o['pid_start'] === 'string' ? o['pid_start'] : undefined,
        createdMs: typeof o['created_ms'] === 'number' ? o['created_ms'] : null,
        token: typeof o['token'] === 'string' ? o['token'] : null,
        handedOver: o['handed_over'] === true,
      };
    }
  } catch {
    /* partially written or foreign: fall back to the file's mtime */
  }
  return { pid: null, pidStart: undefined, createdMs: null, token: null, handedOver: false };
}

/** Inspect a lock file (for takeover decisions and `doctor`'s stale-lock finding). */
export function inspectLock(path: string, staleMs = LOCK_STALE_MS, now = Date.now()): LockInfo | null {
  let st: Stats;
  let text: string;
  try {
    ({ st, text } = readLockFile(path));
  } catch (e) {
    if (isNotFound(e)) return null;
    throw e;
  }
  const p = parseLock(text);
  const createdMs = p.createdMs ?? st.mtimeMs;
  const stale = now - createdMs > staleMs || (p.pid !== null && !processAlive(p.pid, p.pidStart));
  return { pid: p.pid, createdMs, token: p.token, stale, ino: st.ino, mtimeMs: st.mtimeMs, size: st.size, handedOver: p.handedOver };
}

/** Stat and content from one descriptor, so they describe the same file. */
function readLockFile(path: string): { st: Stats; text: string } {
  const fd = openSync(path, 'r');
  try {
    return { st: fstatSync(fd), text: readFileSync(fd, 'utf8') };
  } finally {
    closeSync(fd);
  }
}

/**
 * Whether the file at `path` is the very lock `seen` described. Not the inode
 * number alone: once a stale lock is removed, the next lock created may get
 * the same number (ext4 reuses them at once), and a takeover that trusted it
 * removed a live lock: two holders, a lost update (seen under load in
 * test/session/lock.test.ts).
 */
function isSameLock(path: string, seen: LockInfo): boolean {
  const { st, text } = readLockFile(path);
  const p = parseLock(text);
  return st.ino === seen.ino && st.size === seen.size && st.mtimeMs === seen.mtimeMs && p.token === seen.token && p.pid === seen.pid;
}

type Attempt = { lock: SessionLock } | { retry: true; holderPid: number | null; holderHandedOver?: boolean };

let selfStart: string | undefined;

function lockText(pid: number, createdMs: number, token: string, handedOver = false): string {
  const start = pid === process.pid ? (selfStart ??= processStartTime(pid) ?? '') : (processStartTime(pid) ?? '');
  return JSON.stringify({ pid, ...(start ? { pid_start: start } : {}), created_ms: createdMs, token, ...(handedOver ? { handed_over: true } : {}) }) + '\n';
}

/** A held lock with this token; `release` removes it only while the file still carries the token. */
function heldLock(path: string, token: string, createdMs: number): SessionLock {
  let released = false;
  return {
    path,
    token,
    handOver(pid: number): void {
      // replace, never rewrite in place: a waiter reads either the old or the new holder, whole;
      // the temporary file is O_EXCL|O_NOFOLLOW with a random name (no planted link is written through)
      writeFileIn(dirname(path), basename(path), lockText(pid, createdMs, token, true));
      released = true;
    },
    release(): void {
      if (released) return;
      released = true;
      try {
        // Only remove the lock if it is still ours (it may have been taken over as stale).
        const cur = parseLock(readFileSync(path, 'utf8'));
        if (cur.token === token) unlinkSync(path);
      } catch {
        /* gone already, or unreadable: nothing of ours to remove */
      }
    },
  };
}

function tryCreate(path: string): SessionLock | null {
  const token = randomHex(8);
  const createdMs = Date.now();
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (e) {
    if (errnoCode(e) === 'EEXIST') return null;
    throw e;
  }
  try {
    writeSync(fd, lockText(process.pid, createdMs, token));
  } finally {
    closeSync(fd);
  }
  return heldLock(path, token, createdMs);
}

/**
 * Take over a lock handed to this process (`SessionLock.handOver`): null when
 * the file no longer carries `token` (the giver died before the handover and
 * the lock was taken over as stale): the caller then acquires as usual.
 */
export function adoptSessionLock(commonDir: string, sessionId: string, token: string): SessionLock | null {
  const path = lockFilePath(commonDir, sessionId);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return null;
  }
  const cur = parseLock(text);
  if (cur.token !== token) return null;
  const lock = heldLock(path, token, cur.createdMs ?? Date.now());
  if (cur.pid !== process.pid) {
    // the giver may not have written our pid yet: name ourselves, so its exit cannot make the lock look stale
    lock.handOver(process.pid);
    return heldLock(path, token, cur.createdMs ?? Date.now());
  }
  return lock;
}

/**
 * Remove a stale lock under the `<lock>.takeover` guard: the guard is a hard
 * link to the lock's inode, created O_EXCL-style by link(2), so only one
 * process proceeds; it removes the lock only if the guard is the very lock it
 * judged stale (isSameLock) and the path still names that inode (which the
 * guard keeps from being reused). Returns true if the caller should retry at once.
 * Exported for tests.
 */
export function tryTakeover(path: string, stale: LockInfo): boolean {
  const guard = `${path}.takeover`;
  try {
    linkSync(path, guard);
  } catch (e) {
    const code = errnoCode(e);
    if (code === 'ENOENT') return true; // the lock vanished: retry creating
    if (code === 'EEXIST') {
      // Someone else is taking over; clear a guard left by a crashed process.
      try {
        const g = statSync(guard);
        if (Date.now() - g.ctimeMs > TAKEOVER_STALE_MS) tryUnlink(guard);
      } catch {
        /* gone */
      }
      return false;
    }
    throw e;
  }
  try {
    if (!isSameLock(guard, stale)) return true; // the lock was replaced meanwhile: re-evaluate
    const cur = statSync(path);
    if (cur.ino === stale.ino) unlinkSync(path);
    return true;
  } catch (e) {
    if (isNotFound(e)) return true;
    throw e;
  } finally {
    tryUnlink(guard);
  }
}

function attempt(path: string, staleMs: number): Attempt {
  const lock = tryCreate(path);
  if (lock) return { lock };
  const info = inspectLock(path, staleMs);
  if (info === null) return { retry: true, holderPid: null }; // released between our calls
  if (info.stale && tryTakeover(path, info)) {
    const again = tryCreate(path);
    if (again) return { lock: again };
  }
  return { retry: true, holderPid: info.pid, holderHandedOver: info.handedOver };
}

/**
 * When to give up waiting. A turn-end worker holds the lock for as long as the
 * agent used to wait on its turn-end hook: the next hook waits it out, up to
 * the stale bound (after which the lock is taken over anyway), instead of
 * failing after `waitMs`.
 */
function giveUpAt(start: number, opts: LockOptions, staleMs: number, r: { holderHandedOver?: boolean }): number {
  const waitMs = opts.waitMs ?? defaultWaitMs();
  return r.holderHandedOver && opts.waitMs === undefined ? start + Math.max(waitMs, staleMs) : start + waitMs;
}

function backoff(round: number): number {
  const base = Math.min(50, 4 * 2 ** Math.min(round, 4));
  return Math.max(1, Math.round(base * (0.5 + Math.random())));
}

function timeoutError(path: string, waitMs: number, holderPid: number | null): EntireError {
  return new EntireError(
    'LOCK_TIMEOUT',
    `timed out after ${waitMs} ms waiting for session lock ${path}` + (holderPid !== null ? ` (held by pid ${holderPid})` : ''),
    { detail: { path, holder_pid: holderPid } },
  );
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Acquire `<sid>.lock`, waiting up to `waitMs` (blocking the thread between polls). */
export function acquireSessionLockSync(commonDir: string, sessionId: string, opts: LockOptions = {}): SessionLock {
  const path = lockFilePath(commonDir, sessionId);
  ensureDir(sessionsDir(commonDir));
  const waitMs = opts.waitMs ?? defaultWaitMs();
  const staleMs = opts.staleMs ?? LOCK_STALE_MS;
  const start = Date.now();
  for (let round = 0; ; round++) {
    const r = attempt(path, staleMs);
    if ('lock' in r) return r.lock;
    const left = giveUpAt(start, opts, staleMs, r) - Date.now();
    if (left <= 0) throw timeoutError(path, waitMs, r.holderPid);
    sleepSync(Math.min(left, backoff(round)));
  }
}

/** Acquire `<sid>.lock`, waiting up to `waitMs` with jittered async sleeps. */
export async function acquireSessionLock(commonDir: string, sessionId: string, opts: LockOptions = {}): Promise<SessionLock> {
  const path = lockFilePath(commonDir, sessionId);
  ensureDir(sessionsDir(commonDir));
  const waitMs = opts.waitMs ?? defaultWaitMs();
  const staleMs = opts.staleMs ?? LOCK_STALE_MS;
  const start = Date.now();
  for (let round = 0; ; round++) {
    const r = attempt(path, staleMs);
    if ('lock' in r) return r.lock;
    const left = giveUpAt(start, opts, staleMs, r) - Date.now();
    if (left <= 0) throw timeoutError(path, waitMs, r.holderPid);
    await new Promise<void>((resolve) => setTimeout(resolve, Math.min(left, backoff(round))));
  }
}

/**
 * Acquire the lock file at `path` (same protocol as a session lock: O_EXCL,
 * stale after `staleMs` or a dead pid, bounded wait). For files other than
 * session locks, e.g. the checkpoint push queue's lock (SPEC-3 §A.6): a lock
 * file another tool leaves behind without our fields counts from its mtime.
 */
export async function acquireLockFile(path: string, opts: LockOptions = {}): Promise<SessionLock> {
  const waitMs = opts.waitMs ?? defaultWaitMs();
  const staleMs = opts.staleMs ?? LOCK_STALE_MS;
  const start = Date.now();
  for (let round = 0; ; round++) {
    const r = attempt(path, staleMs);
    if ('lock' in r) return r.lock;
    const left = start + waitMs - Date.now();
    if (left <= 0) throw timeoutError(path, waitMs, r.holderPid);
    await new Promise<void>((resolve) => setTimeout(resolve, Math.min(left, backoff(round))));
  }
}

/** Run `fn` holding the session lock; the lock is always released. */
export async function withSessionLock<T>(
  commonDir: string,
  sessionId: string,
  fn: () => T | Promise<T>,
  opts: LockOptions = {},
): Promise<T> {
  const lock = await acquireSessionLock(commonDir, sessionId, opts);
  try {
    return await fn();
  } finally {
    lock.release();
  }
}

/** Synchronous form of withSessionLock. */
export function withSessionLockSync<T>(commonDir: string, sessionId: string, fn: () => T, opts: LockOptions = {}): T {
  const lock = acquireSessionLockSync(commonDir, sessionId, opts);
  try {
    return fn();
  } finally {
    lock.release();
  }
}
