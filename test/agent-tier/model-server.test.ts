/**
 * The real-agent tier's scripted model server (test/real-agents/, docs/testing.md),
 * checked without any agent CLI so the default suite catches a broken script
 * or dialect before the (slow, installed) tier runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelServer, type ModelServer } from '../real-agents/model-server.js';
import { PROMPTS, README_START, planReply } from '../real-agents/scripts.js';

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer();
});
afterAll(() => server.close());

async function post(path: string, body: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(server.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, text: await res.text() };
}

/** The `data:` payloads of an SSE body. */
const events = (sse: string) =>
  sse
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);

const claudeTools = [{ name: 'Write' }, { name: 'Bash' }, { name: 'Read' }, { name: 'Edit' }, { name: 'Agent' }];
const claudeSystem = [{ type: 'text', text: '# Environment\n - Primary working directory: /work/proj\n' }];

describe('scripts: the reply is a function of the conversation alone', () => {
  it('the last marked user message picks the script, the assistant messages after it the step', () => {
    const c = (n: number) => ({
      messages: [
        { role: 'user' as const, texts: ['<system-reminder>x</system-reminder>', PROMPTS.standard] },
        ...Array.from({ length: n }, () => [
          { role: 'assistant' as const, texts: [] },
          { role: 'user' as const, texts: [] },
        ]).flat(),
      ],
    });
    expect(planReply(c(0))).toMatchObject({ script: 'STD', step: 0, action: { kind: 'write', path: 'hello.txt' } });
    expect(planReply(c(1))).toMatchObject({ step: 1, action: { kind: 'shell' } });
    expect(planReply(c(3))).toMatchObject({ step: 3, action: { kind: 'edit', path: 'README.md', oldText: README_START } });
    expect(planReply(c(4))).toMatchObject({ step: 4, action: { kind: 'text' } });
    // past the end: the final answer again
    expect(planReply(c(9))?.action.kind).toBe('text');
    expect(planReply({ messages: [{ role: 'user', texts: ['no marker here'] }] })).toBeNull();
  });

  it('a later prompt of the same conversation wins, and sees the earlier turn', () => {
    const plan = planReply({
      messages: [
        { role: 'user', texts: [PROMPTS.standard] },
        { role: 'assistant', texts: ['Done'] },
        { role: 'user', texts: [PROMPTS.second] },
        { role: 'assistant', texts: [] },
        { role: 'user', texts: [] },
      ],
    });
    expect(plan).toMatchObject({ script: 'SECOND', step: 1, action: { kind: 'text' } });
    expect(plan?.action.kind === 'text' && plan.action.text).toContain('context present');
  });

  it('a subagent prompt is its own script (ETIER-SUBBG is not ETIER-BG)', () => {
    expect(planReply({ messages: [{ role: 'user', texts: ['ETIER-SUBBG write bg.txt'] }] })).toMatchObject({ script: 'SUBBG', step: 0 });
  });
});

describe('Anthropic dialect', () => {
  it('streams a tool_use with an absolute path from the working directory in the request, and the usage', async () => {
    const r = await post('/v1/messages?beta=true', {
      model: 'claude-x',
      stream: true,
      system: claudeSystem,
      tools: claudeTools,
      messages: [{ role: 'user', content: [{ type: 'text', text: PROMPTS.standard }] }],
    });
    expect(r.status).toBe(200);
    const ev = events(r.text);
    expect(ev.map((e) => e['type'])).toEqual(['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
    expect(ev[1]!['content_block']).toMatchObject({ type: 'tool_use', name: 'Write' });
    const input = JSON.parse((ev[2]!['delta'] as { partial_json: string }).partial_json) as Record<string, unknown>;
    expect(input['file_path']).toBe('/work/proj/hello.txt');
    expect((ev[0]!['message'] as { usage: Record<string, number> }).usage).toMatchObject({ input_tokens: 10, cache_creation_input_tokens: 100, cache_read_input_tokens: 1000 });
    expect((ev[4]!['usage'] as Record<string, number>)['output_tokens']).toBe(20);
  });

  it('answers a request without tools (a side request) with plain text, and a subagent Task as Agent', async () => {
    const side = await post('/v1/messages', { stream: false, messages: [{ role: 'user', content: PROMPTS.standard }] });
    expect(JSON.parse(side.text)).toMatchObject({ content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn' });
    const bg = await post('/v1/messages', { stream: false, tools: claudeTools, messages: [{ role: 'user', content: PROMPTS.background }] });
    expect(JSON.parse(bg.text)).toMatchObject({ content: [{ type: 'tool_use', name: 'Agent', input: { run_in_background: true, subagent_type: 'general-purpose' } }] });
  });
});

describe('Gemini dialect', () => {
  it('streams a functionCall with the workspace path from <session_context>, and usage metadata', async () => {
    const r = await post('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse', {
      tools: [{ functionDeclarations: [{ name: 'write_file' }, { name: 'run_shell_command' }, { name: 'replace' }] }],
      contents: [
        { role: 'user', parts: [{ text: '<session_context>\n- **Workspace Directories:**\n  - /work/gproj\n</session_context>' }] },
        { role: 'user', parts: [{ text: PROMPTS.standard }] },
        { role: 'model', parts: [{ functionCall: { name: 'write_file', args: {} } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'write_file', response: {} } }] },
      ],
    });
    expect(r.status).toBe(200);
    const [chunk] = events(r.text);
    const part = (chunk!['candidates'] as { content: { parts: Record<string, unknown>[] } }[])[0]!.content.parts[0]!;
    expect(part['functionCall']).toMatchObject({ name: 'run_shell_command', args: { command: 'git add hello.txt && git commit -m "Add hello.txt"' } });
    expect(chunk!['usageMetadata']).toMatchObject({ promptTokenCount: 1010, cachedContentTokenCount: 1000, candidatesTokenCount: 20 });
  });
});

describe('unknown routes', () => {
  it('get a 404 and are logged as unknown, so drift is visible', async () => {
    const before = server.unknown().length;
    const r = await post('/v1/something-new', {});
    expect(r.status).toBe(404);
    expect(server.unknown().length).toBe(before + 1);
    expect(server.unknown().at(-1)).toMatchObject({ method: 'POST', url: '/v1/something-new', dialect: null });
  });
});
