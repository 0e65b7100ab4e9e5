/**
 * SPEC §6.10: HEAD moved without a commit we saw (checkout, pull, reset):
 * move the session's shadow work to the branch of the new HEAD.
 */
import type { HookContext } from './context.js';
import type { SessionState } from '../session/state.js';
import { migrateShadow } from '../store/shadow.js';
import { shadowBranchName } from '../checkpoint/shadow.js';
import { deleteShadowIfUnreferenced } from './shadow-gc.js';

export async function migrateIfMoved(ctx: HookContext, state: SessionState): Promise<SessionState> {
  const head = ctx.head;
  if (!head || !state.base_commit || state.base_commit === head) {
    if (head && !state.base_commit) return { ...state, base_commit: head, attribution_base_commit: state.attribution_base_commit || head };
    return state;
  }
  const from = shadowBranchName(state.base_commit, ctx.repo.worktreeId);
  try {
    const r = await migrateShadow(ctx.repo, {
      fromBase: state.base_commit,
      toBase: head,
      worktreeId: ctx.repo.worktreeId,
      sessionId: state.session_id,
      paths: state.files_touched ?? [],
    });
    if (r.moved) ctx.log.info('migrated shadow branch', { session_id: state.session_id });
  } catch (e) {
    ctx.log.warn('shadow migration failed', { session_id: state.session_id, error: e });
    return state;
  }
  const next = { ...state, base_commit: head };
  await deleteShadowIfUnreferenced(ctx, from, [next]);
  return next;
}
