/**
 * File layout of `<common-dir>/entire-sessions/` (SPEC §4.1) and the small
 * file primitives the session modules share. No git calls: callers pass the
 * absolute git common dir.
 *
 * Names in the directory:
 *   <sid>.json                    state (the only `*.json` names the Go tool should see as states)
 *   <sid>.json.<pid>.<rand>.tmp   in-flight atomic write
 *   <sid>.lock                    per-session lock (O_EXCL)
 *   <sid>.lock.takeover           short-lived guard while a stale lock is taken over
 *   <sid>.pending-<id>.json       lock-free pending condensation (SPEC §6.5 step 3)
 *   LIVE                          fast-path marker (SPEC §8.11)
 *   .last-prune                   pruning stamp (SPEC §4.3)
 *   .index/index.v1               state index (SPEC §4.1, P6); a subdirectory so its
 *                                 writes do not change the sessions dir's mtime
 *   .index/index.v1.spare         its previous inode, rewritten by the next write (src/fs-spare.ts)
 */
import { closeSync, fstatSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { EntireError } from '../errors.js';
import { decodeState, validateSessionId, type DecodedState } from './state.js';
import { fault } from '../faults.js';
import { randomHex } from '../random.js';

export const SESSIONS_DIR_NAME = 'entire-sessions';
export const LIVE_MARKER_NAME = 'LIVE';
export const PRUNE_STAMP_NAME = '.last-prune';
export const INDEX_DIR_NAME = '.index';
export const INDEX_FILE_NAME = 'index.v1';

export const DIR_MODE = 0o750;
export const FILE_MODE = 0o600;

/** `<sid>.pending-<12 hex>.json` */
export const SIDE_FILE_RE = /^(.+)\.pending-([0-9a-f]{12})\.json$/;

export function sessionsDir(commonDir: string): string {
  return join(commonDir, SESSIONS_DIR_NAME);
}

export function stateFilePath(commonDir: string, sessionId: string): string {
  validateSessionId(sessionId);
  return join(sessionsDir(commonDir), `${sessionId}.json`);
}

export function lockFilePath(commonDir: string, sessionId: string): string {
  validateSessionId(sessionId);
  return join(sessionsDir(commonDir), `${sessionId}.lock`);
}

export function sideFilePath(commonDir: string, sessionId: string, checkpointId: string): string {
  validateSessionId(sessionId);
  return join(sessionsDir(commonDir), `${sessionId}.pending-${checkpointId}.json`);
}

export function liveMarkerPath(commonDir: string): string {
  return join(sessionsDir(commonDir), LIVE_MARKER_NAME);
}

export function pruneStampPath(commonDir: string): string {
  return join(sessionsDir(commonDir), PRUNE_STAMP_NAME);
}

export function indexDir(commonDir: string): string {
  return join(sessionsDir(commonDir), INDEX_DIR_NAME);
}

export function indexFilePath(commonDir: string): string {
  return join(indexDir(commonDir), INDEX_FILE_NAME);
}

/**
 * Session id of a directory entry that is a state file, else null.
 * Side files, temp files and names that are not valid session ids are not states.
 */
export function stateFileSessionId(name: string): string | null {
  if (!name.endsWith('.json') || SIDE_FILE_RE.test(name)) return null;
  const sid = name.slice(0, -'.json'.length);
  try {
    validateSessionId(sid);
  } catch {
    return null;
  }
  return sid;
}

export function ensureDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: DIR_MODE });
}

export function isNotFound(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as NodeJS.ErrnoException).code === 'ENOENT';
}

export function errnoCode(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null ? (e as NodeJS.ErrnoException).code : undefined;
}

/**
 * Write `data` to `path` atomically: a unique `<path>.<pid>.<rand>.tmp`
 * sibling, optional fsync, rename. Returns the fstat of the written file
 * (inode, size and mtime survive the rename, so they identify this content).
 */
export function writeFileAtomic(path: string, data: string | Buffer, options: { mode?: number; fsync?: boolean } = {}): Stats {
  const tmp = `${path}.${process.pid}.${randomHex(4)}.tmp`;
  const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  let st: Stats;
  const fd = openSync(tmp, 'wx', options.mode ?? FILE_MODE);
  try {
    let off = 0;
    while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
    if (options.fsync !== false) fsyncSync(fd);
    st = fstatSync(fd);
  } catch (e) {
    closeSync(fd);
    tryUnlink(tmp);
    throw e;
  }
  closeSync(fd);
  fault('atomic-write-before-rename');
  try {
    renameSync(tmp, path);
  } catch (e) {
    tryUnlink(tmp);
    throw e;
  }
  return st;
}

/** unlink, ignoring a missing file; returns whether a file was removed. */
export function safeUnlink(path: string): boolean {
  try {
    unlinkSync(path);
    return true;
  } catch (e) {
    if (isNotFound(e)) return false;
    throw e;
  }
}

/** Best-effort unlink for cleanup paths: never throws. */
export function tryUnlink(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    /* best effort */
  }
}

/** The identity of one version of a file: a rename-based write always changes it. */
export interface FileStamp {
  ino: number;
  size: number;
  mtimeMs: number;
}

export function stampOf(st: Stats): FileStamp {
  return { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs };
}

export function sameStamp(a: FileStamp, b: FileStamp): boolean {
  return a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs;
}

export type StateFileRead =
  | { ok: true; decoded: DecodedState; stamp: FileStamp }
  | { ok: false; error: EntireError; stamp: FileStamp };

/**
 * Read and decode one state file; stat and content come from one descriptor.
 * Returns null when the file does not exist; a corrupt file is returned as
 * `{ok:false}` (never thrown, never deleted). Other I/O errors are thrown.
 */
export function readStateFile(path: string, sessionId: string): StateFileRead | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    if (isNotFound(e)) return null;
    throw e;
  }
  let st: Stats;
  let text: string;
  try {
    st = fstatSync(fd);
    text = readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
  try {
    return { ok: true, decoded: decodeState(text, { where: path, sessionId }), stamp: stampOf(st) };
  } catch (e) {
    const error = e instanceof EntireError ? e : new EntireError('CORRUPT_STATE', `corrupt session state ${path}`, { cause: e, detail: { path } });
    return { ok: false, error, stamp: stampOf(st) };
  }
}
