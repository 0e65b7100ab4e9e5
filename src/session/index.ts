/**
 * The state index (SPEC §4.1, P6) and the LIVE marker (SPEC §8.11).
 *
 * `entire-sessions/.index/index.v1` maps sid → {phase, worktree, base,
 * pending flags, the state file's inode+size+mtime}. It is a cache: every
 * entry is validated against the file's stamp before it is trusted, so a
 * lost index update (two processes writing it at once; last rename wins)
 * only costs a re-read. New, replaced and deleted state files are detected
 * with the sessions directory's mtime: every rename-based write (ours and the
 * Go tool's) changes it, and the index lives in a subdirectory so its own
 * writes do not. A directory stamp is only recorded when it is older than
 * RACY_MS at listing time (mtime granularity), else the next reader lists again.
 *
 * Hooks call `sessionsForWorktree`, which never parses state files of other
 * worktrees' sessions or of ENDED sessions with nothing pending, except a
 * file it has never seen (new since the last listing), once.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync, type Stats } from 'node:fs';
import {
  SIDE_FILE_RE,
  ensureDir,
  indexDir,
  indexFilePath,
  isNotFound,
  liveMarkerPath,
  readStateFile,
  safeUnlink,
  sameStamp,
  sessionsDir,
  stampOf,
  stateFileSessionId,
  FILE_MODE,
  type FileStamp,
} from './paths.js';
import { hasPendingWork, isLiveState, type Phase, type SessionState } from './state.js';
import { replaceViaSpare } from '../fs-spare.js';
import { join } from 'node:path';

/** A directory stamp younger than this at listing time is not trusted. */
export const RACY_MS = 2_000;
const INDEX_VERSION = 1;

export interface IndexEntry extends FileStamp {
  phase: Phase;
  worktree_path: string;
  worktree_id: string;
  base_commit: string;
  /** turn_checkpoint_ids or pending_condensations non-empty */
  has_pending: boolean;
  /** files_touched non-empty */
  files_touched: boolean;
  ended_at: string;
  last_interaction_time: string;
  /** The file failed to parse at this stamp. */
  corrupt?: string;
  /** The file is known to differ from this entry (seen changed, not re-read yet). */
  stale?: boolean;
}

interface DirStamp {
  ino: number;
  mtimeMs: number;
}

interface IndexData {
  version: number;
  /** Stamp of the sessions dir at the last complete listing; null = list again. */
  dir: DirStamp | null;
  /** Sessions with `<sid>.pending-<id>.json` side files, as of that listing. */
  side: string[];
  entries: Record<string, IndexEntry>;
  /** When every entry was last stat'ed (ms); see DORMANT_MS. */
  fullCheckMs?: number;
  /**
   * Dormant sessions (DORMANT_MS) as sid → [ino, size, mtimeMs] only: hooks
   * never read them, so they stay out of `entries` and the index stays small
   * however many ended sessions accumulate (P6).
   */
  dormant?: Record<string, [number, number, number]>;
  /** The sessions dir's file names (sorted, `\n`-joined) at the last complete listing. */
  names?: string;
}

/**
 * P6: hooks must not pay for history. An ENDED session with nothing pending
 * whose file has not changed for this long is "dormant": a directory change
 * does not make us stat it again, except in one full pass per this period.
 * (Our own writes update their entry directly; a dormant file is one nobody
 * has written for ten minutes.)
 */
export const DORMANT_MS = 10 * 60 * 1000;

export interface WorktreeSession {
  state: SessionState;
  /** Decode warnings (e.g. a dropped invalid last_checkpoint_id), for the caller to log. */
  warnings: string[];
  path: string;
  /** Matched by worktree_id because the recorded worktree_path is gone: caller updates the path. */
  moved: boolean;
  /** Lock-free pending condensation side files exist for this session. */
  hasSideFiles: boolean;
}

export interface CorruptState {
  sessionId: string;
  path: string;
  error: string;
}

