/** Hook verbs (`entire hooks claude-code <verb>`) and the event each one means. */
import type { HookEventKind } from '../types.js';

export const CLAUDE_VERBS: Readonly<Record<string, HookEventKind>> = {
  'session-start': 'session-start',
  'session-end': 'session-end',
  'user-prompt-submit': 'turn-start',
  stop: 'turn-end',
  'pre-task': 'pre-task',
  'post-task': 'post-task',
  'post-todo': 'post-todo',
  // installed by later Go versions; accepted so their settings never error
  'post-file-edit': 'noop',
};
