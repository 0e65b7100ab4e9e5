/** Claude Code hook stdin → HookEvent (SPEC §7.1, SPEC-2 §B.1). */
import * as z from 'zod/mini';
import { isAgentId } from '../../trust/ids.js';
import { cleanClaudePrompt, taskNotification } from './prompts.js';
import { beginHookInput, invalid, lazySchema, nonEmpty, optModel, optStr, requireSessionId, setCommon, setIf, setModel, setPrompt, str } from '../kit/hook-input.js';
import type { HookEvent } from '../types.js';
import { CLAUDE_VERBS } from './verbs.js';

const schema = lazySchema(() =>
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
    model: optModel(),
  }),
);

export function parseClaudeHookInput(verb: string, stdinText: string): HookEvent {
  const agent = 'claude-code';
  const begun = beginHookInput(agent, CLAUDE_VERBS, verb, stdinText, schema);
  if ('noop' in begun) return begun.noop;
  const { kind, label, input } = begun;
  const sid = nonEmpty(input.session_id);
  // Go: an empty session id on session-end is a no-op.
  if (sid === undefined && kind === 'session-end') return { kind: 'noop', agent, verb, sessionId: '' };
  const ev: HookEvent = { kind, agent, verb, sessionId: requireSessionId(label, sid, 'session_id') };
  setCommon(ev, input.transcript_path, input.cwd);
  if (kind === 'turn-start') {
    setPrompt(ev, input.prompt, cleanClaudePrompt);
    const done = typeof input.prompt === 'string' ? taskNotification(input.prompt) : null;
    if (done && isAgentId(done.taskId)) ev.completes = { agentId: done.taskId, ...(isAgentId(done.toolUseId) ? { toolUseId: done.toolUseId } : {}) };
    else if (done) (ev.refused ??= []).push(`task-notification task-id ${JSON.stringify(done.taskId.slice(0, 80))} is not a valid agent id`);
  }
  if (kind === 'session-start') {
    setIf(ev, 'source', input.source);
    // interactive sessions name their model here (SPEC-2 §B.1)
    setModel(ev, input.model);
  }
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
        const r = resp as Record<string, unknown>;
        if (kind === 'post-task' && (r['status'] === 'async_launched' || r['isAsync'] === true)) ev.backgroundLaunch = true;
        else if (agentId !== undefined) (ev.refused ??= []).push(`tool_response.agentId ${JSON.stringify(agentId.slice(0, 80))} is not a valid agent id`);
      }
    }
  }
  return ev;
}
