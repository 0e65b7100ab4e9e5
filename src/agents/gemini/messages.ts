/**
 * One Gemini CLI message record, as both session forms carry it:
 * `{id, type: user|gemini|info|error, content, toolCalls?, tokens?}`, with
 * `content` a string or a list of parts (`{text}`, `{functionResponse}`, …).
 */
import { cleanPrompt } from '../kit/text.js';
import { isObj, type Obj } from '../kit/obj.js';


/** Tools whose calls write a file (SPEC §7.2), and the argument keys naming it, in preference order. */
export const GEMINI_EDIT_TOOLS: ReadonlySet<string> = new Set(['write_file', 'edit_file', 'save_file', 'replace']);
const PATH_KEYS = ['file_path', 'path', 'filename'] as const;

/** `content` as text: a string, or the `text` of each part joined with a blank line. */
export function geminiContentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    const parts: string[] = [];
    for (const p of content) {
      if (typeof p === 'string') parts.push(p);
      else if (isObj(p) && typeof p['text'] === 'string') parts.push(p['text']);
    }
    return parts.join('\n\n');
  }
  return '';
}

/** Content made only of tool results (`functionResponse` parts): what a tool said, not the user. */
function onlyFunctionResponses(content: unknown): boolean {
  return Array.isArray(content) && content.length > 0 && content.every((p) => isObj(p) && 'functionResponse' in p);
}

/**
 * The prompt a `user` message carries, `""` when it is none. The JSONL form
 * (SPEC-2 §B.7) also writes the CLI's own context (`<session_context>`), tool
 * results as `user` records and, on resume, synthetic `<id>_response`
 * messages: none of them is something the user typed. Legacy documents keep
 * v1's rule (any non-empty cleaned text).
 */
export function userPrompt(m: Obj, form: 'jsonl' | 'document'): string {
  if (m['type'] !== 'user') return '';
  if (form === 'jsonl') {
    const id = m['id'];
    if (typeof id === 'string' && id.endsWith('_response')) return '';
    if (onlyFunctionResponses(m['content'])) return '';
  }
  const text = geminiContentText(m['content']);
  if (form === 'jsonl' && text.trimStart().startsWith('<session_context>')) return '';
  return cleanPrompt(text);
}

/** The file a tool call edits (as written, usually absolute), else undefined. */
export function editedPath(call: unknown): string | undefined {
  if (!isObj(call) || typeof call['name'] !== 'string' || !GEMINI_EDIT_TOOLS.has(call['name'])) return undefined;
  const args = call['args'];
  if (!isObj(args)) return undefined;
  for (const k of PATH_KEYS) {
    const p = args[k];
    if (typeof p === 'string' && p !== '') return p;
  }
  return undefined;
}

/** A `gemini` message's tool calls ([] when none). */
export function toolCalls(m: Obj): unknown[] {
  return Array.isArray(m['toolCalls']) ? m['toolCalls'] : [];
}
