/**
 * Agent hook stdin → normalised HookEvent (SPEC §7). Validation uses
 * zod/mini (small, tree-shakeable); only fields we use are checked and
 * unknown fields are allowed, since agents add fields between versions.
 */
import * as z from 'zod/mini';
import { EntireError } from '../errors.js';
import { cleanCursorPrompt, cleanPrompt } from './text.js';
import { HOOK_VERBS } from './hook-verbs.js';
import { isAgentId, sessionIdProblem } from '../trust/ids.js';
import type { AgentKey, HookEvent } from './types.js';

export { HOOK_VERBS };

// Schemas are built on first use: a hook process needs one of them.
const optStr = () => z.optional(z.nullable(z.string()));

const SCHEMAS = {
  claude: () =>
    z.looseObject({
      session_id: optStr(),
      transcript_path: optStr(),
      cwd: optStr(),
      prompt: optStr(),
      tool_name: optStr(),
      tool_use_id: optStr(),
      tool_input: z.optional(z.nullable(z.record(z.string(), z.unknown()))),
      tool_response: z.optional(z.unknown()),
      source: optStr(),
      reason: optStr(),
      last_assistant_message: optStr(),
    }),
  gemini: () =>
    z.looseObject({
      session_id: optStr(),
      transcript_path: optStr(),
      cwd: optStr(),
      prompt: optStr(),
      prompt_response: optStr(),
      source: optStr(),
      reason: optStr(),
    }),
  cursor: () =>
    z.looseObject({
      conversation_id: optStr(),
      session_id: optStr(),
      transcript_path: optStr(),
      workspace_roots: z.optional(z.nullable(z.array(z.string()))),
      prompt: optStr(),
      reason: optStr(),
    }),
};
type Schemas = { [K in keyof typeof SCHEMAS]: ReturnType<(typeof SCHEMAS)[K]> };
const built: Partial<Schemas> = {};

function schema<K extends keyof Schemas>(key: K): Schemas[K] {
  return (built[key] ??= SCHEMAS[key]() as Schemas[K]);
}


function invalid(message: string, detail?: Record<string, unknown>): EntireError {
  return new EntireError('INVALID_INPUT', message, detail ? { detail } : undefined);
}

function nonEmpty(v: string | null | undefined): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function parseJsonObject(label: string, stdinText: string): unknown {
  if (stdinText.trim() === '') throw invalid(`${label}: empty hook input on stdin (expected a JSON object)`);
  let v: unknown;
  try {
    v = JSON.parse(stdinText);
  } catch {
    throw invalid(`${label}: hook input on stdin is not valid JSON`);
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    throw invalid(`${label}: hook input on stdin must be a JSON object`);
  }
  return v;
}

