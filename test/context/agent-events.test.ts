/**
 * SPEC-2 §F.4: the shapes of Codex, Copilot CLI and OpenCode transcripts that the golden
 * sessions do not cover, mapped to normalized events (interrupts, rejections, older output
 * forms, compaction).
 */
import { describe, it, expect } from 'vitest';
import { getAgent } from '../../src/agents/registry.js';
import type { ContextEvent } from '../../src/agents/types.js';
import { transcriptText } from '../../src/context/layers.js';

async function events(agent: string, text: string, format: 'jsonl' | 'json' = 'jsonl'): Promise<ContextEvent[]> {
  const adapter = await getAgent(agent);
  return [...adapter.contextEvents!(transcriptText(text, format))];
}
const jsonl = (lines: unknown[]) => lines.map((l) => JSON.stringify(l)).join('\n') + '\n';

describe('Codex rollout events', () => {
  it('legacy shell argv with a JSON output, a rejection, an interrupt, a compaction; malformed lines change nothing', async () => {
    const text = jsonl([
      { type: 'event_msg', payload: { type: 'item_completed', item: { type: 'UserMessage', content: [{ type: 'text', text: 'run the tests' }] } } },
      { type: 'response_item', payload: { type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', 'npm test'] }), call_id: 'c1' } },
      { type: 'response_item', payload: { type: 'function_call_output', call_id: 'c1', output: JSON.stringify({ output: 'Error: 2 failed', metadata: { exit_code: 1 } }) } },
      { type: 'response_item', payload: { type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: 'rm -rf build' }), call_id: 'c2' } },
      { type: 'response_item', payload: { type: 'function_call_output', call_id: 'c2', output: 'exec command rejected by user' } },
      { type: 'compacted', payload: { message: 'Summary. Next steps:\n- fix the parser' } },
      { type: 'event_msg', payload: { type: 'turn_aborted', reason: 'interrupted' } },
    ]);
    const withNoise = text.replace('\n', '\n{"type":"response_item","payload":\n[1,2]\nnot json\n');
    for (const t of [text, withNoise]) {
      expect(await events('codex', t)).toEqual([
        { type: 'prompt', text: 'run the tests' },
        { type: 'tool', id: 'c1', kind: 'shell', name: 'shell', command: 'npm test' },
        { type: 'result', id: 'c1', status: 'error', text: 'Error: 2 failed' },
        { type: 'tool', id: 'c2', kind: 'shell', name: 'exec_command', command: 'rm -rf build' },
        { type: 'result', id: 'c2', status: 'rejected', text: '' },
        { type: 'compaction', text: 'Summary. Next steps:\n- fix the parser' },
        { type: 'interrupt' },
      ]);
    }
  });
});

describe('Copilot CLI events', () => {
  it('a denied tool, a failed tool, abort', async () => {
    const text = jsonl([
      { type: 'user.message', data: { content: 'delete the build dir' } },
      { type: 'tool.execution_start', data: { toolCallId: 't1', toolName: 'bash', arguments: { command: 'rm -rf build' } } },
      { type: 'tool.execution_complete', data: { toolCallId: 't1', success: false, error: { message: 'The user rejected this tool call. User feedback: keep build' } } },
      { type: 'tool.execution_start', data: { toolCallId: 't2', toolName: 'view', arguments: { path: '/x' } } },
      { type: 'tool.execution_complete', data: { toolCallId: 't2', success: false, error: { message: 'Path does not exist' } } },
      { type: 'abort', data: { reason: 'user initiated' } },
    ]);
    expect(await events('copilot-cli', text)).toEqual([
      { type: 'prompt', text: 'delete the build dir' },
      { type: 'tool', id: 't1', kind: 'shell', name: 'bash', command: 'rm -rf build' },
      { type: 'result', id: 't1', status: 'rejected', text: 'keep build' },
      { type: 'tool', id: 't2', kind: 'other', name: 'view' },
      { type: 'result', id: 't2', status: 'error', text: 'Path does not exist' },
      { type: 'interrupt' },
    ]);
  });
});

describe('OpenCode export events', () => {
  it('a rejected permission with feedback, an errored tool, an aborted message, a compaction summary', async () => {
    const doc = {
      info: { id: 's' },
      messages: [
        { info: { role: 'user' }, parts: [{ type: 'text', text: 'clean up the repo' }] },
        {
          info: { role: 'assistant', error: { name: 'MessageAbortedError', data: {} } },
          parts: [
            { type: 'tool', tool: 'bash', callID: 'b1', state: { status: 'error', input: { command: 'git clean -fdx' }, error: 'The user rejected permission to use this specific tool call with the following feedback: not node_modules' } },
            { type: 'tool', tool: 'read', callID: 'r1', state: { status: 'error', input: { filePath: '/x' }, error: 'File not found: /x' } },
          ],
        },
        { info: { role: 'user' }, parts: [{ type: 'compaction', auto: true }] },
        { info: { role: 'assistant', summary: true }, parts: [{ type: 'text', text: 'We were cleaning up.' }] },
      ],
    };
    expect(await events('opencode', JSON.stringify(doc), 'json')).toEqual([
      { type: 'prompt', text: 'clean up the repo' },
      { type: 'tool', id: 'b1', kind: 'shell', name: 'bash', command: 'git clean -fdx' },
      { type: 'result', id: 'b1', status: 'rejected', text: 'not node_modules' },
      { type: 'tool', id: 'r1', kind: 'other', name: 'read' },
      { type: 'result', id: 'r1', status: 'error', text: 'File not found: /x' },
      { type: 'interrupt' },
      { type: 'compaction', text: 'We were cleaning up.' },
    ]);
  });
});
