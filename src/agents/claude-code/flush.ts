/**
 * Claude Code's turn end on disk (SPEC-2 §B.4): no marker line precedes the
 * Stop hook any more, but its payload carries `last_assistant_message`. The
 * transcript is flushed when the text of its last `assistant` line equals it.
 */
import { answerProbe, linesFromEnd, type FlushProbe } from '../kit/flush.js';

/** The text blocks of the last top-level `assistant` line in `tail` (undefined: none readable). */
export function lastAssistantText(tail: string, startsAtFileStart: boolean): string | undefined {
  for (const line of linesFromEnd(tail, startsAtFileStart)) {
    if (line.indexOf('"assistant"') === -1) continue;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      continue; // a line still being written
    }
    if (v === null || typeof v !== 'object' || (v as { type?: unknown }).type !== 'assistant') continue;
    const content = (v as { message?: { content?: unknown } }).message?.content;
    if (typeof content === 'string') return content;
    if (!Array.isArray(content)) return '';
    return content
      .filter((b): b is { type: string; text: string } => b !== null && typeof b === 'object' && b.type === 'text' && typeof b.text === 'string')
      .map((b) => b.text)
      .join('\n');
  }
  return undefined;
}

export function claudeFlushProbe(response: string | undefined): (path: string) => FlushProbe {
  return answerProbe(response, lastAssistantText);
}
