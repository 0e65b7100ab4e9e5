/**
 * OpenAI Responses API, as Codex CLI calls it (`POST /v1/responses`, streamed
 * as server-sent events; SPEC-2 §G). The request's `input` is the whole
 * conversation: messages, and the model's earlier tool calls as items of
 * their own (each counts as one assistant turn for the scripts). Codex's
 * file tool is `apply_patch` (a freeform `custom` tool), its shell
 * `exec_command` (`{cmd}`); paths in patches are relative to its cwd.
 */
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { planReply, type Action, type Conversation, type Plan } from '../scripts.js';
import { sendJson, sendSse, type Answer, type Dialect, type DialectRequest } from './types.js';

interface Item {
  type?: string;
  role?: string;
  content?: string | { type?: string; text?: string }[];
}
interface ResponsesBody {
  model?: string;
  stream?: boolean;
  input?: string | Item[];
  tools?: { type?: string; name?: string }[];
}

const ASSISTANT_ITEMS = new Set(['function_call', 'custom_tool_call', 'local_shell_call']);

function textsOf(content: Item['content']): string[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return content.filter((c) => typeof c?.text === 'string').map((c) => c.text!);
}

export function responsesConversation(body: ResponsesBody): Conversation {
  if (typeof body.input === 'string') return { messages: [{ role: 'user', texts: [body.input] }] };
  const messages: Conversation['messages'] = [];
  for (const item of body.input ?? []) {
    const type = item.type ?? 'message';
    if (type === 'message' && (item.role === 'user' || item.role === 'assistant')) messages.push({ role: item.role, texts: textsOf(item.content) });
    else if (ASSISTANT_ITEMS.has(type)) messages.push({ role: 'assistant', texts: [] });
  }
  return { messages };
}

const id = (prefix: string) => prefix + randomBytes(12).toString('hex');

/** An apply_patch body; every line of `oldText` replaced by `newText`'s (no context needed). */
function patch(header: string, lines: string[]): string {
  return ['*** Begin Patch', header, ...lines, '*** End Patch', ''].join('\n');
}
const linesOf = (text: string) => text.replace(/\n$/, '').split('\n');

/** The output item an action becomes. */
function itemFor(action: Action, toolNames: string[]): Record<string, unknown> {
  const shellName = toolNames.includes('exec_command') || !toolNames.includes('shell') ? 'exec_command' : 'shell';
  const shell = (cmd: string) => ({
    type: 'function_call',
    id: id('fc_'),
    call_id: id('call_'),
    name: shellName,
    arguments: JSON.stringify(shellName === 'exec_command' ? { cmd, yield_time_ms: 10000 } : { command: ['bash', '-lc', cmd] }),
    status: 'completed',
  });
  const applyPatch = (input: string) => ({ type: 'custom_tool_call', id: id('ctc_'), call_id: id('call_'), name: 'apply_patch', input, status: 'completed' });
  switch (action.kind) {
    case 'write':
      return applyPatch(patch(`*** Add File: ${action.path}`, linesOf(action.content).map((l) => `+${l}`)));
    case 'edit':
      return applyPatch(patch(`*** Update File: ${action.path}`, ['@@', ...linesOf(action.oldText).map((l) => `-${l}`), ...linesOf(action.newText).map((l) => `+${l}`)]));
    case 'shell':
      return shell(action.command);
    case 'read':
      return shell(`cat ${action.path}`);
    case 'task':
      // Codex's subagents are not scripted here
      return textItem(`(no subagent tool: ${action.description})`);
    case 'text':
      return textItem(action.text);
  }
}

function textItem(text: string): Record<string, unknown> {
  return { type: 'message', id: id('msg_'), role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] };
}

function sendResponse(res: ServerResponse, body: ResponsesBody, plan: Plan | null, toolNames: string[]): void {
  const item = plan === null ? textItem('ok') : itemFor(plan.action, toolNames);
  const u = plan?.usage ?? { input: 1, cacheCreation: 0, cacheRead: 0, output: 1 };
  // OpenAI counts cached tokens inside input_tokens
  const usage = {
    input_tokens: u.input + u.cacheRead,
    input_tokens_details: { cached_tokens: u.cacheRead },
    output_tokens: u.output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: u.input + u.cacheRead + u.output,
  };
  const respId = id('resp_');
  const model = body.model ?? 'gpt-scripted';
  const base = { id: respId, object: 'response', created_at: Math.floor(Date.now() / 1000), model, status: 'in_progress', output: [] as unknown[] };
  const done = { ...base, status: 'completed', output: [item], usage };
  if (body.stream === false) {
    sendJson(res, 200, done);
    return;
  }
  const events: { event: string; data: Record<string, unknown> }[] = [
    { event: 'response.created', data: { type: 'response.created', response: base } },
    { event: 'response.output_item.added', data: { type: 'response.output_item.added', output_index: 0, item: { ...item, status: 'in_progress' } } },
  ];
  if (item['type'] === 'message') {
    const text = (item['content'] as { text: string }[])[0]!.text;
    events.push({ event: 'response.output_text.delta', data: { type: 'response.output_text.delta', item_id: item['id'], output_index: 0, content_index: 0, delta: text } });
  }
  events.push(
    { event: 'response.output_item.done', data: { type: 'response.output_item.done', output_index: 0, item } },
    { event: 'response.completed', data: { type: 'response.completed', response: done } },
  );
  sendSse(res, events);
}

export const openaiResponsesDialect: Dialect = {
  name: 'openai-responses',
  handle(req: DialectRequest, res: ServerResponse): Answer | null {
    const path = req.url.split('?')[0];
    if (req.method !== 'POST' || path !== '/v1/responses') return null;
    const body = (req.body ?? {}) as ResponsesBody;
    const conversation = responsesConversation(body);
    const tools = (body.tools ?? []).map((t) => t.name ?? t.type ?? '?');
    const plan = tools.length > 0 ? planReply(conversation) : null;
    sendResponse(res, body, plan, tools);
    return { route: 'responses', conversation, plan, tools };
  },
};