export interface WorktreeSessions {
  /** Live sessions of this worktree (not ENDED, or with pending work or files_touched), by started_at then sid. */
  sessions: WorktreeSession[];
  /** State files that do not parse (skipped; never deleted). */
  corrupt: CorruptState[];
}

// ---------------------------------------------------------------------------

/** Order of condensation (SPEC §6.5 step 2): by started_at, then sid. */
export function compareStarted(a: SessionState, b: SessionState): number {
  const ta = Date.parse(a.started_at);
  const tb = Date.parse(b.started_at);
  if (!Number.isNaN(ta) && !Number.isNaN(tb) && ta !== tb) return ta - tb;
  if (Number.isNaN(ta) || Number.isNaN(tb)) {
    if (a.started_at !== b.started_at) return a.started_at < b.started_at ? -1 : 1;
  }
  return a.session_id < b.session_id ? -1 : a.session_id > b.session_id ? 1 : 0;
}

function emptyIndex(): IndexData {
  return { version: INDEX_VERSION, dir: null, side: [], entries: {} };
}

function loadIndex(commonDir: string): IndexData | null {
  let text: string;
  try {
    text = readFileSync(indexFilePath(commonDir), 'utf8');
  } catch {
    return null;
  }
  try {
    const v = JSON.parse(text) as IndexData;
    if (
      typeof v !== 'object' ||
      v === null ||
      v.version !== INDEX_VERSION ||
      typeof v.entries !== 'object' ||
      v.entries === null ||
      !Array.isArray(v.side)
    ) {
      return null;
    }
    for (const e of Object.values(v.entries)) {
      if (typeof e !== 'object' || e === null || typeof e.ino !== 'number' || typeof e.size !== 'number' || typeof e.mtimeMs !== 'number') {
        return null;
      }
    }
    // dormant tuples are checked where they are used (hooks mostly never look at them)
    if (v.dormant !== undefined && (typeof v.dormant !== 'object' || v.dormant === null || Array.isArray(v.dormant))) return null;
    if (v.names !== undefined && typeof v.names !== 'string') return null;
    return v;
  } catch {
    return null;
  }
}

function writeIndex(commonDir: string, index: IndexData): void {
  try {
    ensureDir(indexDir(commonDir));
    // A cache: no fsync (a torn file after a crash is just rebuilt), and no file creation.
    replaceViaSpare(indexFilePath(commonDir), JSON.stringify(index));
  } catch {
    /* the index is an optimisation; readers rebuild or re-read */
  }
}

export function entryFromState(state: SessionState, stamp: FileStamp): IndexEntry {
  return {
    phase: state.phase,
    worktree_path: state.worktree_path ?? '',
    worktree_id: state.worktree_id ?? '',
    base_commit: state.base_commit,
    has_pending: hasPendingWork(state),
    files_touched: (state.files_touched?.length ?? 0) > 0,
    ended_at: state.ended_at ?? '',
    last_interaction_time: state.last_interaction_time ?? '',
    ino: stamp.ino,
    size: stamp.size,
    mtimeMs: stamp.mtimeMs,
  };
}

function corruptEntry(stamp: FileStamp, error: string, prev?: IndexEntry): IndexEntry {
  return {
    phase: prev?.phase ?? 'idle',
    worktree_path: prev?.worktree_path ?? '',
    worktree_id: prev?.worktree_id ?? '',
    base_commit: prev?.base_commit ?? '',
    has_pending: prev?.has_pending ?? false,
    files_touched: prev?.files_touched ?? false,
    ended_at: prev?.ended_at ?? '',
    last_interaction_time: prev?.last_interaction_time ?? '',
    ino: stamp.ino,
    size: stamp.size,
    mtimeMs: stamp.mtimeMs,
    corrupt: error,
  };
}

/** Whether git hooks must run for this entry (corrupt ones count: err on the side of running). */
function entryIsLive(sid: string, e: IndexEntry, side: ReadonlySet<string>): boolean {
  return e.corrupt !== undefined || e.phase !== 'ended' || e.has_pending || e.files_touched || side.has(sid);
}

