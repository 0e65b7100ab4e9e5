/**
 * Hooks' side of the notes index (SPEC-2 §D.1): note a commit once its
 * checkpoint is written. A failure only loses the secondary index (the
 * trailer still links), so it is logged and the hook goes on.
 */
import type { HookContext } from '../strategy/context.js';
import { addNoteIds, prepareNoteIds } from './notes.js';
import { forgetNotesRefs } from './commit-ids.js';
import { mark } from '../timing.js';
import type { RideAlong } from '../store/branch.js';

export async function noteCommit(ctx: HookContext, commit: string, ids: readonly string[]): Promise<void> {
  try {
    await addNoteIds(ctx.repo, new Map([[commit, ids]]));
    forgetNotesRefs(ctx.repo); // the ref may have just been created
    mark('note written');
  } catch (e) {
    ctx.log.warn('cannot write the commit note', { error: e });
  }
}

/**
 * noteCommit for post-commit: built before the checkpoint is written (its objects go out in the
 * checkpoint's pack); `ride` is its ref move, for the checkpoint's ref transaction to carry;
 * `commit()` moves the ref when that did not (a race there), or checks that the note landed.
 */
export async function prepareNote(ctx: HookContext, commit: string, ids: readonly string[]): Promise<{ ride: RideAlong | null; commit(): Promise<void> }> {
  try {
    const prepared = await prepareNoteIds(ctx.repo, new Map([[commit, ids]]));
    return {
      ride: prepared.ride,
      commit: async () => {
        try {
          await prepared.commit();
          forgetNotesRefs(ctx.repo);
          mark('note written');
        } catch (e) {
          ctx.log.warn('cannot write the commit note', { error: e });
        }
      },
    };
  } catch (e) {
    ctx.log.warn('cannot write the commit note', { error: e });
    return { ride: null, commit: async () => undefined };
  }
}
