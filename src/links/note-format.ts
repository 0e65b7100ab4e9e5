/**
 * SPEC-2 §D.1: the text of a note on `refs/notes/entire`, sorted unique
 * `Entire-Checkpoint: <id>` lines. Notes are untrusted (§A.1): a line that is
 * not exactly that form with a valid id (§A.2) is ignored, so git's
 * `concatenate` rewrite mode (blank line between two notes) reads fine too.
 *
 * Bounded (issue 25): a teammate can push a note of megabytes listing
 * 100,000 ids, which every reader (explain, the hooks' commit linking) would
 * otherwise resolve one by one. Only the first MAX_NOTE_BYTES of a note are
 * read and at most MAX_NOTE_IDS ids taken, in one pass (a Set, not a search
 * of what was taken so far); a note we write never lists more.
 */
import { CHECKPOINT_ID_PATTERN, isCheckpointId } from '../trust/ids.js';
import { CHECKPOINT_TRAILER } from '../checkpoint/trailers.js';

/** Ids a note may list: far above any squash a person makes, far below what hurts a reader. */
export const MAX_NOTE_IDS = 1024;
/** Bytes of a note that are read (1024 lines of the longest id form, with room for git's concatenation). */
export const MAX_NOTE_BYTES = 128 * 1024;

const LINE = new RegExp(`^${CHECKPOINT_TRAILER}:[ \\t]*(${CHECKPOINT_ID_PATTERN})[ \\t]*$`);

/** The checkpoint ids a note lists, in order of first appearance (within the bounds above). */
export function parseNoteIds(note: string | Buffer): string[] {
  const text = typeof note === 'string' ? note.slice(0, MAX_NOTE_BYTES) : note.subarray(0, MAX_NOTE_BYTES).toString('utf8');
  const seen = new Set<string>();
  let start = 0;
  while (start < text.length && seen.size < MAX_NOTE_IDS) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const m = LINE.exec(text.slice(start, end).replace(/\r$/, ''));
    if (m && isCheckpointId(m[1])) seen.add(m[1]!);
    start = end + 1;
  }
  return [...seen];
}

/** A note listing `ids`: sorted, unique, one line each, at most MAX_NOTE_IDS of them. */
export function renderNote(ids: Iterable<string>): string {
  const sorted = [...new Set([...ids].filter((id) => isCheckpointId(id)))].sort().slice(0, MAX_NOTE_IDS);
  return sorted.map((id) => `${CHECKPOINT_TRAILER}: ${id}\n`).join('');
}
