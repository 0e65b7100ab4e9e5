/**
 * The resumable reader of a line-per-event transcript file (SPEC §7.1, SPEC-2 §A.6): open it
 * through the transcript choke point, resume at a saved cursor only when it still points at a
 * line start, and walk the rest window by window (≤ 1 MiB reads, one line held at most), giving
 * back the position, the last identifier and the cursor a later read resumes at. One definition
 * for every JSONL agent (SPEC-3 §F.2); each agent brings its own line analysis and identifier.
 */
import { closeSync, fstatSync } from 'node:fs';
import { EntireError, isEntireError } from '../../errors.js';
import { readAt } from '../../fs-read.js';
import { openTranscript } from '../../trust/transcript-file.js';
import { lineWindows } from '../../trust/transcript-lines.js';
import type { TranscriptCursor } from '../types.js';

export function unreadable(path: string, e: unknown): EntireError {
  return new EntireError('TRANSCRIPT_UNREADABLE', `cannot read transcript ${path}`, { cause: e, detail: { path } });
}

/** `\n` bytes in `buf[start, end)`. */
export function countNewlines(buf: Buffer, start = 0, end = buf.length): number {
  let n = 0;
  let i = buf.indexOf(10, start);
  while (i !== -1 && i < end) {
    n++;
    i = buf.indexOf(10, i + 1);
  }
  return n;
}

/** The transcript opened through its choke point; null: it does not exist. */
export function openTranscriptFile(path: string): { fd: number; size: number } | null {
  try {
    return openTranscript(path);
  } catch (e) {
    if (isEntireError(e)) throw e;
    throw unreadable(path, e);
  }
}

/** Where a read resumes: the cursor's line start when it is still one (not after `maxLine`), else the file's start. */
export interface Resume {
  start: number;
  line: number;
  identifier: string;
}

export function resumeAt(fd: number, size: number, cursor: TranscriptCursor | undefined, maxLine: number): Resume {
  if (
    cursor !== undefined &&
    Number.isSafeInteger(cursor.byte) &&
    Number.isSafeInteger(cursor.line) &&
    cursor.byte > 0 &&
    cursor.line > 0 &&
    cursor.byte <= size &&
    cursor.line <= maxLine &&
    readAt(fd, cursor.byte - 1, 1)[0] === 10
  ) {
    return { start: cursor.byte, line: cursor.line, identifier: typeof cursor.identifier === 'string' ? cursor.identifier : '' };
  }
  return { start: 0, line: 0, identifier: '' };
}

export interface OpenedTranscript extends Resume {
  fd: number;
  size: number;
}

/** Open `path` where a still-valid cursor points (else at 0). undefined: the file does not exist. */
export function openAtCursor(path: string, cursor: TranscriptCursor | undefined, maxLine: number): OpenedTranscript | undefined {
  const o = openTranscriptFile(path);
  if (o === null) return undefined;
  try {
    const size = fstatSync(o.fd).size;
    return { fd: o.fd, size, ...resumeAt(o.fd, size, cursor, maxLine) };
  } catch (e) {
    closeSync(o.fd);
    throw unreadable(path, e);
  }
}

export interface Walked {
  position: number;
  lastIdentifier: string;
  cursor: TranscriptCursor;
}

/**
 * Walk the lines of an opened file from its resume point and close it. `onLines` sees each
 * window of whole lines with the absolute number of its first line; a line too long to parse
 * only counts. `lastId` finds a window's last identifier (null: the format has none). The
 * cursor stops after the last complete line (a partly written one is read again).
 */
export function walkTranscript(
  path: string,
  o: OpenedTranscript,
  lastId: ((buf: Buffer) => string) | null,
  onLines: ((buf: Buffer, firstLine: number) => void) | null,
): Walked {
  let line = o.line;
  let lastIdentifier = lastId ? o.identifier : '';
  let complete = o.start; // byte after the last complete line
  let completeLines = o.line;
  try {
    for (const w of lineWindows(o.fd, o.start, o.size)) {
      if (w.kind === 'oversized') {
        line++;
      } else {
        onLines?.(w.buf, line);
        if (lastId) lastIdentifier = lastId(w.buf) || lastIdentifier;
        line += countNewlines(w.buf) + (w.terminated ? 0 : 1);
      }
      if (w.terminated) {
        complete = w.kind === 'oversized' ? w.start + w.bytes + 1 : w.start + w.buf.length;
        completeLines = line;
      }
    }
  } catch (e) {
    throw unreadable(path, e);
  } finally {
    closeSync(o.fd);
  }
  return { position: line, lastIdentifier, cursor: { byte: complete, line: completeLines, identifier: lastIdentifier } };
}
