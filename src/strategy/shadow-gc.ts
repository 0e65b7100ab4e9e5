/**
 * SPEC §6.5 step 5: a shadow branch is deleted only when no session state
 * base and no pending condensation names it (Go strands uncondensed work).
 */
import type { HookContext } from './context.js';
import type { SessionState } from '../session/state.js';
import { sessionsForWorktree } from '../session/index.js';
import { shadowBranchName } from '../checkpoint/shadow.js';
import { readRef, updateRefs } from '../git/refs.js';

export function referencedShadowBranches(worktreeId: string, states: readonly SessionState[]): Set<string> {
  const out = new Set<string>();
  for (const s of states) {
    if (s.base_commit) out.add(shadowBranchName(s.base_commit, worktreeId));
    for (const p of s.pending_condensations ?? []) if (p.shadow_branch) out.add(p.shadow_branch);
  }
  return out;
}

/** Delete `branch` unless a live session of this worktree (or `extra`) still needs it. */
export async function deleteShadowIfUnreferenced(
  ctx: HookContext,
  branch: string,
  extra: readonly SessionState[] = [],
  opts: { listed?: boolean } = {},
): Promise<boolean> {
  // `listed`: the caller passes every live session of this worktree already
  const live = opts.listed ? [] : sessionsForWorktree(ctx.repo.commonDir, ctx.repo.root, ctx.repo.worktreeId).sessions.map((w) => w.state);
  const byId = new Map<string, SessionState>();
  for (const s of live) byId.set(s.session_id, s);
  for (const s of extra) byId.set(s.session_id, s);
  if (referencedShadowBranches(ctx.repo.worktreeId, [...byId.values()]).has(branch)) return false;
  const ref = `refs/heads/${branch}`;
  const tip = await readRef(ctx.repo, ref);
  if (!tip) return false;
  const r = await updateRefs(ctx.repo, [{ ref, newOid: null, oldOid: tip }]);
  if (r === 'ok') ctx.log.info('deleted shadow branch', {});
  return r === 'ok';
}
