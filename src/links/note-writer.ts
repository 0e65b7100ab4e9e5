/**
 * Hooks' side of the notes index (SPEC-2 §D.1): note a commit once its
 * checkpoint is written. A failure only loses the secondary index (the
 * trailer still links), so it is logged and the hook goes on.
 */
import type { HookContext } from '../strategy/context.js';
import { addNoteIds, prepareNoteIds } from './notes.js';
import { forgetNotesRefs } from './commit-ids.js';
import { mark } from '../timing.js';

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
 * checkpoint's pack), the ref moved by `commit()` once the checkpoint exists.
 */
export async function prepareNote(ctx: HookContext, commit: string, ids: readonly string[]): Promise<{ commit(): Promise<void> }> {
  try {
    const prepared = await prepareNoteIds(ctx.repo, new Map([[commit, ids]]));
    return {
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
    return { commit: async () => undefined };
  }
}
