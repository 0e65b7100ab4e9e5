/** Cursor hook stdin → HookEvent (SPEC §7.3). */
import * as z from 'zod/mini';
import { beginHookInput, lazySchema, nonEmpty, optStr, requireSessionId, setCommon, setIf, setPrompt } from '../kit/hook-input.js';
import type { HookEvent } from '../types.js';
import { cleanCursorPrompt } from './text.js';
import { CURSOR_VERBS } from './verbs.js';

const schema = lazySchema(() =>
  z.looseObject({
    conversation_id: optStr(),
    session_id: optStr(),
    transcript_path: optStr(),
    workspace_roots: z.optional(z.nullable(z.array(z.string()))),
    prompt: optStr(),
    reason: optStr(),
  }),
);

export function parseCursorHookInput(verb: string, stdinText: string): HookEvent {
  const agent = 'cursor';
  const begun = beginHookInput(agent, CURSOR_VERBS, verb, stdinText, schema);
  if ('noop' in begun) return begun.noop;
  const { kind, label, input } = begun;
  const sid = nonEmpty(input.conversation_id) ?? nonEmpty(input.session_id);
  const ev: HookEvent = { kind, agent, verb, sessionId: requireSessionId(label, sid, 'conversation_id') };
  setCommon(ev, input.transcript_path, input.workspace_roots?.[0]);
  if (kind === 'turn-start') setPrompt(ev, input.prompt, cleanCursorPrompt);
  if (kind === 'session-end') setIf(ev, 'reason', input.reason);
  return ev;
}
