/**
 * SPEC §2.2: commit-message trailers. Hooks look only at the final trailer
 * block, so an ID quoted in a squash message body is never reused.
 */
import { CHECKPOINT_ID_PATTERN } from '../trust/ids.js';

export const CHECKPOINT_TRAILER = 'Entire-Checkpoint';
const TRAILER_LINE_RE = /^[A-Za-z0-9][A-Za-z0-9-]*:[ \t]*\S/;
/** Either id kind (SPEC-3 §A.1): a squash commit may carry both. */
const CHECKPOINT_LINE_RE = new RegExp(`^Entire-Checkpoint:[ \\t]*(${CHECKPOINT_ID_PATTERN})[ \\t]*$`);
const CHECKPOINT_LINE_LOOSE_RE = /^Entire-Checkpoint:/i;

// String operations rather than regular expressions: each distinct one costs a
// compilation on its first use, and hooks parse a message once per process.
function chompCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}
function crlfToLf(text: string): string {
  return text.includes('\r') ? text.replace(/\r\n/g, '\n') : text;
}

export interface TrailerOptions {
  /** `core.commentChar`; `null` = no comment lines are recognised. */
  commentChar?: string | null;
}

function scissorsLine(commentChar: string): string {
  return `${commentChar} ------------------------ >8 ------------------------`;
}

/** Normalise line endings and cut at a scissors line. */
export function messageBody(message: string, opts: TrailerOptions = {}): string {
  let text = crlfToLf(message);
  const cc = opts.commentChar === undefined ? '#' : opts.commentChar;
  if (cc) {
    const s = scissorsLine(cc);
    const lines = text.split('\n');
    const idx = lines.indexOf(s);
    if (idx >= 0) text = lines.slice(0, idx).join('\n');
  }
  return text;
}

function isComment(line: string, cc: string | null): boolean {
  return cc !== null && cc !== '' && line.startsWith(cc);
}

export interface FinalBlock {
  /** Lines of the final trailer block (continuations included). */
  lines: string[];
}

/**
 * The final trailer block of a message: after dropping comment lines and
 * trailing blank lines, the last paragraph if it is not the first one and
 * consists only of trailer lines (and whitespace-led continuations).
 */
export function finalTrailerBlock(message: string, opts: TrailerOptions = {}): FinalBlock | null {
  const cc = opts.commentChar === undefined ? '#' : opts.commentChar;
  const lines = messageBody(message, opts)
    .split('\n')
    .filter((l) => !isComment(l, cc));
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop();
  if (lines.length === 0) return null;
  let start = lines.length - 1;
  while (start > 0 && lines[start - 1]!.trim() !== '') start--;
  if (start === 0) return null; // the first paragraph (the subject) is never a trailer block
  const block = lines.slice(start);
  if (!TRAILER_LINE_RE.test(block[0]!)) return null;
  for (const l of block.slice(1)) {
    if (!TRAILER_LINE_RE.test(l) && !/^[ \t]/.test(l)) return null;
  }
  return { lines: block };
}

/** Checkpoint IDs in the final trailer block, in order. */
export function checkpointIdsInFinalBlock(message: string, opts: TrailerOptions = {}): string[] {
  const block = finalTrailerBlock(message, opts);
  if (!block) return [];
  const ids: string[] = [];
  for (const l of block.lines) {
    const m = CHECKPOINT_LINE_RE.exec(l);
    if (m && m[1] && !ids.includes(m[1])) ids.push(m[1]);
  }
  return ids;
}

/** The last checkpoint ID of the final block (what amend restores). */
export function lastCheckpointIdInFinalBlock(message: string, opts: TrailerOptions = {}): string | null {
  const ids = checkpointIdsInFinalBlock(message, opts);
  return ids.length > 0 ? ids[ids.length - 1]! : null;
}

/** Readers: every well-formed checkpoint line anywhere, in order, deduplicated. */
export function allCheckpointIds(message: string): string[] {
  const ids: string[] = [];
  for (const l of crlfToLf(message).split('\n')) {
    const m = CHECKPOINT_LINE_RE.exec(l);
    if (m && m[1] && !ids.includes(m[1])) ids.push(m[1]);
  }
  return ids;
}

/**
 * Index (in the split-by-\n message) of the final block's lines, so edits keep
 * every other byte of the message (comments, scissors, CRLF) as the user wrote it.
 */
