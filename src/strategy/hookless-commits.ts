/**
 * SPEC-2 §D.3: commits made without our hooks (an agent whose shell runs git with
 * `core.hooksPath` emptied; `HUSKY=0`; tools that commit through libgit2).
 * Before a session's base moves on (Migrate), the first-parent commits
 * `base_commit..tip` (oldest first, at most 50) that carry no trailer and no
 * resolving note id get a checkpoint of the session, as post-commit would have
 * written, and a note, but only with positive evidence that this session's
 * agent (or its person, here) made them (issue 25, point 6):
 *  - HEAD's reflog shows the commit entered by a local `commit` (not `pull`,
 *    `merge`, `rebase`, `reset`, `checkout`, `cherry-pick`), written by the
 *    identity that committed it, within the session's time;
 *  - it changes a path of the session's candidates: `files_touched`, what the
 *    caller adds, and the paths the agent edited in the live turn's transcript
 *    (issue 25, point 8: `files_touched` is empty mid-turn), read only when a
 *    commit passed the reflog check;
 *  - its version of one of those paths is the agent's: the work tree's, or the
 *    session's last step's (shadow branch).
 * A teammate's commit that came by `pull` (even of a file the session
 * touched) is never linked: its checkpoint would hold this session's prompts
 * and be published by the next push. The commit itself is never rewritten.
 * Runs under the session's lock (the caller's).
 */
import type { HookContext } from './context.js';
import type { SessionState } from '../session/state.js';
import { readCommit } from '../store/tree.js';
import { checkpointExists } from '../store/routing.js';
import { generateCheckpointId } from '../checkpoint/id.js';
import { checkpointIdsInFinalBlock } from '../checkpoint/trailers.js';
import { shadowBranchName } from '../checkpoint/shadow.js';
import { headReflogTail, REFLOG_TAIL_BYTES, type ReflogEntry } from '../git/reflog.js';
import { toRepoRelative } from '../agents/kit/home-paths.js';
import { changedBetween, differingFromCommit } from './head-diff.js';
import { condenseSession } from './condense.js';
import { adapterFor, analyze, positionOf } from './transcript.js';
import { readPrePrompt } from './scratch.js';
import { linkedIds } from '../links/commit-ids.js';
import { noteCommit } from '../links/note-writer.js';
import { writeNotice } from '../stderr.js';

export const HOOKLESS_WALK_LIMIT = 50;
/** Seconds of tolerance around the session's time (timestamps are whole seconds). */
const TIME_SLACK_S = 5;
/** What git (and libgit2) write in HEAD's reflog for a commit made here; `commit (merge)` concludes someone's merge. */
const LOCAL_COMMIT = /^commit(?: \((?:initial|amend)\))?: /;
const IDENT_TIME = /^([^<>\n]*<[^<>\n]*>) (\d{1,12}) [+-]\d{4}$/;

export interface UnlinkedCommit {
  sha: string;
  /** The session's paths the commit changed. */
  files: string[];
}

/** The session's candidate paths, given or computed when first needed. */
export type Candidates = readonly string[] | (() => Promise<readonly string[]>);

/**
 * Whether HEAD's reflog shows `sha` entered by a local commit whose reflog
 * identity is the commit's committer, at a time within [from, to] (seconds).
 */
export function enteredByLocalCommit(reflog: readonly ReflogEntry[], sha: string, committer: string, from: number, to: number): boolean {
  const c = IDENT_TIME.exec(committer);
  if (!c) return false;
  const ident = c[1]!;
  const time = Number(c[2]);
  if (time < from || time > to) return false;
  return reflog.some((e) => e.next === sha && LOCAL_COMMIT.test(e.message) && e.ident === ident && e.time >= from && e.time <= to);
}

/**
 * Paths the agent edited since the session's last checkpoint (the live turn's
 * start when ACTIVE), from the transcript analysis the hooks keep a cursor for
 * (SPEC §10: incremental), plus what its background subagents edit (SPEC-2 §B.5).
 */
export async function agentEditPaths(ctx: HookContext, state: SessionState): Promise<string[]> {
  try {
    const adapter = await adapterFor(state);
    const owner = { root: ctx.repo.root, sessionId: state.session_id };
    const pre = state.phase === 'active' ? readPrePrompt(ctx.repo.root, state.session_id) : null;
    const turn = analyze(adapter, state.transcript_path, pre?.step_transcript_start ?? state.checkpoint_transcript_start ?? 0, owner);
    const edits = [...(turn?.modifiedFiles ?? [])];
    if (state.background_agents?.length) edits.push(...(await import('./background.js')).backgroundEditPaths(state, adapter, ctx.now()));
    return toRepoRelative(edits, ctx.repo.root);
  } catch (e) {
    ctx.log.warn('cannot read the transcript for commits made without hooks', { session_id: state.session_id, error: e });
    return [];
  }
}