interface Ctx {
  commonDir: string;
  dir: string;
  index: IndexData;
  side: Set<string>;
  dirty: boolean;
  /** Files parsed during this call (fresh). */
  parsed: Map<string, { state: SessionState; warnings: string[] }>;
  /** False when the sessions dir does not exist. */
  exists: boolean;
}

function openCtx(commonDir: string): Ctx {
  const loaded = loadIndex(commonDir);
  const index = loaded ?? emptyIndex();
  return {
    commonDir,
    dir: sessionsDir(commonDir),
    index,
    side: new Set(index.side),
    dirty: loaded === null,
    parsed: new Map(),
    exists: true,
  };
}

function closeCtx(ctx: Ctx): void {
  if (ctx.dirty && ctx.exists) {
    ctx.index.side = [...ctx.side].sort();
    writeIndex(ctx.commonDir, ctx.index);
  }
}

/** Re-read one state file and update its entry; returns false if it vanished. */
function reparse(ctx: Ctx, sid: string): boolean {
  const path = join(ctx.dir, `${sid}.json`);
  let r;
  try {
    r = readStateFile(path, sid);
  } catch (e) {
    // unreadable (EACCES, EISDIR…): treat like corrupt, keep the entry
    const prev = ctx.index.entries[sid];
    let st: Stats | null = null;
    try {
      st = statSync(path);
    } catch {
      /* gone */
    }
    if (st === null) {
      delete ctx.index.entries[sid];
      ctx.dirty = true;
      return false;
    }
    ctx.index.entries[sid] = corruptEntry(stampOf(st), `unreadable: ${(e as Error).message}`, prev);
    ctx.dirty = true;
    return true;
  }
  if (r === null) {
    delete ctx.index.entries[sid];
    ctx.parsed.delete(sid);
    ctx.dirty = true;
    return false;
  }
  const prev = ctx.index.entries[sid];
  let next: IndexEntry;
  if (r.ok) {
    next = entryFromState(r.decoded.state, r.stamp);
    ctx.parsed.set(sid, r.decoded);
  } else {
    next = corruptEntry(r.stamp, r.error.message, prev);
    ctx.parsed.delete(sid);
  }
  ctx.index.entries[sid] = next;
  // re-reading an unchanged file must not rewrite the index on every hook
  if (!prev || !sameEntry(prev, next)) ctx.dirty = true;
  return true;
}

function sameEntry(a: IndexEntry, b: IndexEntry): boolean {
  const ka = Object.keys(a) as (keyof IndexEntry)[];
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}

function statStamp(path: string): FileStamp | null {
  try {
    return stampOf(statSync(path));
  } catch (e) {
    if (isNotFound(e)) return null;
    throw e;
  }
}

/**
 * Bring the set of entries in line with the directory. Returns false when
 * the directory is unchanged since the last complete listing ("quiet").
 * For an entry whose file changed, `onChanged` decides: re-read now (true)
 * or only mark it stale (false).
 */
