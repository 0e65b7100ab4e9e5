/**
 * Hooks' side of the notes index (SPEC-2 §D.1): note a commit once its
 * checkpoint is written. A failure only loses the secondary index (the
 * trailer still links), so it is logged and the hook goes on.
 */
import type { HookContext } from '../strategy/context.js';
import { addNoteIds } from './notes.js';
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
