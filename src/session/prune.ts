/**
 * Pruning (SPEC §4.3): at most once per 24 h (from `session-start`) and in
 * `clean --force`, a state (and its pre-prompt file) is deleted only if it
 * ENDED more than 7 days ago with no `turn_checkpoint_ids`, no
 * `pending_condensations`, no side files, and `files_touched` empty or its
 * shadow branch gone. Never called from list/load.
 */
import { readFileSync, statSync } from 'node:fs';
import { isEntireError } from '../errors.js';
import { removeConfined } from '../trust/confined.js';
import { cacheKeyName } from '../redact/incremental.js';
import { forgetState, indexedSessions, updateLiveMarker } from './index.js';
import { withSessionLock, type LockOptions } from './lock.js';
import { ensureDir, pruneStampPath, readStateFile, safeUnlink, sessionsDir, stateFilePath, writeFileAtomic } from './paths.js';
import { hasPendingWork, shadowBranchName, type SessionState } from './state.js';
import { readPendingSideFiles } from './store.js';
import { agentByDisplayName, getAgent } from '../agents/registry.js';

export const PRUNE_AFTER_MS = 7 * 24 * 60 * 60 * 1000;
export const PRUNE_INTERVAL_MS = 24 * 60 * 60 * 1000;

export interface PruneOptions {
  /** Whether the local shadow branch `entire/<base7>-<wt6>` exists. */
  isShadowBranchPresent(name: string): boolean | Promise<boolean>;
  /** Ignore (and do not consult) the once-per-24h stamp, e.g. for `clean --force`. */
  force?: boolean;
  /** Report what would be pruned; delete nothing and write no stamp (e.g. `clean` preview). */
  dryRun?: boolean;
  /** Lock wait per session (default 1000 ms); a busy session is skipped. */
  lock?: LockOptions;
}

export interface PruneResult {
  /** False when skipped because the last run was < 24 h ago. */
  ran: boolean;
  /** Session ids pruned (or, with dryRun, prunable). */
  pruned: string[];
}

function endedMs(s: { ended_at?: string; last_interaction_time?: string }): number {
  const t = s.ended_at ? Date.parse(s.ended_at) : NaN;
  if (!Number.isNaN(t)) return t;
  return s.last_interaction_time ? Date.parse(s.last_interaction_time) : NaN;
}

/** The §4.3 rule, given whether the session's shadow branch exists. */
export function isPrunable(state: SessionState, nowMs: number, shadowBranchPresent: boolean): boolean {
  if (state.phase !== 'ended') return false;
  const ended = endedMs(state);
  if (Number.isNaN(ended) || nowMs - ended <= PRUNE_AFTER_MS) return false;
  if (hasPendingWork(state)) return false;
  if ((state.files_touched?.length ?? 0) > 0 && shadowBranchPresent) return false;
  return true;
}

function lastPruneMs(commonDir: string): number {
  const path = pruneStampPath(commonDir);
  try {
    const t = Date.parse(readFileSync(path, 'utf8').trim());
    if (!Number.isNaN(t)) return t;
    return statSync(path).mtimeMs;
  } catch {
    return NaN;
  }
}

/**
 * What the session left in its worktree's `.entire/tmp` — its pre-prompt snapshot, its
 * transcript bookkeeping, its redaction cache (a redacted copy of the whole transcript) and its
 * context fold state — removed through the confined helper (SPEC-2 §A.4). Each goes on its own.
 */
function removeSessionScratch(state: SessionState, agentScratch: readonly string[]): void {
  const root = state.worktree_path;
  if (!root) return;
  const sid = state.session_id;
  const cache = cacheKeyName(sid);
  const names = [
    `pre-prompt-${sid}.json`,
    `transcript-${sid}.json`,
    ...['redacted.jsonl', 'cursor.json', 'lock'].map((x) => `redact/${cache}.${x}`),
    `context/${cache}.json`,
    // plain names only: an agent's list never reaches outside .entire/tmp
    ...agentScratch.filter((n) => /^[^/\\]+$/.test(n) && n !== '.' && n !== '..'),
  ];
  for (const name of names) {
    try {
      removeConfined(root, `.entire/tmp/${name}`);
    } catch {
      /* a stale file only costs a little disk */
    }
  }
}

/** The session's agent's own scratch names ([] for an unknown agent). */
async function agentScratchOf(state: SessionState): Promise<readonly string[]> {
  const info = state.agent_type ? agentByDisplayName(state.agent_type) : undefined;
  if (!info) return [];
  const adapter = await getAgent(info.key);
  return adapter.sessionScratch?.(state.session_id) ?? [];
}

export async function pruneSessions(commonDir: string, now: Date | number, opts: PruneOptions): Promise<PruneResult> {
  const nowMs = typeof now === 'number' ? now : now.getTime();
  if (!opts.force && !opts.dryRun) {
    const last = lastPruneMs(commonDir);
    if (!Number.isNaN(last) && nowMs - last < PRUNE_INTERVAL_MS && nowMs >= last) return { ran: false, pruned: [] };
  }
  const { entries, sideFiles } = indexedSessions(commonDir);
  if (!opts.dryRun) {
    try {
      ensureDir(sessionsDir(commonDir));
      writeFileAtomic(pruneStampPath(commonDir), new Date(nowMs).toISOString() + '\n', { fsync: false });
    } catch {
      /* stamping is best effort */
    }
  }
  const side = new Set(sideFiles);
  const candidates = Object.keys(entries)
    .filter((sid) => {
      const e = entries[sid]!;
      if (e.corrupt !== undefined || e.phase !== 'ended' || e.has_pending || side.has(sid)) return false;
      const t = endedMs(e);
      return !Number.isNaN(t) && nowMs - t > PRUNE_AFTER_MS;
    })
    .sort();

  const pruned: string[] = [];
  const check = async (sid: string): Promise<SessionState | null> => {
    const r = readStateFile(stateFilePath(commonDir, sid), sid);
    if (r === null || !r.ok) return null;
    const state = r.decoded.state;
    if (readPendingSideFiles(commonDir, sid).files.length > 0) return null;
    const needsBranch = (state.files_touched?.length ?? 0) > 0;
    const present = needsBranch ? await opts.isShadowBranchPresent(shadowBranchName(state.base_commit, state.worktree_id)) : false;
    return isPrunable(state, nowMs, present) ? state : null;
  };

  for (const sid of candidates) {
    if (opts.dryRun) {
      if (await check(sid)) pruned.push(sid);
      continue;
    }
    try {
      await withSessionLock(
        commonDir,
        sid,
        async () => {
          const state = await check(sid);
          if (!state) return;
          safeUnlink(stateFilePath(commonDir, sid));
          forgetState(commonDir, sid);
          removeSessionScratch(state, await agentScratchOf(state));
          pruned.push(sid);
        },
        { waitMs: 1000, ...opts.lock },
      );
    } catch (e) {
      if (isEntireError(e, 'LOCK_TIMEOUT')) continue; // busy: not prunable right now
      throw e;
    }
  }
  if (pruned.length > 0 && !opts.dryRun) {
    try {
      updateLiveMarker(commonDir);
    } catch {
      /* a marker left in place only costs time */
    }
  }
  return { ran: true, pruned };
}