function syncListing(ctx: Ctx, onChanged: (sid: string, e: IndexEntry) => boolean): boolean {
  const t0 = Date.now();
  let dirSt: Stats;
  try {
    dirSt = statSync(ctx.dir);
  } catch (e) {
    if (!isNotFound(e)) throw e;
    ctx.exists = false;
    ctx.index.entries = {};
    ctx.index.dormant = {};
    ctx.side.clear();
    return true;
  }
  const stamp = ctx.index.dir;
  if (stamp && stamp.ino === dirSt.ino && stamp.mtimeMs === dirSt.mtimeMs) return false;

  if (!existsSync(indexDir(ctx.commonDir))) {
    // Creating it changes the sessions dir's mtime: do it before taking the stamp.
    try {
      ensureDir(indexDir(ctx.commonDir));
      dirSt = statSync(ctx.dir);
    } catch {
      /* the index just won't be written */
    }
  }
  const fullCheck = !(typeof ctx.index.fullCheckMs === 'number' && t0 - ctx.index.fullCheckMs < DORMANT_MS && ctx.index.fullCheckMs <= t0);
  if (fullCheck) {
    ctx.index.fullCheckMs = t0;
    ctx.dirty = true;
  }
  const dormantSet = (ctx.index.dormant ??= {});
  /** A known, not dormant entry: re-stat it and let `onChanged` decide. */
  const checkEntry = (sid: string, e: IndexEntry, side: ReadonlySet<string>): void => {
    const dormant =
      e.phase === 'ended' && !e.has_pending && !e.files_touched && e.corrupt === undefined && !e.stale && !side.has(sid) && t0 - e.mtimeMs > DORMANT_MS;
    if (dormant && !fullCheck) return;
    const cur = statStamp(join(ctx.dir, `${sid}.json`));
    if (cur === null) {
      delete ctx.index.entries[sid];
      ctx.dirty = true;
      return;
    }
    if (sameStamp(cur, e) && !e.stale) return;
    if (onChanged(sid, e)) {
      reparse(ctx, sid);
    } else if (!e.stale) {
      e.stale = true;
      ctx.dirty = true;
    }
  };
  const names = readdirSync(ctx.dir).sort();
  const listing = names.join('\n');
  let side: Set<string>;
  if (listing === ctx.index.names && !fullCheck) {
    // the same files as at the last listing (a state rewritten by rename changes the
    // dir's mtime, not its names): only known entries can differ; dormant ones are skipped
    side = ctx.side;
    for (const [sid, e] of Object.entries(ctx.index.entries)) checkEntry(sid, e, side);
  } else {
    const sids = new Set<string>();
    side = new Set<string>();
    for (const name of names) {
      const m = SIDE_FILE_RE.exec(name);
      if (m) {
        side.add(m[1]!);
        continue;
      }
      const sid = stateFileSessionId(name);
      if (sid !== null) sids.add(sid);
    }
    for (const sid of Object.keys(ctx.index.entries)) {
      if (!sids.has(sid)) {
        delete ctx.index.entries[sid];
        ctx.dirty = true;
      }
    }
    for (const sid of Object.keys(dormantSet)) {
      if (!sids.has(sid) || ctx.index.entries[sid]) {
        delete dormantSet[sid];
        ctx.dirty = true;
      }
    }
    for (const sid of sids) {
      const e = ctx.index.entries[sid];
      if (e) {
        checkEntry(sid, e, side);
        continue;
      }
      const d = dormantSet[sid];
      if (Array.isArray(d) && !side.has(sid)) {
        if (!fullCheck) continue;
        const cur = statStamp(join(ctx.dir, `${sid}.json`));
        if (cur !== null && cur.ino === d[0] && cur.size === d[1] && cur.mtimeMs === d[2]) continue;
      }
      // never seen, or a dormant file that changed: learn its worktree and phase
      if (d) {
        delete dormantSet[sid];
        ctx.dirty = true;
      }
      reparse(ctx, sid);
    }
    ctx.index.names = listing;
    ctx.dirty = true;
  }
  // entries that went dormant leave `entries` for the compact set
  for (const [sid, e] of Object.entries(ctx.index.entries)) {
    if (e.phase === 'ended' && !e.has_pending && !e.files_touched && e.corrupt === undefined && !e.stale && !side.has(sid) && t0 - e.mtimeMs > DORMANT_MS) {
      dormantSet[sid] = [e.ino, e.size, e.mtimeMs];
      delete ctx.index.entries[sid];
      ctx.parsed.delete(sid);
      ctx.dirty = true;
    }
  }
  const sideChanged = side.size !== ctx.side.size || [...side].some((s) => !ctx.side.has(s));
  if (sideChanged) {
    ctx.side = side;
    ctx.dirty = true;
  }
  const trusted = dirSt.mtimeMs < t0 - RACY_MS;
  const newStamp: DirStamp | null = trusted ? { ino: dirSt.ino, mtimeMs: dirSt.mtimeMs } : null;
  if (newStamp?.mtimeMs !== stamp?.mtimeMs || newStamp?.ino !== stamp?.ino) {
    ctx.index.dir = newStamp;
    ctx.dirty = true;
  }
  return true;
}

