/**
 * Copilot CLI hook stdin → HookEvent (SPEC-2 §C.3). Payloads are camelCase;
 * every one has `sessionId`, `timestamp` (ms) and `cwd`. Only agentStop names
 * the transcript (`transcriptPath`); the others leave it to the computed path.
 * A subagent's prompt and stop hooks name its parent (`parentAgentId`).
 */
import * as z from 'zod/mini';
import { beginHookInput, lazySchema, nonEmpty, optStr, requireSessionId, setCommon, setIf, setPrompt } from '../kit/hook-input.js';
import type { HookEvent } from '../types.js';
import { cleanCopilotPrompt } from './prompts.js';
import { asSubagentHook } from './subagents.js';
import { COPILOT_VERBS } from './verbs.js';

const schema = lazySchema(() =>
  z.looseObject({
    sessionId: optStr(),
    transcriptPath: optStr(),
    cwd: optStr(),
    prompt: optStr(),
    source: optStr(),
    reason: optStr(),
    agentId: optStr(),
    agentType: optStr(),
    parentAgentId: optStr(),
  }),
);

export function parseCopilotHookInput(verb: string, stdinText: string): HookEvent {
  const agent = 'copilot-cli';
  const begun = beginHookInput(agent, COPILOT_VERBS, verb, stdinText, schema);
  if ('noop' in begun) return begun.noop;
  const { kind, label, input } = begun;
  const ev: HookEvent = { kind, agent, verb, sessionId: requireSessionId(label, nonEmpty(input.sessionId), 'sessionId') };
  setCommon(ev, kind === 'turn-end' ? input.transcriptPath : undefined, input.cwd);
  // a subagent's own prompt and stop hooks are its session's task (./subagents.ts)
  if (asSubagentHook(ev, label, input)) return ev;
  if (kind === 'turn-start') setPrompt(ev, input.prompt, cleanCopilotPrompt);
  // `new` | `resume`: only `resume` means anything to the flows (SPEC-2 §B.2)
  if (kind === 'session-start') setIf(ev, 'source', input.source);
  if (kind === 'session-end') setIf(ev, 'reason', input.reason);
  return ev;
}
