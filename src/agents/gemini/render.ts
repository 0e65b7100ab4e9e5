/** Gemini CLI's transcript as `explain` entries (SPEC §8.9). */
import { cleanPrompt } from '../text.js';
import { isObj, str, toolLine, type TranscriptEntry } from '../entries.js';
import { geminiProjectRoot } from './transcript.js';

type Obj = Record<string, unknown>;

function geminiText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((p) => (typeof p === 'string' ? p : isObj(p) ? str(p['text']) : ''))
      .filter((s) => s !== '')
      .join('\n\n');
  }
  return '';
}

const PATH_ARG_KEYS = ['absolute_path', 'file_path', 'path'] as const;

/** The project root (from `projectHash` and the tool paths), so paths show relative to it. */
function geminiRoot(doc: Obj, messages: unknown[]): string {
  const paths: string[] = [];
  for (const m of messages) {
    if (!isObj(m) || !Array.isArray(m['toolCalls'])) continue;
    for (const c of m['toolCalls']) {
      const args = isObj(c) ? c['args'] : undefined;
      if (!isObj(args)) continue;
      for (const k of PATH_ARG_KEYS) if (typeof args[k] === 'string') paths.push(args[k]);
    }
    if (paths.length >= 20) break;
  }
  return geminiProjectRoot(doc, paths) ?? '';
}

function geminiEntries(doc: Obj, from: number): TranscriptEntry[] {
  const messages = Array.isArray(doc['messages']) ? doc['messages'] : [];
  const root = geminiRoot(doc, messages);
  const out: TranscriptEntry[] = [];
  for (let i = Math.max(0, from); i < messages.length; i++) {
    const m = messages[i];
    if (!isObj(m)) continue;
    if (m['type'] === 'user') {
      const t = cleanPrompt(geminiText(m['content']));
      if (t) out.push({ kind: 'user', text: t });
    } else if (m['type'] === 'gemini') {
      const t = geminiText(m['content']).trim();
      if (t) out.push({ kind: 'assistant', text: t });
      if (Array.isArray(m['toolCalls'])) {
        for (const c of m['toolCalls']) {
          if (isObj(c)) out.push({ kind: 'tool', text: toolLine(str(c['name']), c['args'], root) });
        }
      }
    }
    // info / error messages: not part of the conversation
  }
  return out;
}

/** The Gemini document, or null when `text` is not one. */
function geminiDocument(text: string): Obj | null {
  if (!text.trimStart().startsWith('{')) return null;
  try {
    const v: unknown = JSON.parse(text);
    if (isObj(v) && Array.isArray(v['messages'])) return v;
  } catch {
    /* JSONL whose first line is an object */
  }
  return null;
}

/** Entries of a Gemini transcript from message index `from`. */
export function geminiTranscriptEntries(text: string, from = 0): TranscriptEntry[] {
  const doc = geminiDocument(text);
  return doc ? geminiEntries(doc, from) : [];
}