function finalBlockLineIndexes(lines: string[], cc: string | null): number[] | null {
  let end = lines.length;
  for (let i = 0; i < lines.length; i++) {
    if (cc && chompCr(lines[i]!) === scissorsLine(cc)) {
      end = i;
      break;
    }
  }
  const content: number[] = [];
  for (let i = 0; i < end; i++) if (!isComment(lines[i]!, cc)) content.push(i);
  while (content.length > 0 && chompCr(lines[content[content.length - 1]!]!).trim() === '') content.pop();
  if (content.length === 0) return null;
  let s = content.length - 1;
  while (s > 0 && chompCr(lines[content[s - 1]!]!).trim() !== '') s--;
  if (s === 0) return null;
  const idx = content.slice(s);
  const text = idx.map((i) => chompCr(lines[i]!));
  if (!TRAILER_LINE_RE.test(text[0]!)) return null;
  for (const l of text.slice(1)) if (!TRAILER_LINE_RE.test(l) && !/^[ \t]/.test(l)) return null;
  return idx;
}

/**
 * Remove `Entire-Checkpoint` lines from the final block (all, or all but
 * `keep`). When that empties the block, the paragraph before it becomes the
 * final block, so it is cleaned too: no old ID is left in the final block
 * (a message with two trailer paragraphs must not keep linking the older one).
 */
export function removeCheckpointTrailers(message: string, opts: TrailerOptions & { keep?: string } = {}): string {
  let cur = message;
  for (let round = 0; round < 1000; round++) {
    const next = removeFromFinalBlock(cur, opts);
    if (next === cur) break;
    cur = next;
  }
  return cur;
}

function removeFromFinalBlock(message: string, opts: TrailerOptions & { keep?: string }): string {
  const cc = opts.commentChar === undefined ? '#' : opts.commentChar;
  const lines = message.split('\n');
  const idx = finalBlockLineIndexes(lines, cc);
  if (!idx) return message;
  const drop = new Set<number>();
  for (const i of idx) {
    const l = chompCr(lines[i]!);
    if (!CHECKPOINT_LINE_LOOSE_RE.test(l)) continue;
    const m = CHECKPOINT_LINE_RE.exec(l);
    if (opts.keep !== undefined && m && m[1] === opts.keep) continue;
    drop.add(i);
  }
  if (drop.size === 0) return message;
  const kept = lines.filter((_, i) => !drop.has(i));
  // If the block became empty, also drop the blank line(s) that introduced it.
  const remainingBlock = idx.filter((i) => !drop.has(i));
  if (remainingBlock.length === 0) {
    const out = kept;
    // find the position where the block was and trim trailing blank lines before it
    const firstDropped = Math.min(...drop);
    let p = firstDropped - [...drop].filter((i) => i < firstDropped).length;
    while (p > 0 && chompCr(out[p - 1]!).trim() === '') {
      out.splice(p - 1, 1);
      p--;
    }
    return out.join('\n');
  }
  return kept.join('\n');
}

/**
 * Append `Entire-Checkpoint: <id>` to the final trailer block, else as a new
 * block after a blank line (SPEC §2.2). Text after the message content
 * (comment lines, a scissors section) stays where it is.
 */
export function addCheckpointTrailer(message: string, id: string, opts: TrailerOptions = {}): string {
  const cc = opts.commentChar === undefined ? '#' : opts.commentChar;
  const trailer = `${CHECKPOINT_TRAILER}: ${id}`;
  const lines = message.split('\n');
  // content region = up to the first comment line that follows the last content line
  let end = lines.length;
  for (let i = 0; i < lines.length; i++) {
    if (cc && chompCr(lines[i]!) === scissorsLine(cc)) {
      end = i;
      break;
    }
  }
  let lastContent = -1;
  for (let i = 0; i < end; i++) {
    const l = chompCr(lines[i]!);
    if (!isComment(l, cc) && l.trim() !== '') lastContent = i;
  }
  if (lastContent < 0) {
    // no user text yet: the trailer starts the message after two blank lines
    const rest = lines.slice(0, end).join('\n').replace(/^\n+/, '');
    const tail = end < lines.length ? '\n' + lines.slice(end).join('\n') : '';
    return `\n\n${trailer}\n` + (rest ? rest.replace(/^/, '') : '') + tail;
  }
  const head = lines.slice(0, lastContent + 1);
  const tailLines = lines.slice(lastContent + 1);
  const hasBlock = finalBlockLineIndexes(lines.slice(0, lastContent + 1), cc) !== null;
  const sep = hasBlock ? '\n' : '\n\n';
  const tail = tailLines.join('\n');
  const result = head.join('\n') + sep + trailer;
  if (tail.trim() === '') return result + '\n';
  // keep what followed (comments, a scissors section) exactly as it was
  return result + '\n' + tail;
}
