/** Gemini CLI hook stdin → HookEvent (SPEC §7.2, SPEC-2 §B.6). */
import * as z from 'zod/mini';
import { cleanPrompt } from '../kit/text.js';
import { beginHookInput, lazySchema, nonEmpty, optStr, requireSessionId, setCommon, setIf, setPrompt } from '../kit/hook-input.js';
import type { HookEvent } from '../types.js';
import { GEMINI_VERBS } from './verbs.js';

const schema = lazySchema(() =>
  z.looseObject({
    session_id: optStr(),
    transcript_path: optStr(),
    cwd: optStr(),
    prompt: optStr(),
    prompt_response: optStr(),
    source: optStr(),
    reason: optStr(),
  }),
);

export function parseGeminiHookInput(verb: string, stdinText: string): HookEvent {
  const agent = 'gemini';
  const begun = beginHookInput(agent, GEMINI_VERBS, verb, stdinText, schema);
  if ('noop' in begun) return begun.noop;
  const { kind, label, input } = begun;
  const ev: HookEvent = { kind, agent, verb, sessionId: requireSessionId(label, nonEmpty(input.session_id), 'session_id') };
  // SPEC-2 §B.6: on `--resume`, SessionStart names a new stray file (start-up context only)
  // while every later hook names the session's real, growing file: only those are taken
  setCommon(ev, kind === 'session-start' ? undefined : input.transcript_path, input.cwd);
  if (kind === 'turn-start') setPrompt(ev, input.prompt, cleanPrompt);
  if (kind === 'turn-end') setIf(ev, 'response', input.prompt_response);
  if (kind === 'session-start') setIf(ev, 'source', input.source);
  if (kind === 'session-end') setIf(ev, 'reason', input.reason);
  return ev;
}
