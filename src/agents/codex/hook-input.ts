/**
 * Codex hook stdin → HookEvent (SPEC-2 §C.1). Every payload carries
 * `session_id`, `transcript_path` (null for `--ephemeral` runs), `cwd` and
 * `hook_event_name`; UserPromptSubmit adds `prompt`, Stop
 * `last_assistant_message`, SessionStart `source`, SessionEnd `reason`.
 * All but SessionEnd carry `model` too.
 * A verb we do not know is a no-op (SPEC-2 §C.0: unknown verbs exit 0 silently).
 */
import * as z from 'zod/mini';
import { cleanPrompt } from '../kit/text.js';
import { beginHookInput, lazySchema, nonEmpty, optModel, optStr, requireSessionId, setCommon, setIf, setModel, setPrompt } from '../kit/hook-input.js';
import type { HookEvent } from '../types.js';
import { CODEX_VERBS } from './verbs.js';

const schema = lazySchema(() =>
  z.looseObject({
    session_id: optStr(),
    transcript_path: optStr(),
    cwd: optStr(),
    prompt: optStr(),
    last_assistant_message: optStr(),
    source: optStr(),
    reason: optStr(),
    model: optModel(),
  }),
);

export function parseCodexHookInput(verb: string, stdinText: string): HookEvent {
  const agent = 'codex';
  if (!Object.prototype.hasOwnProperty.call(CODEX_VERBS, verb)) return { kind: 'noop', agent, verb, sessionId: '' };
  const begun = beginHookInput(agent, CODEX_VERBS, verb, stdinText, schema);
  if ('noop' in begun) return begun.noop;
  const { kind, label, input } = begun;
  const ev: HookEvent = { kind, agent, verb, sessionId: requireSessionId(label, nonEmpty(input.session_id), 'session_id') };
  setCommon(ev, input.transcript_path, input.cwd);
  // every payload but SessionEnd names the model (SPEC-2 §C.1)
  setModel(ev, input.model);
  if (kind === 'turn-start') setPrompt(ev, input.prompt, cleanPrompt);
  if (kind === 'turn-end') setIf(ev, 'response', input.last_assistant_message);
  if (kind === 'session-start') setIf(ev, 'source', input.source);
  if (kind === 'session-end') setIf(ev, 'reason', input.reason);
  return ev;
}
