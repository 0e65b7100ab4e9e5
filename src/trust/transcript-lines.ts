/**
 * SPEC-2 §A.6: transcripts are read in pieces of at most 1 MiB, and a hook
 * never holds more of one than a line: every JSONL reader (the redaction
 * cache, the analysers) walks a transcript through `lineWindows`.
 *
 * A window is whole lines (each with its `\n`, except the file's unterminated
 * last line): the complete lines of one read, or one line that spanned reads,
 * gathered up to `MAX_LINE_BYTES`. A line longer than that is never held: its
 * bytes are counted and hashed as they pass, and it comes as an `oversized`
 * window (the line counts for positions; it is stored as SPEC §2.7's
 * `entire-omitted` record and not parsed).
 */
import { crypto } from '../builtins.js';
import { readAt } from '../fs-read.js';

/** The largest read of a transcript. */
export const READ_BYTES = 1024 * 1024;
/** The longest line that is parsed and redacted; longer ones are omitted. */
export const MAX_LINE_BYTES = 16 * 1024 * 1024;

export type LineWindow =
  | {
      kind: 'lines';
      /** File offset of `buf[0]`. */
      start: number;
      /** Whole lines; each ends in `\n` except, when `terminated` is false, the last. */
      buf: Buffer;
      terminated: boolean;
    }
  | {
      kind: 'oversized';
      start: number;
      /** The line's length, without its `\n`. */
      bytes: number;
      /** Hex SHA-256 of those bytes. */
      sha256: string;
      /** Whether a `\n` ended it (else it is the file's unterminated last line). */
      terminated: boolean;
    };

export interface LineWindowOptions {
  readBytes?: number;
  maxLine?: number;
}

/**
 * The lines of bytes [start, end) of an open file, in windows (see the file
 * comment). `start` must be a line start.
 */
export function* lineWindows(fd: number, start: number, end: number, opts: LineWindowOptions = {}): Generator<LineWindow> {
  const readBytes = opts.readBytes ?? READ_BYTES;
  const maxLine = opts.maxLine ?? MAX_LINE_BYTES;
  // the line in progress across reads: its start, its bytes so far (or their hash once too long)
  let lineStart = start;
  let parts: Buffer[] = [];
  let lineLen = 0;
  let hash: ReturnType<ReturnType<typeof crypto>['createHash']> | null = null;
  const take = (b: Buffer): void => {
    lineLen += b.length;
    if (hash) hash.update(b);
    else if (lineLen > maxLine) {
      hash = crypto().createHash('sha256');
      for (const p of parts) hash.update(p);
      hash.update(b);
      parts = [];
    } else parts.push(b);
  };
  const finish = (terminated: boolean): LineWindow => {
    let w: LineWindow;
    if (hash) {
      w = { kind: 'oversized', start: lineStart, bytes: lineLen, sha256: hash.digest('hex'), terminated };
    } else {
      if (terminated) parts.push(NEWLINE);
      w = { kind: 'lines', start: lineStart, buf: parts.length === 1 ? parts[0]! : Buffer.concat(parts), terminated };
    }
    parts = [];
    lineLen = 0;
    hash = null;
    return w;
  };

  let pos = start;
  while (pos < end) {
    const piece = readAt(fd, pos, Math.min(readBytes, end - pos));
    if (piece.length === 0) break; // the file shrank: what was read is all there is
    let i = 0;
    if (lineLen > 0 || hash) {
      const nl = piece.indexOf(10);
      if (nl < 0) {
        take(piece);
        pos += piece.length;
        continue;
      }
      take(piece.subarray(0, nl));
      yield finish(true);
      i = nl + 1;
      lineStart = pos + i;
    }
    const last = piece.lastIndexOf(10);
    if (last >= i) {
      yield { kind: 'lines', start: pos + i, buf: piece.subarray(i, last + 1), terminated: true };
      i = last + 1;
    }
    if (i < piece.length) {
      lineStart = pos + i;
      take(piece.subarray(i));
    }
    pos += piece.length;
  }
  if (lineLen > 0 || hash) yield finish(false);
}

const NEWLINE = Buffer.from('\n');

/** SPEC §2.7's record for a line that is not stored (no newline). */
export function omittedRecord(bytes: number, sha256: string): string {
  return JSON.stringify({ type: 'entire-omitted', original_bytes: bytes, sha256 });
}
