/** Hook verbs (`entire hooks codex <verb>`) and the event each one means (SPEC-2 §C.0, §C.1). */
import type { HookEventKind } from '../types.js';

export const CODEX_VERBS: Readonly<Record<string, HookEventKind>> = {
  'session-start': 'session-start',
  'user-prompt-submit': 'turn-start',
  stop: 'turn-end',
  'session-end': 'session-end',
  // Codex's other events (its 12 hook-input schemas), accepted should a settings file name them
  'pre-tool-use': 'noop',
  'post-tool-use': 'noop',
  'permission-request': 'noop',
  'pre-compact': 'noop',
  'post-compact': 'noop',
  interrupt: 'noop',
  'subagent-start': 'noop',
  'subagent-stop': 'noop',
};