function membership(e: IndexEntry, worktreePath: string, worktreeId: string): 'same' | 'moved' | null {
  if (e.worktree_path === worktreePath) return 'same';
  if (e.worktree_id === worktreeId && (e.worktree_path === '' || !existsSync(e.worktree_path))) return 'moved';
  return null;
}

/**
 * The live sessions of one worktree (SPEC §4.1 Index, §4.3 membership):
 * `worktree_path` = `worktreePath`, or `worktree_id` (absent = "") matches
 * and the recorded path no longer exists (`moved`: the caller updates it).
 * Never deletes anything.
 */
export function sessionsForWorktree(commonDir: string, worktreePath: string, worktreeId: string): WorktreeSessions {
  const ctx = openCtx(commonDir);
  const mine = (e: IndexEntry): boolean => membership(e, worktreePath, worktreeId) !== null;
  // Changed files of this worktree are re-read; other worktrees' only marked stale.
  const listed = syncListing(ctx, (_sid, e) => e.corrupt !== undefined || mine(e));
  if (!ctx.exists) return { sessions: [], corrupt: [] };
  if (!listed) {
    // Quiet directory: entries are current except ones marked stale earlier.
    for (const [sid, e] of Object.entries(ctx.index.entries)) {
      if (e.stale && (e.corrupt !== undefined || mine(e))) reparse(ctx, sid);
    }
  }

  const sessions: WorktreeSession[] = [];
  for (const sid of Object.keys(ctx.index.entries)) {
    const e = ctx.index.entries[sid]!;
    if (e.corrupt !== undefined) continue;
    const m = membership(e, worktreePath, worktreeId);
    if (m === null || !entryIsLive(sid, e, ctx.side)) continue;
    // A member we will hand out: use a fresh read (this also re-validates the entry).
    if (!ctx.parsed.has(sid) && !reparse(ctx, sid)) continue;
    const fresh = ctx.index.entries[sid];
    const decoded = ctx.parsed.get(sid);
    if (!fresh || fresh.corrupt !== undefined || !decoded) continue;
    const m2 = membership(fresh, worktreePath, worktreeId);
    if (m2 === null || !(isLiveState(decoded.state) || ctx.side.has(sid))) continue;
    sessions.push({
      state: decoded.state,
      warnings: decoded.warnings,
      path: join(ctx.dir, `${sid}.json`),
      moved: m2 === 'moved',
      hasSideFiles: ctx.side.has(sid),
    });
  }
  const corrupt: CorruptState[] = [];
  for (const [sid, e] of Object.entries(ctx.index.entries)) {
    if (e.corrupt !== undefined) corrupt.push({ sessionId: sid, path: join(ctx.dir, `${sid}.json`), error: e.corrupt });
  }
  closeCtx(ctx);
  sessions.sort((a, b) => compareStarted(a.state, b.state));
  corrupt.sort((a, b) => (a.sessionId < b.sessionId ? -1 : a.sessionId > b.sessionId ? 1 : 0));
  return { sessions, corrupt };
}

/**
 * Refresh the whole index (every worktree). `reparseStale`: 'all' re-reads
 * every changed file; 'untilLive' stops as soon as one live session is known.
 */
