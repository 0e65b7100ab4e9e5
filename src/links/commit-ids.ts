/**
 * SPEC-2 §D.5, the readers' rule: a commit's checkpoint ids are its
 * message's (every well-formed trailer line), then its note's, local then
 * each remote's, deduplicated in that order.
 */
import type { Repo } from '../git/repo.js';
import { allCheckpointIds } from '../checkpoint/trailers.js';
import { readRef } from '../git/refs.js';
import { NOTES_REF, readNoteIds, trackingNotesRefs } from './notes.js';

/** Notes refs to read, resolved once per repository handle (commands read many commits). */
const refsOf = new WeakMap<Repo, Promise<string[]>>();

async function notesRefs(repo: Repo): Promise<string[]> {
  let p = refsOf.get(repo);
  if (!p) {
    p = (async () => {
      const refs = [...((await readRef(repo, NOTES_REF)) ? [NOTES_REF] : []), ...(await trackingNotesRefs(repo).catch(() => []))];
      return refs;
    })();
    refsOf.set(repo, p);
  }
  return p;
}

/** The ids notes give `commit` (local ∪ tracking). */
export async function noteIdsOf(repo: Repo, commit: string): Promise<string[]> {
  const out = new Set<string>();
  for (const ref of await notesRefs(repo)) for (const id of await readNoteIds(repo, commit, ref).catch(() => [])) out.add(id);
  return [...out];
}

/** Trailers ∪ notes of `commit` with message `message`. */
export async function linkedIds(repo: Repo, commit: string, message: string): Promise<string[]> {
  const ids = new Set(allCheckpointIds(message));
  for (const id of await noteIdsOf(repo, commit)) ids.add(id);
  return [...ids];
}

/** Forget the notes refs read so far (after this process wrote a note). */
export function forgetNotesRefs(repo: Repo): void {
  refsOf.delete(repo);
}
