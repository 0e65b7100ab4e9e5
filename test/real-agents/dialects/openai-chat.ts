/**
 * OpenAI chat completions, as OpenAI-compatible clients call it
 * (`POST /v1/chat/completions`, streamed as server-sent events ending in
 * `data: [DONE]`; SPEC-2 §G: OpenCode's `@ai-sdk/openai-compatible` provider,
 * Copilot CLI's `COPILOT_PROVIDER_BASE_URL`).
 *
 * Agent-neutral: a scripted action becomes a call of the tool the request
 * declares for it (by name, from a list of the names agents use), with the
 * argument names that tool's JSON schema declares (`filePath`, `file_path` or
 * `path`, …). A driver whose agent needs something else passes `toolCall`.
 * Requests without tools (titles, summaries) get a short plain answer.
 */
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { planReply, type Action, type Conversation, type Plan, type Usage } from '../scripts.js';
import { inWorkdir, sendJson, type Answer, type Dialect, type DialectRequest } from './types.js';

interface ContentPart {
  type?: string;
  text?: string;
}
interface ChatMessage {
  role?: string;
  content?: string | ContentPart[] | null;
  tool_calls?: unknown[];
}
/** A declared tool: `{type:"function", function:{name, parameters}}`. */
interface ToolDecl {
  type?: string;
  function?: { name?: string; parameters?: { properties?: Record<string, unknown>; required?: string[] } };
}
interface ChatBody {
  model?: string;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  messages?: ChatMessage[];
  tools?: ToolDecl[];
}

/** A tool call in chat-completions terms. */
export interface ChatToolCall {
  name: string;
  args: Record<string, unknown>;
}

export interface OpenAiChatOptions {
  /** Overrides the mapping of an action to a tool call (return undefined to keep the default). */
  toolCall?: (action: Action, tools: ToolDecl[], workdir: string | null) => ChatToolCall | undefined;
  /** The text of a request that declares no tools (session titles). */
  sideAnswer?: string;
  /** Model ids `GET /v1/models` lists. */
  models?: string[];
}

function textsOf(content: ChatMessage['content']): string[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  return content.filter((p) => (p?.type === 'text' || p?.type === 'input_text') && typeof p.text === 'string').map((p) => p.text!);
}

/** user and assistant messages (tool results, role `tool`, are neither: the scripts count assistant messages). */
export function chatConversation(body: ChatBody): Conversation {
  return {
    messages: (body.messages ?? [])
      .filter((m) => m.role === 'user' || m.role === 'assistant')
      .map((m) => ({ role: m.role as 'user' | 'assistant', texts: textsOf(m.content) })),
  };
}

const WORKDIR_RE = /(?:working directory|current directory|cwd)\s*(?:is)?\s*[:=]?\s*[`"']?(\/[^\s"'`<>\\]+)/gi;

/** The working directory the system prompt (else any message) names; the last mention wins. */
export function chatWorkdir(body: ChatBody): string | null {
  const system = (body.messages ?? []).filter((m) => m.role === 'system' || m.role === 'developer');
  for (const source of [system, body.messages ?? []]) {
    const text = source.flatMap((m) => textsOf(m.content)).join('\n');
    const all = [...text.matchAll(WORKDIR_RE)];
    const last = all[all.length - 1]?.[1];
    if (last !== undefined) return last.replace(/[.,;:)]+$/, '');
  }
  return null;
}

/** Tool names agents give each action, in preference order. */
const TOOL_NAMES: Record<Exclude<Action['kind'], 'text'>, string[]> = {
  write: ['write', 'create', 'write_file', 'Write'],
  shell: ['bash', 'shell', 'run_shell_command', 'Bash'],
  read: ['read', 'view', 'read_file', 'Read'],
  edit: ['edit', 'str_replace', 'str_replace_editor', 'replace', 'Edit'],
  task: ['task', 'Task', 'agent', 'Agent'],
};

/** Argument names for one value, in preference order. */
const ARG_NAMES = {
  path: ['filePath', 'file_path', 'path', 'filename'],
  content: ['content', 'file_text', 'text'],
  command: ['command', 'cmd'],
  description: ['description'],
  oldText: ['oldString', 'old_string', 'old_str'],
  newText: ['newString', 'new_string', 'new_str'],
  prompt: ['prompt'],
  subagentType: ['subagent_type', 'subagentType', 'agent_type'],
  background: ['run_in_background', 'background'],
} as const;

function declaredTool(tools: ToolDecl[], names: string[]): ToolDecl | undefined {
  for (const n of names) {
    const t = tools.find((x) => x.function?.name === n);
    if (t) return t;
  }
  return undefined;
}

/** `values` keyed by the names the tool declares (the first choice when it declares no schema). */
function argsFor(tool: ToolDecl | undefined, values: Partial<Record<keyof typeof ARG_NAMES, unknown>>): Record<string, unknown> {
  const props = tool?.function?.parameters?.properties;
  const declared = props ? Object.keys(props) : null;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) {
    if (value === undefined) continue;
    const names = ARG_NAMES[key as keyof typeof ARG_NAMES];
    const name = declared === null ? names[0] : names.find((n) => declared.includes(n));
    if (name !== undefined) out[name] = value;
  }
  return out;
}

