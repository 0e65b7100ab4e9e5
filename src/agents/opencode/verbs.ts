/** Hook verbs (`entire hooks opencode <verb>`, sent by our plugin) and the event each one means (SPEC-2 §C.2). */
import type { HookEventKind } from '../types.js';

export const OPENCODE_VERBS: Readonly<Record<string, HookEventKind>> = {
  'session-start': 'session-start',
  'turn-start': 'turn-start',
  'turn-end': 'turn-end',
  'session-end': 'session-end',
  // the context was summarised: the messages stay in the export, nothing to record
  compaction: 'noop',
};
