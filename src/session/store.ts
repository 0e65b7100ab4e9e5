/**
 * State files `<common-dir>/entire-sessions/<sid>.json` (SPEC §4.1): 0600
 * files in a 0750 dir, atomic writes (`<sid>.json.<pid>.<rand>.tmp` +
 * rename; see saveState on fsync). Loading and listing never delete or prune anything (P8); only
 * `deleteState` (used by prune/clean/reset) removes a state.
 *
 * Side files `<sid>.pending-<id>.json` hold a pending condensation written
 * when the session lock could not be taken (SPEC §6.5 step 3); the next
 * locked update (`updateState`) merges them into `pending_condensations`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { encodeJson } from '../go-json.js';
import { EntireError } from '../errors.js';
import { compareStarted, ensureLiveMarker, forgetState, recordSavedState, updateLiveMarker, type CorruptState } from './index.js';
import { inspectLock, withSessionLock, withSessionLockSync, type LockOptions } from './lock.js';
import { fault } from '../faults.js';
import {
  SIDE_FILE_RE,
  ensureDir,
  indexDir,
  isNotFound,
  readStateFile,
  safeUnlink,
  sessionsDir,
  sideFilePath,
  stampOf,
  stateFilePath,
  stateFileSessionId,
  tryUnlink,
  writeFileAtomic,
} from './paths.js';
import {
  decodePendingCondensation,
  encodeState,
  isLiveState,
  isValidCheckpointId,
  pendingCondensationJson,
  validateSessionId,
  type PendingCondensation,
  type SessionState,
} from './state.js';

export interface LoadedState {
  state: SessionState;
  /** Decode warnings (e.g. an invalid last_checkpoint_id dropped), for the caller to log. */
  warnings: string[];
  path: string;
}

/**
 * Load one state. Missing → null. Corrupt → EntireError('CORRUPT_STATE')
 * naming the path (the file is left alone).
 */
export function loadState(commonDir: string, sessionId: string): LoadedState | null {
  const path = stateFilePath(commonDir, sessionId);
  const r = readStateFile(path, sessionId);
  if (r === null) return null;
  if (!r.ok) throw r.error;
  return { state: r.decoded.state, warnings: r.decoded.warnings, path };
}

/**
 * Write a state atomically, record it in the index and keep the LIVE marker
 * right (created before a live state is written; recomputed after a state
 * that is not live). Call under the session lock.
 */
export function saveState(commonDir: string, state: SessionState): void {
  validateSessionId(state.session_id);
  const path = stateFilePath(commonDir, state.session_id);
  ensureDir(sessionsDir(commonDir));
  const live = isLiveState(state);
  // Before the write (no instant where the state is live and the marker absent)
  // and after it (a concurrent non-live save may have removed it meanwhile).
  if (live) ensureLiveMarker(commonDir);
  // No fsync, as git flushes neither refs nor its index by default (core.fsync): the state is
  // as durable as the refs it names. A killed process leaves the old file or the new one
  // (rename), and ext4 and btrfs write a replacing file's data before the rename commits. On a
  // disk busy with writes an fsync here took 6-20 ms of a post-commit (bench VM, strace).
  // Power loss can at worst bring back the previous state, which hooks recover from as from a
  // post-commit killed before its state save (test/stress/crash-commit.test.ts).
  const st = writeFileAtomic(path, encodeState(state), { fsync: false });
  fault('state-saved-before-index');
  recordSavedState(commonDir, state, stampOf(st));
  if (live) {
    ensureLiveMarker(commonDir);
  } else {
    try {
      updateLiveMarker(commonDir);
    } catch {
      /* a marker left in place only costs time */
    }
  }
}

/**
 * Every state file, parsed (for status/doctor/clean; hooks use
 * sessionsForWorktree). Corrupt files are reported, never deleted; nothing is pruned.
 */