/** Whether the commit's version of one of `paths` is the agent's: the work tree's now, or the session's last step's. */
async function holdsAgentVersion(ctx: HookContext, state: SessionState, sha: string, paths: readonly string[]): Promise<boolean> {
  const differing = await differingFromCommit(ctx.repo, sha, paths);
  if (paths.some((p) => !differing.has(p))) return true;
  if (!state.base_commit) return false;
  const step = await readCommit(ctx.repo, `refs/heads/${shadowBranchName(state.base_commit, ctx.repo.worktreeId)}`).catch(() => null);
  if (!step) return false;
  const changed = await changedBetween(ctx.repo, step.oid, sha, paths);
  return paths.some((p) => !changed.has(p));
}

/**
 * The commits of `base..tip` (first parent, oldest first) that a session
 * with `candidates` should have linked and did not; [] when `base` is not
 * within HOOKLESS_WALK_LIMIT first-parent steps of `tip`.
 */
export async function unlinkedCommits(ctx: HookContext, state: SessionState, candidates: Candidates, tip: string | null = ctx.head): Promise<UnlinkedCommit[]> {
  const base = state.base_commit;
  if (!tip || !base || base === tip) return [];
  if (typeof candidates !== 'function' && candidates.length === 0) return [];
  const chain: { sha: string; parent: string | null; message: string; committer: string }[] = [];
  let rev: string | null = tip;
  while (rev && rev !== base) {
    if (chain.length >= HOOKLESS_WALK_LIMIT) return [];
    const c = await readCommit(ctx.repo, rev);
    if (!c) return [];
    chain.push({ sha: rev, parent: c.parents[0] ?? null, message: c.message, committer: c.committer });
    rev = c.parents[0] ?? null;
  }
  if (rev !== base) return []; // base is not a first-parent ancestor of tip
  const pending = new Set((state.pending_condensations ?? []).map((p) => p.checkpoint_id));
  const started = Math.floor(Date.parse(state.started_at) / 1000);
  const from = Number.isFinite(started) ? started - TIME_SLACK_S : 0;
  const to = Math.floor(ctx.now().getTime() / 1000) + TIME_SLACK_S;
  const unresolved: typeof chain = [];
  for (const c of chain.reverse()) {
    // a trailer is ours to resolve (pending work, a stale intent, doctor's dangling-trailer), never to replace
    let resolves = checkpointIdsInFinalBlock(c.message).length > 0;
    for (const id of resolves ? [] : await linkedIds(ctx.repo, c.sha, c.message)) {
      if (pending.has(id) || (await checkpointExists(ctx.repo, id).catch(() => false))) {
        resolves = true;
        break;
      }
    }
    if (!resolves) unresolved.push(c);
  }
  if (unresolved.length === 0) return [];
  const reflog = headReflogTail(ctx.repo.gitDir, REFLOG_TAIL_BYTES, new Set(unresolved.map((c) => c.sha)));
  const local = unresolved.filter((c) => {
    if (enteredByLocalCommit(reflog, c.sha, c.committer, from, to)) return true;
    ctx.log.debug('not linking a commit without hooks: no local commit in the reflog', { session_id: state.session_id, details: { commit: c.sha } });
    return false;
  });
  if (local.length === 0) return [];
  const paths = typeof candidates === 'function' ? await candidates() : candidates;
  if (paths.length === 0) return [];
  const out: UnlinkedCommit[] = [];
  for (const c of local) {
    const changed = [...(await changedBetween(ctx.repo, c.parent, c.sha, paths))].sort();
    if (changed.length === 0) continue;
    if (await holdsAgentVersion(ctx, state, c.sha, changed)) out.push({ sha: c.sha, files: changed });
    else ctx.log.debug("not linking a commit without hooks: its files are not the agent's version", { session_id: state.session_id, details: { commit: c.sha } });
  }
  return out;
}

/** The candidates of a session: `files_touched`, `extra`, then (computed when needed) the agent's edits in its transcript. */
export function sessionCandidates(ctx: HookContext, state: SessionState, extra: Iterable<string> = []): () => Promise<string[]> {
  const known = [...(state.files_touched ?? []), ...extra];
  return async () => [...new Set([...known, ...(await agentEditPaths(ctx, state))])];
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
    const found = await unlinkedCommits(ctx, state, sessionCandidates(ctx, state, extraCandidates), tip);
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
