/** Text shaping for the layered context (SPEC-2 §F.4): one line, cut at a word, token counts. */
import { truncateUtf8 } from '../checkpoint/prompts.js';

/** Collapse whitespace (newlines included) to single spaces. */
export function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/** Code points of `s`. */
export function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** SPEC-2 §F.4 tokens: ceil(code points / 4). */
export function tokens(s: string): number {
  return Math.ceil(codePoints(s) / 4);
}

/**
 * At most `max` code points of `s` on one line: cut at a code point and, when one is near,
 * a word boundary, ending with `…`.
 */
export function cut(s: string, max: number): string {
  const line = oneLine(s);
  const cps = Array.from(line);
  if (cps.length <= max) return line;
  if (max <= 1) return '\u2026';
  let head = cps.slice(0, max - 1).join('');
  const space = head.lastIndexOf(' ');
  // back to the word boundary unless that loses most of the text
  if (space >= Math.floor(head.length / 2)) head = head.slice(0, space);
  return head.replace(/[\s,;:.-]+$/, '') + '\u2026';
}

/** Cut to at most `maxBytes` UTF-8 bytes at a code point (input bound: prompts ≤ 2 KB). */
export function capBytes(s: string, maxBytes: number): string {
  return s.length * 3 <= maxBytes ? s : truncateUtf8(s, maxBytes);
}

/** Lowercase alphanumerics only: what two items must share to count as the same (dedup). */
export function dedupKey(s: string): string {
  return s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
}

/** Words of a line. */
export function wordCount(s: string): number {
  const t = s.trim();
  return t === '' ? 0 : t.split(/\s+/).length;
}

/** The first line that says what went wrong (an error's output), else the first non-blank one. */
export function firstErrorLine(output: string): string {
  const lines = output.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !/^exit code \d+$/i.test(l) && !/^<\/?[a-z_-]+>$/i.test(l));
  const meaningful = lines.find((l) => /error|fail|cannot|can't|not found|no such|denied|refused|exception|invalid|missing|\u2717|\u00d7|panic/i.test(l));
  return meaningful ?? lines[0] ?? '';
}
