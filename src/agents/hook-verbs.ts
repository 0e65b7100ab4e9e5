/** Hook verbs per agent and the event each one means (no dependencies: safe to import anywhere). */
import type { AgentKey, HookEventKind } from './types.js';

/** Verb → event kind, per agent. */
export const HOOK_VERBS: Record<AgentKey, Readonly<Record<string, HookEventKind>>> = {
  'claude-code': {
    'session-start': 'session-start',
    'session-end': 'session-end',
    'user-prompt-submit': 'turn-start',
    stop: 'turn-end',
    'pre-task': 'pre-task',
    'post-task': 'post-task',
    'post-todo': 'post-todo',
    // installed by later Go versions; accepted so their settings never error
    'post-file-edit': 'noop',
  },
  gemini: {
    'session-start': 'session-start',
    'session-end': 'session-end',
    'before-agent': 'turn-start',
    'after-agent': 'turn-end',
    // SPEC §7.2: verbs the Go tool installs, accepted as no-ops
    'before-model': 'noop',
    'after-model': 'noop',
    'before-tool-selection': 'noop',
    'before-tool': 'noop',
    'after-tool': 'noop',
    'pre-compress': 'noop',
    notification: 'noop',
  },
  cursor: {
    'session-start': 'session-start',
    'session-end': 'session-end',
    'before-submit-prompt': 'turn-start',
    stop: 'turn-end',
    'pre-compact': 'noop',
    'subagent-start': 'noop',
    'subagent-stop': 'noop',
    'pre-tool-use': 'noop',
    'post-tool-use': 'noop',
  },
};
