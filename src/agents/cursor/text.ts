/** Cursor's prompt wrappers (SPEC §7.3). */
import { cleanPrompt } from '../kit/text.js';

const CURSOR_TIMESTAMP_RE = /^\s*<timestamp>[\s\S]*?<\/timestamp>/;
const CURSOR_QUERY_RE = /<user_query>([\s\S]*?)<\/user_query>/g;

/**
 * Cursor: a leading `<timestamp>…</timestamp>` is dropped (only at the start,
 * so pasted timestamps survive) and `<user_query>` wrappers are unwrapped,
 * then the common cleaning applies.
 */
export function cleanCursorPrompt(text: string): string {
  if (text.indexOf('<') === -1) return text.trim();
  return cleanPrompt(text.replace(CURSOR_TIMESTAMP_RE, '').replace(CURSOR_QUERY_RE, '$1'));
}
