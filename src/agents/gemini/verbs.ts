/** Hook verbs (`entire hooks gemini <verb>`) and the event each one means. */
import type { HookEventKind } from '../types.js';

export const GEMINI_VERBS: Readonly<Record<string, HookEventKind>> = {
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
};
