/**
 * The lines of a JSONL transcript for an edits reader: each with its 0-based index (the
 * position unit of JSONL agents), parsed only when a substring test says it can matter; a line
 * over the parse bound is counted as over budget and skipped. Never throws.
 */
import { EDITS_LIMITS } from '../edits.js';
import type { EditCollector } from './collect.js';
import { isObj, type Obj } from './obj.js';


export function* jsonlRecords(text: string, needles: readonly string[], collector: EditCollector): Generator<{ index: number; value: Obj }> {
  let index = 0;
  let pos = 0;
  while (pos < text.length) {
    let end = text.indexOf('\n', pos);
    if (end === -1) end = text.length;
    const start = pos;
    pos = end + 1;
    const at = index++;
    if (end - start < 2) continue;
    const line = text.slice(start, end);
    if (!needles.some((n) => line.includes(n))) continue;
    if (end - start > EDITS_LIMITS.maxLineBytes) {
      collector.overBudget();
      continue;
    }
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      continue; // a line still being written, or not JSON
    }
    if (isObj(v)) yield { index: at, value: v };
  }
}