export function listStates(commonDir: string): { states: LoadedState[]; corrupt: CorruptState[] } {
  const dir = sessionsDir(commonDir);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (e) {
    if (isNotFound(e)) return { states: [], corrupt: [] };
    throw e;
  }
  const states: LoadedState[] = [];
  const corrupt: CorruptState[] = [];
  for (const name of names.sort()) {
    const sid = stateFileSessionId(name);
    if (sid === null) continue;
    const path = join(dir, name);
    let r;
    try {
      r = readStateFile(path, sid);
    } catch (e) {
      corrupt.push({ sessionId: sid, path, error: (e as Error).message });
      continue;
    }
    if (r === null) continue;
    if (r.ok) states.push({ state: r.decoded.state, warnings: r.decoded.warnings, path });
    else corrupt.push({ sessionId: sid, path, error: r.error.message });
  }
  states.sort((a, b) => compareStarted(a.state, b.state));
  return { states, corrupt };
}

/** Delete a state file (prune/clean/reset only). Returns whether it existed. */
export function deleteState(commonDir: string, sessionId: string): boolean {
  const removed = safeUnlink(stateFilePath(commonDir, sessionId));
  // the session's last layered context (src/strategy/context-layers.ts) goes with it
  safeUnlink(join(sessionsDir(commonDir), `${sessionId}.layers`));
  forgetState(commonDir, sessionId);
  try {
    updateLiveMarker(commonDir);
  } catch {
    /* a marker left in place only costs time */
  }
  return removed;
}

// ---------------------------------------------------------------------------
// Side files

/**
 * Write a pending condensation without the session lock (the lock could not
 * be taken in time). The LIVE marker is ensured first. Returns the path.
 */
export function writePendingSideFile(commonDir: string, sessionId: string, entry: PendingCondensation): string {
  if (!isValidCheckpointId(entry.checkpoint_id)) {
    throw new EntireError('INVALID_CHECKPOINT_ID', `invalid checkpoint id ${JSON.stringify(entry.checkpoint_id)}`);
  }
  const path = sideFilePath(commonDir, sessionId, entry.checkpoint_id);
  ensureDir(sessionsDir(commonDir));
  ensureLiveMarker(commonDir);
  writeFileAtomic(path, encodeJson(pendingCondensationJson(entry)));
  ensureLiveMarker(commonDir); // again: a concurrent recomputation may have removed it
  return path;
}

export interface SideFile {
  path: string;
  entry: PendingCondensation;
}

/** The session's side files, by checkpoint id; unparseable ones are reported in `corrupt` and left alone. */
export function readPendingSideFiles(commonDir: string, sessionId: string): { files: SideFile[]; corrupt: string[] } {
  validateSessionId(sessionId);
  const dir = sessionsDir(commonDir);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (e) {
    if (isNotFound(e)) return { files: [], corrupt: [] };
    throw e;
  }
  const files: SideFile[] = [];
  const corrupt: string[] = [];
  const prefix = `${sessionId}.pending-`;
  for (const name of names.sort()) {
    if (!name.startsWith(prefix)) continue;
    const m = SIDE_FILE_RE.exec(name);
    if (!m || m[1] !== sessionId) continue;
    const path = join(dir, name);
    try {
      const entry = decodePendingCondensation(JSON.parse(readFileSync(path, 'utf8')), path);
      files.push({ path, entry });
    } catch (e) {
      if (isNotFound(e)) continue;
      corrupt.push(path);
    }
  }
  return { files, corrupt };
}

/**
 * Append the session's side-file entries to `state.pending_condensations`
 * (skipping checkpoint ids already there). Mutates `state`; returns the side
 * files consumed, to delete with removePendingSideFiles once the state is saved.
 */
export function mergePendingSideFiles(commonDir: string, state: SessionState): string[] {
  const { files } = readPendingSideFiles(commonDir, state.session_id);
  if (files.length === 0) return [];
  const have = new Set((state.pending_condensations ?? []).map((p) => p.checkpoint_id));
  for (const f of files) {
    if (have.has(f.entry.checkpoint_id)) continue;
    (state.pending_condensations ??= []).push(f.entry);
    have.add(f.entry.checkpoint_id);
  }
  return files.map((f) => f.path);
}

export function removePendingSideFiles(paths: readonly string[]): void {
  for (const p of paths) tryUnlink(p);
}

// ---------------------------------------------------------------------------
// Locked read-modify-write

export interface UpdateInfo {
  /** Decode warnings of the loaded state. */
  warnings: string[];
}

/** What an update callback returns: the state to save, or null/undefined to save nothing. */
export type UpdateResult = SessionState | null | undefined;

