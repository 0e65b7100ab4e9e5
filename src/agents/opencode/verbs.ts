/** Hook verbs (`entire hooks opencode <verb>`, sent by our plugin) and the event each one means (SPEC-2 §C.2). */
import type { HookEventKind } from '../types.js';

export const OPENCODE_VERBS: Readonly<Record<string, HookEventKind>> = {
  'session-start': 'session-start',
  'turn-start': 'turn-start',
  'turn-end': 'turn-end',
  'session-end': 'session-end',
  // the \`task\` tool, around the child session it runs (a subagent: ./subagents.ts)
  'pre-task': 'pre-task',
  'post-task': 'post-task',
  // the context was summarised: the messages stay in the export, nothing to record
  compaction: 'noop',
};
