/**
 * The refs pre-push keeps in step with a remote, one entry each. The push
 * loop (push.ts) is written over this list so that another union-merged ref
 * (the notes index of SPEC-2 §D.1) joins by adding an entry here: its
 * remote name, where a fetch of it lands, and how a fetched copy is merged
 * into the local one.
 */
import type { HookContext } from '../strategy/context.js';
import { METADATA_BRANCH, METADATA_REF } from '../checkpoint/shadow.js';
import { trackingRef } from '../store/sources.js';
import { mergeInto } from './merge-into.js';

export interface SyncRef {
  /** For messages: what the ref holds. */
  label: string;
  /** The local ref, and the same name on the remote. */
  ref: string;
  /** Where a fetch from the named remote `remote` stores it. */
  tracking(remote: string): string;
  /** Union-merge the fetched commit `theirs` into the local ref (compare-and-swap). */
  merge(ctx: HookContext, theirs: string): Promise<void>;
}

export const METADATA_SYNC: SyncRef = {
  label: METADATA_BRANCH,
  ref: METADATA_REF,
  tracking: trackingRef,
  merge: mergeInto,
};

/** What pre-push pushes along with the person's push. */
export const SYNC_REFS: readonly SyncRef[] = [METADATA_SYNC];
