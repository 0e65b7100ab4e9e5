/**
 * The lines of a JSONL transcript handed to `contextEvents`, parsed: whole lines window by
 * window, only those containing one of `needles` (a substring test is far cheaper than a parse),
 * malformed or non-object lines skipped. Each line is handed over alone, so an adapter built on
 * this stays line-local (what SPEC-2 §F.4's resumable fold needs, `contextLineLocal`).
 */
import type { TranscriptText } from '../types.js';
import { isObj } from './obj.js';

export function* parsedLines(transcript: TranscriptText, needles: readonly string[]): Generator<Record<string, unknown>> {
  for (const window of transcript.windows()) {
    let at = 0;
    while (at < window.length) {
      let end = window.indexOf('\n', at);
      if (end < 0) end = window.length;
      const line = window.slice(at, end);
      at = end + 1;
      if (line.length < 2 || !needles.some((n) => line.includes(n))) continue;
      let v: unknown;
      try {
        v = JSON.parse(line);
      } catch {
        continue; // a line still being written, or not JSON
      }
      if (isObj(v)) yield v;
    }
  }
}
