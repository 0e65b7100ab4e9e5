/** Hook verbs (`entire hooks cursor <verb>`) and the event each one means. */
import type { HookEventKind } from '../types.js';

export const CURSOR_VERBS: Readonly<Record<string, HookEventKind>> = {
  'session-start': 'session-start',
  'session-end': 'session-end',
  'before-submit-prompt': 'turn-start',
  stop: 'turn-end',
  'pre-compact': 'noop',
  'subagent-start': 'noop',
  'subagent-stop': 'noop',
  'pre-tool-use': 'noop',
  'post-tool-use': 'noop',
};
