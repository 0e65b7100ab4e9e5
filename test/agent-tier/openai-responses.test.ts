/**
 * The OpenAI Responses dialect the real-agent tier answers Codex CLI with
 * (test/real-agents/dialects/openai-responses.ts), checked without the CLI.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelServer, type ModelServer } from '../real-agents/model-server.js';
import { openaiResponsesDialect } from '../real-agents/dialects/openai-responses.js';
import { PROMPTS } from '../real-agents/scripts.js';

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer({ dialects: [openaiResponsesDialect] });
});
afterAll(() => server.close());

const tools = [{ type: 'function', name: 'exec_command' }, { type: 'custom', name: 'apply_patch' }];
const user = (text: string) => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });

async function respond(input: unknown[]): Promise<Record<string, unknown>[]> {
  const res = await fetch(`${server.url}/v1/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt-5.5', stream: true, input, tools }) });
  expect(res.status).toBe(200);
  return (await res.text())
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);
}

const doneItem = (events: Record<string, unknown>[]) => events.find((e) => e['type'] === 'response.output_item.done')!['item'] as Record<string, unknown>;

describe('OpenAI Responses dialect (POST /v1/responses)', () => {
  it("each earlier tool call is one assistant step: write → apply_patch, shell → exec_command, the answer → a message", async () => {
    const start = [user('<environment_context><cwd>/w</cwd></environment_context>'), user(PROMPTS.standard)];
    const first = doneItem(await respond(start));
    expect(first).toMatchObject({ type: 'custom_tool_call', name: 'apply_patch' });
    expect(first['input']).toBe('*** Begin Patch\n*** Add File: hello.txt\n+hello from the agent\n*** End Patch\n');
    const afterWrite = [...start, first, { type: 'custom_tool_call_output', call_id: first['call_id'], output: 'ok' }];
    const second = doneItem(await respond(afterWrite));
    expect(second).toMatchObject({ type: 'function_call', name: 'exec_command' });
    expect(JSON.parse(second['arguments'] as string)).toMatchObject({ cmd: 'git add hello.txt && git commit -m "Add hello.txt"' });
    const calls = [first, second, { type: 'function_call', name: 'exec_command', arguments: '{}' }, { type: 'custom_tool_call', name: 'apply_patch', input: '' }];
    const last = await respond([...start, ...calls]);
    expect(doneItem(last)).toMatchObject({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Done: hello.txt is committed and README.md mentions it.' }] });
  });

  it('usage counts cached tokens inside input_tokens, as OpenAI does', async () => {
    const events = await respond([user(PROMPTS.standard)]);
    const completed = events.find((e) => e['type'] === 'response.completed')!['response'] as { usage: Record<string, unknown> };
    expect(completed.usage).toMatchObject({ input_tokens: 1010, input_tokens_details: { cached_tokens: 1000 }, output_tokens: 20 });
  });
});
