/**
 * Anthropic Messages API, as Claude Code calls it (`POST /v1/messages?beta=true`,
 * streamed as server-sent events; SPEC-2 §G).
 */
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { planReply, type Action, type Conversation, type Plan } from '../scripts.js';
import { inWorkdir, sendJson, sendSse, type Answer, type Dialect, type DialectRequest } from './types.js';

interface Block {
  type?: string;
  text?: string;
}
interface Message {
  role?: string;
  content?: string | Block[];
}
interface MessagesBody {
  model?: string;
  stream?: boolean;
  messages?: Message[];
  system?: string | Block[];
  tools?: { name?: string }[];
}

function textsOf(content: Message['content']): string[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return content.filter((b) => b?.type === 'text' && typeof b.text === 'string').map((b) => b.text!);
}

export function anthropicConversation(body: MessagesBody): Conversation {
  return {
    messages: (body.messages ?? [])
      .filter((m) => m.role === 'user' || m.role === 'assistant')
      .map((m) => ({ role: m.role as 'user' | 'assistant', texts: textsOf(m.content) })),
  };
}

const WORKDIR_RE = /(?:Primary working directory|Working directory):\s*(\/[^\s"\\<]+)/g;

/**
 * The session's working directory, as Claude Code's environment block in the
 * system prompt states it (a resumed conversation's messages may still name
 * the directory the session started in: the system prompt is current).
 */
export function anthropicWorkdir(body: MessagesBody): string | null {
  for (const source of [body.system, body.messages]) {
    const all = [...JSON.stringify(source ?? null).matchAll(WORKDIR_RE)];
    const last = all[all.length - 1]?.[1];
    if (last !== undefined) return last;
  }
  return null;
}

const id = (prefix: string) => prefix + randomBytes(12).toString('hex');

/** The content block (tool_use or text) an action becomes. */
function blockFor(action: Action, workdir: string | null, toolNames: string[]): Record<string, unknown> {
  const tool = (name: string, input: Record<string, unknown>) => ({ type: 'tool_use', id: id('toolu_'), name, input });
  switch (action.kind) {
    case 'write':
      return tool('Write', { file_path: inWorkdir(workdir, action.path), content: action.content });
    case 'shell':
      return tool('Bash', { command: action.command, description: action.description });
    case 'read':
      return tool('Read', { file_path: inWorkdir(workdir, action.path) });
    case 'edit':
      return tool('Edit', { file_path: inWorkdir(workdir, action.path), old_string: action.oldText, new_string: action.newText, replace_all: false });
    case 'task':
      // 2.1.x calls the subagent tool Agent (older: Task)
      return tool(toolNames.includes('Agent') || !toolNames.includes('Task') ? 'Agent' : 'Task', {
        description: action.description,
        prompt: action.prompt,
        subagent_type: 'general-purpose',
        run_in_background: action.background,
      });
    case 'text':
      return { type: 'text', text: action.text };
  }
}

function sendMessage(res: ServerResponse, body: MessagesBody, plan: Plan | null, workdir: string | null, toolNames: string[]): void {
  const block = plan === null ? { type: 'text', text: 'ok' } : blockFor(plan.action, workdir, toolNames);
  const usage = plan?.usage ?? { input: 1, cacheCreation: 0, cacheRead: 0, output: 1 };
  const stopReason = block['type'] === 'tool_use' ? 'tool_use' : 'end_turn';
  const model = body.model ?? 'claude-scripted';
  const msgId = id('msg_');
  const fullUsage = {
    input_tokens: usage.input,
    cache_creation_input_tokens: usage.cacheCreation,
    cache_read_input_tokens: usage.cacheRead,
    output_tokens: usage.output,
  };
  if (body.stream !== true) {
    sendJson(res, 200, {
      id: msgId,
      type: 'message',
      role: 'assistant',
      model,
      content: [block],
      stop_reason: stopReason,
      stop_sequence: null,
      usage: fullUsage,
    });
    return;
  }
  const start =
    block['type'] === 'tool_use'
      ? { type: 'tool_use', id: block['id'], name: block['name'], input: {} }
      : { type: 'text', text: '' };
  const delta =
    block['type'] === 'tool_use'
      ? { type: 'input_json_delta', partial_json: JSON.stringify(block['input']) }
      : { type: 'text_delta', text: block['text'] };
  sendSse(res, [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: {
          id: msgId,
          type: 'message',
          role: 'assistant',
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...fullUsage, output_tokens: 1 },
        },
      },
    },
    { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: start } },
    { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta } },
    { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
    {
      event: 'message_delta',
      data: { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output } },
    },
    { event: 'message_stop', data: { type: 'message_stop' } },
  ]);
}

export const anthropicDialect: Dialect = {
  name: 'anthropic',
  handle(req: DialectRequest, res: ServerResponse): Answer | null {
    const path = req.url.split('?')[0];
    if (req.method === 'POST' && path === '/v1/messages/count_tokens') {
      sendJson(res, 200, { input_tokens: 100 });
      return { route: 'count_tokens' };
    }
    if (req.method !== 'POST' || path !== '/v1/messages') return null;
    const body = (req.body ?? {}) as MessagesBody;
    const conversation = anthropicConversation(body);
    const tools = (body.tools ?? []).map((t) => t.name ?? '?');
    // side requests (titles, summaries) declare no tools: never script them
    const plan = tools.length > 0 ? planReply(conversation) : null;
    sendMessage(res, body, plan, anthropicWorkdir(body), tools);
    return { route: 'messages', conversation, plan, tools };
  },
};
