/**
 * The OpenAI chat-completions dialect of the scripted model server
 * (test/real-agents/dialects/openai-chat.ts), checked without any agent CLI.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelServer, type ModelServer } from '../real-agents/model-server.js';
import { openAiChatDialect } from '../real-agents/dialects/openai-chat.js';
import { PROMPTS, README_START } from '../real-agents/scripts.js';

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer({ dialects: [openAiChatDialect()] });
});
afterAll(() => server.close());

async function post(path: string, body: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(server.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, text: await res.text() };
}

/** The `data:` lines of an SSE body, `[DONE]` kept as a string. */
const events = (sse: string): unknown[] =>
  sse
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => (l === 'data: [DONE]' ? '[DONE]' : (JSON.parse(l.slice(6)) as unknown)));

const fn = (name: string, props: string[]) => ({ type: 'function', function: { name, parameters: { type: 'object', properties: Object.fromEntries(props.map((p) => [p, { type: 'string' }])) } } });
// OpenCode's tool shapes (camelCase paths)
const openCodeTools = [fn('write', ['filePath', 'content']), fn('bash', ['command', 'description', 'timeout']), fn('read', ['filePath']), fn('edit', ['filePath', 'oldString', 'newString'])];
// snake_case / `path` shapes
const otherTools = [fn('create', ['path', 'file_text']), fn('bash', ['command']), fn('view', ['path']), fn('str_replace', ['path', 'old_str', 'new_str'])];
const system = { role: 'system', content: 'You are an agent.\n<env>\n  Working directory: /work/oc\n</env>' };

type Chunk = { choices: { delta: { content?: string; tool_calls?: { function: { name: string; arguments: string } }[] }; finish_reason: string | null }[]; usage?: Record<string, unknown> };

describe('OpenAI chat-completions dialect', () => {
  it('streams a tool call named and shaped as the request declares it, then the usage, then [DONE]', async () => {
    const r = await post('/v1/chat/completions', { model: 'local-model', stream: true, tools: openCodeTools, messages: [system, { role: 'user', content: [{ type: 'text', text: PROMPTS.standard }] }] });
    expect(r.status).toBe(200);
    const ev = events(r.text);
    expect(ev.at(-1)).toBe('[DONE]');
    const chunks = ev.slice(0, -1) as Chunk[];
    const call = chunks[0]!.choices[0]!.delta.tool_calls![0]!.function;
    expect(call.name).toBe('write');
    expect(JSON.parse(call.arguments)).toEqual({ filePath: '/work/oc/hello.txt', content: 'hello from the agent\n' });
    expect(chunks[1]!.choices[0]!.finish_reason).toBe('tool_calls');
    expect(chunks[2]!.choices).toEqual([]);
    expect(chunks[2]!.usage).toMatchObject({ prompt_tokens: 1110, completion_tokens: 20, prompt_tokens_details: { cached_tokens: 1000 } });
  });

  it('counts assistant messages after the prompt (tool results are not turns) and maps other tool names', async () => {
    const messages = [
      system,
      { role: 'user', content: PROMPTS.standard },
      ...[1, 2, 3].flatMap((n) => [
        { role: 'assistant', content: null, tool_calls: [{ id: `c${n}`, type: 'function', function: { name: 'x', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: `c${n}`, content: 'done' },
      ]),
    ];
    const r = await post('/v1/chat/completions', { stream: false, tools: otherTools, messages });
    const body = JSON.parse(r.text) as { choices: { message: { tool_calls: { function: { name: string; arguments: string } }[] } }[] };
    const call = body.choices[0]!.message.tool_calls[0]!.function;
    expect(call.name).toBe('str_replace');
    expect(JSON.parse(call.arguments)).toEqual({ path: '/work/oc/README.md', old_str: README_START, new_str: expect.stringContaining('hello.txt') });
  });

  it('answers a request without tools (a session title) with plain text and a final text as content', async () => {
    const title = await post('/v1/chat/completions', { stream: true, messages: [{ role: 'system', content: 'Generate a title' }, { role: 'user', content: PROMPTS.standard }] });
    const chunks = events(title.text).slice(0, -1) as Chunk[];
    expect(chunks[0]!.choices[0]!.delta.content).toBe('Scripted session');
    expect(chunks[1]!.choices[0]!.finish_reason).toBe('stop');
    const done = await post('/chat/completions', {
      stream: false,
      tools: openCodeTools,
      messages: [{ role: 'user', content: PROMPTS.second }, { role: 'assistant', content: null, tool_calls: [] }],
    });
    expect(JSON.parse(done.text)).toMatchObject({ choices: [{ message: { content: expect.stringContaining('Continued') }, finish_reason: 'stop' }] });
    expect(server.unknown()).toEqual([]);
  });
});
