/**
 * Public API of the redaction engine (SPEC §3). Everything that reaches git
 * or `.entire/` from a transcript, prompt, context or summary goes through
 * one of these functions first.
 *
 * Importing this module does no work: the rule regexes and the keyword
 * automaton are built on the first call.
 */
import { redactStringStats, type Stats } from './engine.js';
import { redactJsonl, redactJsonDocument, redactJsonlWith, redactJsonDocumentWith } from './json.js';
import { RULES } from './rules.js';

export { redactString, REDACTED, clearRedactionCache, mayNeedRedaction } from './engine.js';
export { redactJsonl, redactJsonLine, redactJsonDocument } from './json.js';
export { FAMILIES } from './rules.js';

/** Number of pattern rules (the entropy detector is not counted). */
export const RULE_COUNT: number = RULES.length;

/** Redacts a stored transcript: JSONL line by line, or one JSON document. */
export function redactTranscript(text: string, format: 'jsonl' | 'json'): string {
  return format === 'json' ? redactJsonDocument(text) : redactJsonl(text);
}

/**
 * Redaction plus per-rule counts (`entropy` for the entropy detector): how
 * many regions each rule flagged, counted before merging, over every pass.
 * Mode `json` walks one JSON document. Slower than the plain functions (no
 * per-string cache); meant for `entire redact --stats`.
 */
export function redactWithStats(text: string, mode: 'text' | 'jsonl' | 'json'): { output: string; stats: Record<string, number> } {
  const stats: Stats = {};
  const fn = (s: string): string => redactStringStats(s, stats);
  let output: string;
  if (mode === 'jsonl') output = redactJsonlWith(text, fn, stats);
  else if (mode === 'json') output = redactJsonDocumentWith(text, fn, stats);
  else output = fn(text);
  return { output, stats };
}
