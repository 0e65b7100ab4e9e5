/**
 * OpenCode subagents (the `task` tool runs a child session), on a real capture
 * (test/fixtures/real-agents/opencode/subagent/, OpenCode 1.18.33): our plugin's
 * pre-task / post-task lines, the child session found from the parent's export,
 * and the child's model calls as the session's `subagent_tokens`.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupAll, FIXTURES, tempDir } from '../helpers/repo.js';
import { openCodeAgent } from '../../src/agents/opencode/index.js';
import { analyzeOpenCodeFile, analyzeOpenCodeText } from '../../src/agents/opencode/transcript.js';
import { OPENCODE_PLUGIN_SOURCE } from '../../src/agents/opencode/plugin.js';
import { stageChildExport } from '../../src/agents/opencode/subagents.js';

afterAll(cleanupAll);

const DIR = join(FIXTURES, 'real-agents', 'opencode', 'subagent');
const PARENT = 'ses_de93b9781ffeW9RSvwU5LpqXQE';
const CHILD = 'ses_de93b89c9ffe7oBA1hzUCIEDPK';
const CALL = 'call_cb92c0893639b36e962eb871';
const PAYLOADS = readFileSync(join(DIR, 'hook-payloads.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as { verb: string; stdin: Record<string, unknown> });
const parse = (verb: string, stdin: Record<string, unknown>) => openCodeAgent.parseHookInput(verb, JSON.stringify(stdin));
const payload = (verb: string) => PAYLOADS.find((p) => p.verb === verb)!.stdin;

describe('the plugin', () => {
  it('reports the task tool around the child session, for main sessions only', () => {
    expect(OPENCODE_PLUGIN_SOURCE).toContain('"tool.execute.before"');
    expect(OPENCODE_PLUGIN_SOURCE).toContain('"tool.execute.after"');
    expect(OPENCODE_PLUGIN_SOURCE).toMatch(/input\?\.tool !== "task" \|\| !main\(input\.sessionID\)/);
  });
});

describe('hook input', () => {
  it('pre-task: the call id names the task; its label and kind, never its prompt', () => {
    const ev = parse('pre-task', payload('pre-task'));
    expect(ev).toMatchObject({ kind: 'pre-task', sessionId: PARENT, toolUseId: CALL, taskDescription: 'Write fg.txt', subagentType: 'general' });
    expect(ev.subagentId).toBeUndefined();
  });

  it('post-task: the child session is the subagent', () => {
    expect(parse('post-task', payload('post-task'))).toMatchObject({ kind: 'post-task', sessionId: PARENT, toolUseId: CALL, subagentId: CHILD });
  });

  it('a child id that fails a validator is dropped and logged; a bad call id refuses the hook (SPEC-2 §A.2)', () => {
    const ev = parse('post-task', { ...payload('post-task'), subagent_id: '../../x' });
    expect(ev.subagentId).toBeUndefined();
    expect(ev.refused?.join('\n')).toContain('subagent_id');
    expect(() => parse('post-task', { ...payload('post-task'), tool_use_id: 'a/b' })).toThrow(/tool_use_id/);
    expect(() => parse('pre-task', { session_id: PARENT })).toThrow(/tool_use_id/);
  });
});

describe('exports', () => {
  const parent = readFileSync(join(DIR, 'parent-export.json'), 'utf8');
  const child = readFileSync(join(DIR, 'child-export.json'), 'utf8');

  it("the parent's export names the child session its task ran; the child's write is in the child's", () => {
    const a = analyzeOpenCodeText(parent);
    expect(a.subagentIds).toEqual([CHILD]);
    // (the parent's step records the work tree's change as a `patch` part, so it names the file too)
    expect(a.modifiedFiles).toEqual(['/tmp/entire-agents-opencode-dFSuOA/project-fg/fg.txt']);
    expect(analyzeOpenCodeText(child).modifiedFiles).toEqual(['/tmp/entire-agents-opencode-dFSuOA/project-fg/fg.txt']);
  });

  it("the child's staged export beside the parent's adds its calls as subagent_tokens", () => {
    const dir = tempDir();
    copyFileSync(join(DIR, 'parent-export.json'), join(dir, `${PARENT}.json`));
    expect(analyzeOpenCodeFile(join(dir, `${PARENT}.json`)).analysis.tokenUsage.subagent_tokens).toBeUndefined();
    copyFileSync(join(DIR, 'child-export.json'), join(dir, `${CHILD}.json`));
    const usage = analyzeOpenCodeFile(join(dir, `${PARENT}.json`)).analysis.tokenUsage;
    expect(usage.api_call_count).toBe(2);
    expect(usage.subagent_tokens).toEqual({ input_tokens: 220, cache_creation_tokens: 0, cache_read_tokens: 2000, output_tokens: 40, api_call_count: 2 });
  });

  it('staging refuses a child id that is not a valid session and agent id, before running anything', async () => {
    const root = tempDir();
    await expect(stageChildExport(root, PARENT, '../evil', join(root, '.entire', 'tmp', `${PARENT}.json`))).rejects.toThrow(/child session id/);
  });
});
