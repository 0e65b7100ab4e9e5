/**
 * SPEC-2 §D.1: the text of a note on `refs/notes/entire`, sorted unique
 * `Entire-Checkpoint: <id>` lines. Notes are untrusted (§A.1): a line that is
 * not exactly that form with a valid id (§A.2) is ignored, so git's
 * `concatenate` rewrite mode (blank line between two notes) reads fine too.
 */
import { CHECKPOINT_ID_PATTERN, isCheckpointId } from '../trust/ids.js';
import { CHECKPOINT_TRAILER } from '../checkpoint/trailers.js';

const LINE = new RegExp(`^${CHECKPOINT_TRAILER}:[ \\t]*(${CHECKPOINT_ID_PATTERN})[ \\t]*$`);

/** The checkpoint ids a note lists, in order of first appearance. */
export function parseNoteIds(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split('\n')) {
    const m = LINE.exec(raw.replace(/\r$/, ''));
    if (m && isCheckpointId(m[1]) && !out.includes(m[1]!)) out.push(m[1]!);
  }
  return out;
}

/** A note listing `ids`: sorted, unique, one line each. */
export function renderNote(ids: Iterable<string>): string {
  const sorted = [...new Set([...ids].filter((id) => isCheckpointId(id)))].sort();
  return sorted.map((id) => `${CHECKPOINT_TRAILER}: ${id}\n`).join('');
}