/** The default mapping: the declared tool for the action's kind, with its own argument names. */
export function defaultToolCall(action: Exclude<Action, { kind: 'text' }>, tools: ToolDecl[], workdir: string | null): ChatToolCall {
  const tool = declaredTool(tools, TOOL_NAMES[action.kind]);
  const name = tool?.function?.name ?? TOOL_NAMES[action.kind][0]!;
  switch (action.kind) {
    case 'write':
      return { name, args: argsFor(tool, { path: inWorkdir(workdir, action.path), content: action.content }) };
    case 'shell':
      return { name, args: argsFor(tool, { command: action.command, description: action.description }) };
    case 'read':
      return { name, args: argsFor(tool, { path: inWorkdir(workdir, action.path) }) };
    case 'edit':
      return { name, args: argsFor(tool, { path: inWorkdir(workdir, action.path), oldText: action.oldText, newText: action.newText }) };
    case 'task':
      return {
        name,
        args: argsFor(tool, { description: action.description, prompt: action.prompt, subagentType: 'general', background: action.background || undefined }),
      };
  }
}

const id = (prefix: string) => prefix + randomBytes(12).toString('hex');

/** OpenAI's usage: `prompt_tokens` includes the cached ones (cache writes have no field of their own). */
export function chatUsage(u: Usage): Record<string, unknown> {
  const prompt = u.input + u.cacheCreation + u.cacheRead;
  return {
    prompt_tokens: prompt,
    completion_tokens: u.output,
    total_tokens: prompt + u.output,
    prompt_tokens_details: { cached_tokens: u.cacheRead },
    completion_tokens_details: { reasoning_tokens: 0 },
  };
}

function writeSse(res: ServerResponse, chunks: unknown[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'close' });
  for (const c of chunks) res.write(`data: ${JSON.stringify(c)}\n\n`);
  res.write('data: [DONE]\n\n');
  res.end();
}

function sendCompletion(res: ServerResponse, body: ChatBody, plan: Plan | null, call: ChatToolCall | null, text: string): void {
  const model = body.model ?? 'scripted-model';
  const completionId = id('chatcmpl-');
  const created = Math.floor(Date.now() / 1000);
  const usage = chatUsage(plan?.usage ?? { input: 1, cacheCreation: 0, cacheRead: 0, output: 1 });
  const toolCall = call ? { id: id('call_'), type: 'function', function: { name: call.name, arguments: JSON.stringify(call.args) } } : null;
  const finish = toolCall ? 'tool_calls' : 'stop';
  if (body.stream !== true) {
    const message = toolCall ? { role: 'assistant', content: null, tool_calls: [toolCall] } : { role: 'assistant', content: text };
    sendJson(res, 200, { id: completionId, object: 'chat.completion', created, model, choices: [{ index: 0, message, finish_reason: finish }], usage });
    return;
  }
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({ id: completionId, object: 'chat.completion.chunk', created, model, choices, ...extra });
  const delta = toolCall ? { role: 'assistant', content: null, tool_calls: [{ index: 0, ...toolCall }] } : { role: 'assistant', content: text };
  writeSse(res, [
    chunk([{ index: 0, delta, finish_reason: null }]),
    chunk([{ index: 0, delta: {}, finish_reason: finish }]),
    // the usage comes last, in a chunk without choices (`stream_options.include_usage`)
    chunk([], { usage }),
  ]);
}

export function openAiChatDialect(options: OpenAiChatOptions = {}): Dialect {
  return {
    name: 'openai-chat',
    handle(req: DialectRequest, res: ServerResponse): Answer | null {
      const path = req.url.split('?')[0]!.replace(/\/+$/, '');
      if (req.method === 'GET' && /^(?:\/v1)?\/models$/.test(path)) {
        const ids = options.models ?? ['local-model', 'gpt-4.1'];
        sendJson(res, 200, { object: 'list', data: ids.map((m) => ({ id: m, object: 'model', created: 0, owned_by: 'scripted' })) });
        return { route: 'models' };
      }
      if (req.method !== 'POST' || !/^(?:\/v1)?\/chat\/completions$/.test(path)) return null;
      const body = (req.body ?? {}) as ChatBody;
      const conversation = chatConversation(body);
      const declared = (body.tools ?? []).filter((t) => typeof t.function?.name === 'string');
      const tools = declared.map((t) => t.function!.name!);
      // side requests (titles, summaries) declare no tools: never script them
      const plan = tools.length > 0 ? planReply(conversation) : null;
      const workdir = chatWorkdir(body);
      let call: ChatToolCall | null = null;
      let text = options.sideAnswer ?? 'Scripted session';
      if (plan !== null && plan.action.kind === 'text') text = plan.action.text;
      else if (plan !== null && plan.action.kind !== 'text') {
        call = options.toolCall?.(plan.action, declared, workdir) ?? defaultToolCall(plan.action, declared, workdir);
      } else if (tools.length > 0) text = 'ok';
      sendCompletion(res, body, plan, call, text);
      return { route: tools.length > 0 ? 'chat/completions' : 'chat/completions (side)', conversation, plan, tools };
    },
  };
}

/** The dialect with the default tool mapping. */
export const openAiChatDefault: Dialect = openAiChatDialect();