function finishUpdate(
  commonDir: string,
  sessionId: string,
  loaded: LoadedState | null,
  consumed: string[],
  next: UpdateResult,
): SessionState | null {
  if (!next) return loaded?.state ?? null;
  if (next.session_id !== sessionId) {
    throw new EntireError('INTERNAL', `updateState(${sessionId}) returned a state for ${next.session_id}`);
  }
  if (!loaded) consumed = mergePendingSideFiles(commonDir, next);
  saveState(commonDir, next);
  if (consumed.length > 0) {
    removePendingSideFiles(consumed);
    if (!isLiveState(next)) {
      try {
        updateLiveMarker(commonDir); // the side files counted as live work
      } catch {
        /* a marker left in place only costs time */
      }
    }
  }
  return next;
}

/**
 * Locked read-modify-write of one session: lock, load (null if missing;
 * corrupt → CORRUPT_STATE), merge side files, `fn`, save what `fn` returns,
 * delete the merged side files, unlock. LOCK_TIMEOUT if the lock is busy.
 */
export async function updateState(
  commonDir: string,
  sessionId: string,
  fn: (state: SessionState | null, info: UpdateInfo) => UpdateResult | Promise<UpdateResult>,
  opts: LockOptions = {},
): Promise<SessionState | null> {
  validateSessionId(sessionId);
  return withSessionLock(commonDir, sessionId, () => updateHeldState(commonDir, sessionId, fn), opts);
}

/** updateState's read-modify-write for a caller that already holds the session's lock (a turn-end worker). */
export async function updateHeldState(
  commonDir: string,
  sessionId: string,
  fn: (state: SessionState | null, info: UpdateInfo) => UpdateResult | Promise<UpdateResult>,
): Promise<SessionState | null> {
  validateSessionId(sessionId);
  fault('state-locked');
  const loaded = loadState(commonDir, sessionId);
  const consumed = loaded ? mergePendingSideFiles(commonDir, loaded.state) : [];
  const next = await fn(loaded?.state ?? null, { warnings: loaded?.warnings ?? [] });
  return finishUpdate(commonDir, sessionId, loaded, consumed, next);
}

/** Synchronous form of updateState. */
export function updateStateSync(
  commonDir: string,
  sessionId: string,
  fn: (state: SessionState | null, info: UpdateInfo) => UpdateResult,
  opts: LockOptions = {},
): SessionState | null {
  validateSessionId(sessionId);
  return withSessionLockSync(
    commonDir,
    sessionId,
    () => {
      const loaded = loadState(commonDir, sessionId);
      const consumed = loaded ? mergePendingSideFiles(commonDir, loaded.state) : [];
      const next = fn(loaded?.state ?? null, { warnings: loaded?.warnings ?? [] });
      return finishUpdate(commonDir, sessionId, loaded, consumed, next);
    },
    opts,
  );
}

// ---------------------------------------------------------------------------
// Leftovers (for clean/doctor)

export interface StaleSessionFile {
  path: string;
  kind: 'tmp' | 'lock' | 'takeover';
  /** For locks: the holder pid, if recorded. */
  pid?: number | null;
}

/**
 * Leftover files in the sessions dir that are safe to delete: temp files of
 * interrupted atomic writes older than `olderThanMs` (default 1 h), stale
 * locks (dead pid or older than 30 s) and stale takeover guards. Lists only;
 * deleting is the caller's (clean --force, doctor --force).
 */
export function findStaleSessionFiles(commonDir: string, now = Date.now(), olderThanMs = 60 * 60 * 1000): StaleSessionFile[] {
  const out: StaleSessionFile[] = [];
  for (const dir of [sessionsDir(commonDir), indexDir(commonDir)]) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names.sort()) {
      const path = join(dir, name);
      try {
        if (name.endsWith('.tmp') || name.endsWith('.handover')) {
          if (now - statSync(path).mtimeMs > olderThanMs) out.push({ path, kind: 'tmp' });
        } else if (name.endsWith('.lock.takeover')) {
          if (now - statSync(path).ctimeMs > 10_000) out.push({ path, kind: 'takeover' });
        } else if (name.endsWith('.lock')) {
          const info = inspectLock(path, undefined, now);
          if (info?.stale) out.push({ path, kind: 'lock', pid: info.pid });
        }
      } catch {
        /* vanished meanwhile */
      }
    }
  }
  return out;
}