function validated<T>(label: string, schema: z.ZodMiniType<T>, value: unknown): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issues = r.error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`).join('; ');
  throw invalid(`${label}: invalid hook input (${issues})`);
}

function requireSessionId(label: string, sid: string | undefined, field: string): string {
  if (sid === undefined) throw invalid(`${label}: hook input has no ${field}`);
  const problem = sessionIdProblem(sid);
  if (problem !== null) throw invalid(`${label}: invalid ${field} ${JSON.stringify(sid.slice(0, 80))} (${problem})`, { field });
  return sid;
}

function str(obj: Record<string, unknown> | undefined, key: string): string | undefined {
  const v = obj?.[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/**
 * Parse one hook invocation's stdin. Throws EntireError INVALID_USAGE for an
 * unknown verb and INVALID_INPUT for empty/non-JSON/invalid input or a
 * missing session id. No-op verbs do not look at stdin at all.
 */
export function parseHookInput(agent: AgentKey, verb: string, stdinText: string): HookEvent {
  const verbs = HOOK_VERBS[agent];
  if (verbs === undefined) throw new EntireError('UNKNOWN_AGENT', `Unknown agent "${String(agent)}".`);
  const kind = Object.prototype.hasOwnProperty.call(verbs, verb) ? verbs[verb] : undefined;
  if (kind === undefined) {
    throw new EntireError('INVALID_USAGE', `unknown hook "${verb}" for agent ${agent}`, { detail: { agent, verb } });
  }
  if (kind === 'noop') return { kind, agent, verb, sessionId: '' };
  const label = `hooks ${agent} ${verb}`;
  const raw = parseJsonObject(label, stdinText);

  if (agent === 'claude-code') {
    const input = validated(label, schema('claude'), raw);
    const sid = nonEmpty(input.session_id);
    // Go: an empty session id on session-end is a no-op.
    if (sid === undefined && kind === 'session-end') return { kind: 'noop', agent, verb, sessionId: '' };
    const ev: HookEvent = { kind, agent, verb, sessionId: requireSessionId(label, sid, 'session_id') };
    setCommon(ev, input.transcript_path, input.cwd);
    if (kind === 'turn-start') setPrompt(ev, input.prompt, cleanPrompt);
    if (kind === 'session-start') setIf(ev, 'source', input.source);
    if (kind === 'session-end') setIf(ev, 'reason', input.reason);
    if (kind === 'turn-end') setIf(ev, 'response', input.last_assistant_message);
    if (kind === 'pre-task' || kind === 'post-task' || kind === 'post-todo') {
      const toolUseId = nonEmpty(input.tool_use_id);
      if (toolUseId !== undefined && !isAgentId(toolUseId)) {
        throw invalid(`${label}: invalid tool_use_id ${JSON.stringify(toolUseId.slice(0, 80))}`);
      }
      if (toolUseId === undefined && kind !== 'post-todo') throw invalid(`${label}: hook input has no tool_use_id`);
      setIf(ev, 'toolUseId', toolUseId);
      setIf(ev, 'toolName', input.tool_name);
      const toolInput = input.tool_input ?? undefined;
      if (toolInput) {
        ev.toolInput = toolInput;
        setIf(ev, 'subagentType', str(toolInput, 'subagent_type'));
        setIf(ev, 'taskDescription', str(toolInput, 'description'));
        if (Array.isArray(toolInput['todos'])) ev.todos = toolInput['todos'] as unknown[];
      }
      if (input.tool_response !== undefined) {
        ev.toolResponse = input.tool_response;
        const resp = input.tool_response;
        if (resp !== null && typeof resp === 'object' && !Array.isArray(resp)) {
          const agentId = str(resp as Record<string, unknown>, 'agentId');
          // an agentId names a transcript file and a tree entry: invalid → absent (SPEC-2 §A.2)
          if (agentId !== undefined && isAgentId(agentId)) ev.subagentId = agentId;
          else if (agentId !== undefined) (ev.refused ??= []).push(`tool_response.agentId ${JSON.stringify(agentId.slice(0, 80))} is not a valid agent id`);
        }
      }
    }
    return ev;
  }

  if (agent === 'gemini') {
    const input = validated(label, schema('gemini'), raw);
    const ev: HookEvent = { kind, agent, verb, sessionId: requireSessionId(label, nonEmpty(input.session_id), 'session_id') };
    setCommon(ev, input.transcript_path, input.cwd);
    if (kind === 'turn-start') setPrompt(ev, input.prompt, cleanPrompt);
    if (kind === 'turn-end') setIf(ev, 'response', input.prompt_response);
    if (kind === 'session-start') setIf(ev, 'source', input.source);
    if (kind === 'session-end') setIf(ev, 'reason', input.reason);
    return ev;
  }

  const input = validated(label, schema('cursor'), raw);
  const sid = nonEmpty(input.conversation_id) ?? nonEmpty(input.session_id);
  const ev: HookEvent = { kind, agent, verb, sessionId: requireSessionId(label, sid, 'conversation_id') };
  setCommon(ev, input.transcript_path, input.workspace_roots?.[0]);
  if (kind === 'turn-start') setPrompt(ev, input.prompt, cleanCursorPrompt);
  if (kind === 'session-end') setIf(ev, 'reason', input.reason);
  return ev;
}

function setIf<K extends keyof HookEvent>(ev: HookEvent, key: K, value: string | null | undefined): void {
  if (typeof value === 'string' && value !== '') (ev as unknown as Record<string, unknown>)[key] = value;
}

function setCommon(ev: HookEvent, transcriptPath: string | null | undefined, cwd: string | null | undefined): void {
  setIf(ev, 'transcriptPath', transcriptPath);
  setIf(ev, 'cwd', cwd);
}

function setPrompt(ev: HookEvent, prompt: string | null | undefined, clean: (s: string) => string): void {
  if (typeof prompt !== 'string') return;
  ev.rawPrompt = prompt;
  ev.prompt = clean(prompt);
}
