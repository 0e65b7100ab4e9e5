/**
 * OpenCode hook stdin → HookEvent (SPEC-2 §C.2). Our plugin writes the line:
 * `{session_id}`, and for turn-start also `prompt` and `model`
 * (`providerID/modelID`); pre-task and post-task the `task` tool's call
 * (./subagents.ts). OpenCode names no transcript file: the adapter
 * computes where its export is staged.
 */
import * as z from 'zod/mini';
import { cleanPrompt } from '../kit/text.js';
import { beginHookInput, lazySchema, nonEmpty, optModel, optStr, requireSessionId, setCommon, setModel, setPrompt } from '../kit/hook-input.js';
import type { HookEvent } from '../types.js';
import { OPENCODE_VERBS } from './verbs.js';
import { setTaskFields } from './subagents.js';

const schema = lazySchema(() =>
  z.looseObject({
    session_id: optStr(),
    prompt: optStr(),
    model: optModel(),
    cwd: optStr(),
    tool_use_id: optStr(),
    subagent_id: optStr(),
    tool_input: z.optional(z.nullable(z.record(z.string(), z.unknown()))),
  }),
);

export function parseOpenCodeHookInput(verb: string, stdinText: string): HookEvent {
  const agent = 'opencode';
  const begun = beginHookInput(agent, OPENCODE_VERBS, verb, stdinText, schema);
  if ('noop' in begun) return begun.noop;
  const { kind, label, input } = begun;
  const ev: HookEvent = { kind, agent, verb, sessionId: requireSessionId(label, nonEmpty(input.session_id), 'session_id') };
  if (kind === 'pre-task' || kind === 'post-task') setTaskFields(ev, label, input);
  setCommon(ev, undefined, input.cwd);
  if (kind === 'turn-start') {
    setPrompt(ev, input.prompt, cleanPrompt);
    setModel(ev, input.model);
  }
  return ev;
}
