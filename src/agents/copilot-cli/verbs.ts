/** Hook verbs (`entire hooks copilot-cli <verb>`) and the event each one means (SPEC-2 §C.3). */
import type { HookEventKind } from '../types.js';

export const COPILOT_VERBS: Readonly<Record<string, HookEventKind>> = {
  'session-start': 'session-start',
  'session-end': 'session-end',
  'user-prompt-submitted': 'turn-start',
  'agent-stop': 'turn-end',
  // events the Go tool may install hooks for: accepted, nothing to do (SPEC-2 §C.0)
  'subagent-stop': 'noop',
  'pre-tool-use': 'noop',
  'post-tool-use': 'noop',
  'error-occurred': 'noop',
};
