/**
 * What the user said, in Copilot CLI's words (SPEC-2 §C.3): a `user.message`
 * record's `content`; else its `transformedContent` without the context the
 * CLI adds (`<current_datetime>…</current_datetime>`, `<reminder>…</reminder>`).
 */
import { cleanPrompt } from '../kit/text.js';

const ADDED_CONTEXT_RE = /<(current_datetime|reminder)(?:\s[^>]*)?>[\s\S]*?<\/\1\s*>/g;

export function cleanCopilotPrompt(text: string): string {
  if (text.indexOf('<') === -1) return text.trim();
  return cleanPrompt(text.replace(ADDED_CONTEXT_RE, ''));
}

type Obj = Record<string, unknown>;

/** The prompt of a `user.message` record's `data` (`""`: none). */
export function userMessagePrompt(data: Obj): string {
  const content = data['content'];
  if (typeof content === 'string' && content.trim() !== '') return cleanCopilotPrompt(content);
  const transformed = data['transformedContent'];
  return typeof transformed === 'string' ? cleanCopilotPrompt(transformed) : '';
}
