/**
 * A Gemini CLI session as `explain` entries (SPEC §8.9): the JSONL thread
 * (or a legacy document's messages) from an offset in the form's unit.
 */
import { str, toolLine, type TranscriptEntry } from '../kit/entries.js';
import type { TranscriptFormat } from '../types.js';
import { geminiContentText, toolCalls, userPrompt } from './messages.js';
import { isObj } from '../kit/obj.js';
import { geminiProjectRoot, parseGeminiSession } from './transcript.js';

const PATH_ARG_KEYS = ['absolute_path', 'file_path', 'path'] as const;

/** The project root (from `projectHash` and the tool paths), so paths show relative to it. */
function rootOf(meta: Record<string, unknown>, records: readonly Record<string, unknown>[]): string {
  const paths: string[] = [];
  for (const m of records) {
    for (const c of toolCalls(m)) {
      const args = isObj(c) ? c['args'] : undefined;
      if (!isObj(args)) continue;
      for (const k of PATH_ARG_KEYS) if (typeof args[k] === 'string') paths.push(args[k]);
    }
    if (paths.length >= 20) break;
  }
  return geminiProjectRoot(meta, paths) ?? '';
}

/** Entries of a stored Gemini session from offset `from` (`format` says the form: `json` is a legacy document). */
export function geminiTranscriptEntries(text: string, format: TranscriptFormat, from = 0): TranscriptEntry[] {
  let session;
  try {
    session = parseGeminiSession(text, format === 'json' ? 'document' : 'jsonl');
  } catch {
    return []; // not a document after all
  }
  const shown = session.messages.filter((m) => m.at >= Math.max(0, from)).map((m) => m.value);
  const root = rootOf(session.meta, shown);
  const out: TranscriptEntry[] = [];
  for (const m of shown) {
    if (m['type'] === 'user') {
      const t = userPrompt(m, session.form);
      if (t) out.push({ kind: 'user', text: t });
    } else if (m['type'] === 'gemini') {
      const t = geminiContentText(m['content']).trim();
      if (t) out.push({ kind: 'assistant', text: t });
      for (const c of toolCalls(m)) if (isObj(c)) out.push({ kind: 'tool', text: toolLine(str(c['name']), c['args'], root) });
    }
    // info / error messages: not part of the conversation
  }
  return out;
}
