/**
 * Merging a fetched copy of `entire/checkpoints/v1` into the local branch
 * (SPEC §6.9 step 3, SPEC-2 §A.7).
 */
import type { HookContext } from '../strategy/context.js';
import { runGit } from '../git/exec.js';
import { readRef, updateRefs } from '../git/refs.js';
import { METADATA_REF } from '../checkpoint/shadow.js';
import { MERGE_MESSAGE } from '../checkpoint/messages.js';
import { casWrite } from '../store/branch.js';
import { readCommit } from '../store/tree.js';
import { unionChanges } from './merge.js';

export async function isAncestor(ctx: HookContext, a: string, b: string): Promise<boolean> {
  const r = await runGit(['merge-base', '--is-ancestor', a, b], { cwd: ctx.repo.root, allowFailure: true });
  return r.code === 0;
}

/**
 * Fast-forward to, or merge with, `theirs` (CAS on the local branch). The
 * remote tree is someone else's data (SPEC-2 §A.7): a fast-forward happens
 * only when the union with it is exactly it; otherwise a merge commit
 * keeps what we accept and drops the rest, so nothing unaccepted is ever
 * committed or pushed on.
 */
export async function mergeInto(ctx: HookContext, theirs: string): Promise<void> {
  let dropped: string[] = [];
  let fastForward = false;
  await casWrite(ctx.repo, METADATA_REF, async (tip) => {
    fastForward = false;
    if (!tip || tip === theirs || (await isAncestor(ctx, theirs, tip))) return null;
    const mine = await readCommit(ctx.repo, tip);
    const other = await readCommit(ctx.repo, theirs);
    if (!mine || !other) throw new Error('cannot read session log commits');
    const union = await unionChanges(ctx.repo, mine.tree, other.tree);
    dropped = union.dropped;
    if (union.ffSafe && (await isAncestor(ctx, tip, theirs))) {
      fastForward = true; // handled below by a plain ref move
      return null;
    }
    return { message: MERGE_MESSAGE, mergeParents: [theirs], changes: union.changes };
  });
  if (dropped.length > 0) {
    ctx.log.warn('dropped remote checkpoint data outside the checkpoint layout', {
      error: `${dropped.length} path(s): ${dropped.slice(0, 20).join(', ')}${dropped.length > 20 ? ', …' : ''}`,
    });
  }
  if (!fastForward) return;
  const tip = await readRef(ctx.repo, METADATA_REF);
  if (tip && tip !== theirs && (await isAncestor(ctx, tip, theirs))) {
    await updateRefs(ctx.repo, [{ ref: METADATA_REF, newOid: theirs, oldOid: tip }]);
  }
}
