/**
 * SPEC-2 §D.3: commits made without our hooks (an agent whose shell runs git with
 * `core.hooksPath` emptied; `HUSKY=0`; tools that commit through libgit2).
 * Before a session's base moves on (Migrate), the first-parent commits
 * `base_commit..tip` (oldest first, at most 50) that carry no trailer and no
 * resolving note id, and change a path the session touched, get a checkpoint
 * of the session, as post-commit would have written, and a note. The commit
 * itself is never rewritten. Runs under the session's lock (the caller's).
 */
import type { HookContext } from './context.js';
import type { SessionState } from '../session/state.js';
import { readCommit } from '../store/tree.js';
import { checkpointExists } from '../store/routing.js';
import { generateCheckpointId } from '../checkpoint/id.js';
import { checkpointIdsInFinalBlock } from '../checkpoint/trailers.js';
import { changedBetween, differingFromCommit } from './head-diff.js';
import { condenseSession } from './condense.js';
import { adapterFor, positionOf } from './transcript.js';
import { linkedIds } from '../links/commit-ids.js';
import { noteCommit } from '../links/note-writer.js';
import { writeNotice } from '../stderr.js';

export const HOOKLESS_WALK_LIMIT = 50;

export interface UnlinkedCommit {
  sha: string;
  /** The session's paths the commit changed. */
  files: string[];
}

/**
 * The commits of `base..tip` (first parent, oldest first) that a session
 * with `candidates` should have linked and did not; [] when `base` is not
 * within HOOKLESS_WALK_LIMIT first-parent steps of `tip`.
 */
export async function unlinkedCommits(
  ctx: HookContext,
  state: SessionState,
  candidates: readonly string[],
  tip: string | null = ctx.head,
): Promise<UnlinkedCommit[]> {
  const base = state.base_commit;
  if (!tip || !base || base === tip || candidates.length === 0) return [];
  const chain: { sha: string; parent: string | null; message: string }[] = [];
  let rev: string | null = tip;
  while (rev && rev !== base) {
    if (chain.length >= HOOKLESS_WALK_LIMIT) return [];
    const c = await readCommit(ctx.repo, rev);
    if (!c) return [];
    chain.push({ sha: rev, parent: c.parents[0] ?? null, message: c.message });
    rev = c.parents[0] ?? null;
  }
  if (rev !== base) return []; // base is not a first-parent ancestor of tip
  const pending = new Set((state.pending_condensations ?? []).map((p) => p.checkpoint_id));
  const out: UnlinkedCommit[] = [];
  for (const c of chain.reverse()) {
    // a trailer is ours to resolve (pending work, a stale intent, doctor's dangling-trailer), never to replace
    let resolves = checkpointIdsInFinalBlock(c.message).length > 0;
    for (const id of resolves ? [] : await linkedIds(ctx.repo, c.sha, c.message)) {
      if (pending.has(id) || (await checkpointExists(ctx.repo, id).catch(() => false))) {
        resolves = true;
        break;
      }
    }
    if (resolves) continue;
    const changed = await changedBetween(ctx.repo, c.parent, c.sha, candidates);
    if (changed.size > 0) out.push({ sha: c.sha, files: [...changed].sort() });
  }
  return out;
}

/**
 * Link the session's hook-less commits; returns the state to save. Each gets
 * the session's transcript up to now (provisional while the turn runs: the
 * turn end finalizes it like any mid-turn checkpoint).
 */
export async function linkHooklessCommits(
  ctx: HookContext,
  state: SessionState,
  extraCandidates: Iterable<string> = [],
  tip: string | null = ctx.head,
): Promise<SessionState> {
  try {
    const candidates = [...new Set([...(state.files_touched ?? []), ...extraCandidates])];
    const found = await unlinkedCommits(ctx, state, candidates, tip);
    if (found.length === 0) return state;
    const next: SessionState = { ...state };
    let linked = 0;
    for (const c of found) {
      let id = generateCheckpointId();
      while (await checkpointExists(ctx.repo, id)) id = generateCheckpointId();
      try {
        await condenseSession(ctx, { checkpointId: id, state: next, files: c.files });
      } catch (e) {
        ctx.log.warn('cannot write the checkpoint of a commit made without hooks', { session_id: state.session_id, error: e });
        continue;
      }
      await noteCommit(ctx, c.sha, [id]);
      linked++;
      next.last_checkpoint_id = id;
      if (next.phase === 'active') next.turn_checkpoint_ids = [...new Set([...(next.turn_checkpoint_ids ?? []), id])];
      ctx.log.info('linked a commit made without hooks', { session_id: state.session_id, checkpoint_id: id, details: { commit: c.sha } });
      writeNotice(`[entire] Linked commit ${c.sha.slice(0, 7)} (made without git hooks) to session ${state.session_id.slice(0, 8)}: ${id}\n`);
    }
    if (linked === 0) return state;
    // what the checkpoints hold is behind us, as after a post-commit
    const adapter = await adapterFor(next);
    const pos = positionOf(adapter, next.transcript_path, { root: ctx.repo.root, sessionId: next.session_id });
    if (pos.position) next.checkpoint_transcript_start = pos.position;
    if (pos.lastIdentifier) next.transcript_identifier_at_start = pos.lastIdentifier;
    next.checkpoint_count = 0;
    delete next.token_usage;
    if (tip && next.files_touched?.length) {
      const differing = await differingFromCommit(ctx.repo, tip, next.files_touched);
      const remaining = next.files_touched.filter((p) => differing.has(p));
      if (remaining.length > 0) next.files_touched = remaining;
      else delete next.files_touched;
    }
    return next;
  } catch (e) {
    ctx.log.warn('cannot link commits made without hooks', { session_id: state.session_id, error: e });
    return state;
  }
}

/** Every session of this worktree whose base is behind HEAD (pre-push, doctor). */
export async function linkHooklessInWorktree(ctx: HookContext): Promise<void> {
  if (!ctx.head) return;
  const { sessionsForWorktree } = await import('../session/index.js');
  const { updateState } = await import('../session/store.js');
  for (const w of sessionsForWorktree(ctx.repo.commonDir, ctx.repo.root, ctx.repo.worktreeId).sessions) {
    if (!w.state.base_commit || w.state.base_commit === ctx.head) continue;
    await updateState(ctx.repo.commonDir, w.state.session_id, async (s) => (s ? await linkHooklessCommits(ctx, s) : null), { waitMs: 2000 }).catch((e) =>
      ctx.log.warn('cannot link commits made without hooks', { session_id: w.state.session_id, error: e }),
    );
  }
}