function refreshAll(commonDir: string, reparseStale: 'all' | 'untilLive'): Ctx {
  const ctx = openCtx(commonDir);
  syncListing(ctx, () => reparseStale === 'all');
  if (!ctx.exists) return ctx;
  const live = (): boolean =>
    ctx.side.size > 0 || Object.entries(ctx.index.entries).some(([sid, e]) => !e.stale && entryIsLive(sid, e, ctx.side));
  if (reparseStale === 'untilLive' && live()) return ctx;
  for (const [sid, e] of Object.entries(ctx.index.entries)) {
    if (!e.stale) continue;
    reparse(ctx, sid);
    if (reparseStale === 'untilLive') {
      const f = ctx.index.entries[sid];
      if (f && entryIsLive(sid, f, ctx.side)) return ctx;
    }
  }
  return ctx;
}

/** All index entries after a full refresh (for pruning, status, doctor). */
export function indexedSessions(commonDir: string): { entries: Record<string, IndexEntry>; sideFiles: string[] } {
  const ctx = refreshAll(commonDir, 'all');
  closeCtx(ctx);
  const entries = { ...ctx.index.entries };
  // commands need every session's details: dormant ones are read here (never on hook paths)
  for (const sid of Object.keys(ctx.index.dormant ?? {})) {
    try {
      const r = readStateFile(join(ctx.dir, `${sid}.json`), sid);
      if (r === null) continue;
      entries[sid] = r.ok ? entryFromState(r.decoded.state, r.stamp) : corruptEntry(r.stamp, r.error.message);
    } catch {
      /* unreadable now: the next listing sees it */
    }
  }
  return { entries, sideFiles: [...ctx.side].sort() };
}

/** Whether any session is live (not ENDED, pending work, files_touched, side files, or corrupt). */
export function anySessionLive(commonDir: string): boolean {
  const ctx = refreshAll(commonDir, 'untilLive');
  closeCtx(ctx);
  if (!ctx.exists) return false;
  if (ctx.side.size > 0) return true;
  return Object.entries(ctx.index.entries).some(([sid, e]) => !e.stale && entryIsLive(sid, e, ctx.side));
}

/**
 * Record a state we just wrote (stamp from the written file's fstat, so a
 * concurrent later write is never mistaken for ours). Never throws.
 */
export function recordSavedState(commonDir: string, state: SessionState, stamp: FileStamp): void {
  try {
    const index = loadIndex(commonDir);
    if (index === null) return; // the next reader rebuilds it
    index.entries[state.session_id] = entryFromState(state, stamp);
    if (index.dormant) delete index.dormant[state.session_id];
    writeIndex(commonDir, index);
  } catch {
    /* cache only */
  }
}

/** Drop a deleted state's entry. Never throws. */
export function forgetState(commonDir: string, sessionId: string): void {
  try {
    const index = loadIndex(commonDir);
    if (index === null || !(sessionId in index.entries || (index.dormant !== undefined && sessionId in index.dormant))) return;
    delete index.entries[sessionId];
    if (index.dormant) delete index.dormant[sessionId];
    writeIndex(commonDir, index);
  } catch {
    /* cache only */
  }
}

// ---------------------------------------------------------------------------
// LIVE marker (SPEC §8.11)

/** Create the marker if missing (idempotent). Throws if it cannot be created. */
export function ensureLiveMarker(commonDir: string): void {
  const path = liveMarkerPath(commonDir);
  if (existsSync(path)) return;
  ensureDir(sessionsDir(commonDir));
  writeFileSync(path, '', { mode: FILE_MODE, flag: 'a' });
}

/**
 * Make the marker match the sessions: present iff some session is live.
 * Call after a save (under that session's lock). Removal is followed by a
 * re-check, so a session that became live concurrently re-creates it: the
 * marker can be briefly stale-present, and is missing only in the instant
 * between removal and re-creation. Returns whether a session is live.
 */
export function updateLiveMarker(commonDir: string): boolean {
  if (anySessionLive(commonDir)) {
    ensureLiveMarker(commonDir);
    return true;
  }
  const path = liveMarkerPath(commonDir);
  let removed: boolean;
  try {
    removed = safeUnlink(path);
  } catch {
    return false;
  }
  if (removed && anySessionLive(commonDir)) {
    ensureLiveMarker(commonDir);
    return true;
  }
  return false;
}
