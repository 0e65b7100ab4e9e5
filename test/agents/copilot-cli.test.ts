/**
 * Copilot CLI 1.0.102's transcript, hook stdin, flush, hook file and trust
 * (SPEC-2 §C.3), on the real captures in test/fixtures/real-agents/copilot-cli/.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupAll, FIXTURES, tempDir } from '../helpers/repo.js';
import { copilotCliAgent } from '../../src/agents/copilot-cli/index.js';
import { analyzeCopilotFile, analyzeCopilotText, copilotFilePosition, isCopilotEventsText } from '../../src/agents/copilot-cli/transcript.js';
import { cleanCopilotPrompt } from '../../src/agents/copilot-cli/prompts.js';
import { endsWithAgentStop } from '../../src/agents/copilot-cli/flush.js';
import { copilotHooksInstalled, installCopilotHooks, uninstallCopilotHooks, COPILOT_HOOKS_FILE } from '../../src/agents/copilot-cli/hooks.js';
import { copilotTrustGaps, copilotTrustsFolder } from '../../src/agents/copilot-cli/trust.js';
import { recognizeTranscript } from '../../src/agents/registry.js';

afterAll(cleanupAll);

const REAL = join(FIXTURES, 'real-agents', 'copilot-cli');
const EVENTS = readFileSync(join(REAL, 'events-sample.jsonl'), 'utf8');
const PAYLOADS = readFileSync(join(REAL, 'hook-payloads.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as { run: string; event: string; stdin: Record<string, unknown> });
const VERB: Record<string, string> = {
  sessionStart: 'session-start',
  userPromptSubmitted: 'user-prompt-submitted',
  agentStop: 'agent-stop',
  sessionEnd: 'session-end',
  preToolUse: 'pre-tool-use',
  postToolUse: 'post-tool-use',
};

describe('events.jsonl (SPEC-2 §C.3, C1)', () => {
  it("the README's expected extraction", () => {
    const a = analyzeCopilotText(EVENTS);
    expect(a.position).toBe(46);
    expect(a.lastIdentifier).toBe('16345e9d-a4ae-4fd8-acc6-35b62e9b0e97');
    expect(a.modifiedFiles).toEqual(['/tmp/ra/cp1/repo/hello.txt', '/tmp/ra/cp1/repo/README.md']);
    expect(a.prompts).toEqual(['Please say hello: create hello.txt and commit it.']);
    expect(a.tokenUsage).toEqual({ input_tokens: 5400, cache_creation_tokens: 0, cache_read_tokens: 0, output_tokens: 160, api_call_count: 4 });
    expect(a.model).toBe('gpt-4.1');
    expect(a.summary).toBe('Created hello.txt, committed it, and updated README.md.');
    expect(copilotCliAgent.transcriptProjectRoot(EVENTS, a.modifiedFiles)).toBe('/tmp/ra/cp1/repo');
  });

  it('a range: only its records count; position and identifier describe the whole file', () => {
    // line 28 (0-based) is the third usage record: two calls and README.md remain
    const a = analyzeCopilotText(EVENTS, { from: 28 });
    expect(a.position).toBe(46);
    expect(a.prompts).toEqual([]);
    expect(a.modifiedFiles).toEqual(['/tmp/ra/cp1/repo/README.md']);
    expect(a.tokenUsage.api_call_count).toBe(2);
    expect(a.tokenUsage.input_tokens).toBe(2900);
  });

  it('the file reader matches the text reader, and a cursor reads only what was appended', () => {
    const dir = tempDir();
    const path = join(dir, 'events.jsonl');
    const lines = EVENTS.split('\n');
    writeFileSync(path, lines.slice(0, 20).join('\n') + '\n');
    const first = analyzeCopilotFile(path);
    expect(first.analysis.position).toBe(20);
    expect(first.cursor?.line).toBe(20);
    writeFileSync(path, EVENTS);
    const whole = analyzeCopilotFile(path);
    expect(whole.analysis).toEqual(analyzeCopilotText(EVENTS));
    const later = analyzeCopilotFile(path, { from: 20, cursor: first.cursor });
    expect(later.analysis).toEqual(analyzeCopilotText(EVENTS, { from: 20 }));
    expect(copilotFilePosition(path, first.cursor)).toMatchObject({ position: 46, lastIdentifier: '16345e9d-a4ae-4fd8-acc6-35b62e9b0e97' });
    // a cursor that no longer points at a line start is not used
    expect(analyzeCopilotFile(path, { from: 0, cursor: { byte: 7, line: 1, identifier: 'x' } }).analysis).toEqual(whole.analysis);
  });

  it('prompts: content, else transformedContent without the context the CLI adds', () => {
    const line = (data: Record<string, unknown>) => JSON.stringify({ type: 'user.message', data, id: 'u1', timestamp: 't', parentId: null });
    const text = [
      line({ content: 'first' }),
      line({ content: '', transformedContent: '<current_datetime>2026-11-25T20:12:00Z</current_datetime>\n\nsecond\n<reminder>be brief</reminder>' }),
      line({ transformedContent: '<current_datetime>x</current_datetime>' }),
    ].join('\n');
    expect(analyzeCopilotText(text).prompts).toEqual(['first', 'second']);
    expect(cleanCopilotPrompt('<reminder>a</reminder> hi <system-reminder>b</system-reminder>')).toBe('hi');
  });

  it('tokens without usage records: the shutdown totals, else the answers; edit paths from telemetry', () => {
    const rec = (type: string, data: Record<string, unknown>) => JSON.stringify({ type, data, id: type, timestamp: 't', parentId: null });
    const shutdown = rec('session.shutdown', {
      modelMetrics: { 'gpt-4.1': { requests: { count: 3 }, usage: { inputTokens: 300, outputTokens: 30, cacheReadTokens: 7, cacheWriteTokens: 2 } } },
    });
    const answer = rec('assistant.message', { content: 'ok', outputTokens: 12, model: 'm2' });
    expect(analyzeCopilotText([answer, shutdown].join('\n')).tokenUsage).toEqual({
      input_tokens: 300,
      cache_creation_tokens: 2,
      cache_read_tokens: 7,
      output_tokens: 30,
      api_call_count: 3,
    });
    // a later range (the lines after a turn end, say) is not the whole session: its shutdown totals would count again
    expect(analyzeCopilotText([answer, shutdown].join('\n'), { from: 1 }).tokenUsage.api_call_count).toBe(0);
    const onlyAnswer = analyzeCopilotText(answer);
    expect(onlyAnswer.tokenUsage).toMatchObject({ output_tokens: 12, api_call_count: 1 });
    expect(onlyAnswer.model).toBe('m2');
    const telemetry = rec('tool.execution_complete', {
      toolTelemetry: { properties: { filePaths: '["/r/a.txt","/r/b.txt"]' }, restrictedProperties: { filePaths: 'not json' } },
    });
    expect(analyzeCopilotText(telemetry).modifiedFiles).toEqual(['/r/a.txt', '/r/b.txt']);
  });

  it('is recognised by content (slots that name no agent), and explain shows the conversation', async () => {
    expect(isCopilotEventsText(EVENTS)).toBe(true);
    expect(isCopilotEventsText('{"type":"user","message":{"content":"hi"}}\n')).toBe(false);
    expect((await recognizeTranscript(EVENTS))?.key).toBe('copilot-cli');
    const entries = copilotCliAgent.transcriptEntries(EVENTS, 'jsonl', 0);
    expect(entries[0]).toEqual({ kind: 'user', text: 'Please say hello: create hello.txt and commit it.' });
    expect(entries).toContainEqual({ kind: 'tool', text: 'create hello.txt' });
    expect(entries).toContainEqual({ kind: 'tool', text: 'edit README.md' });
    expect(entries[entries.length - 1]).toEqual({ kind: 'assistant', text: 'Created hello.txt, committed it, and updated README.md.' });
  });
});

describe('hook stdin (SPEC-2 §C.3)', () => {
  it('every captured payload parses; only agentStop names the transcript', () => {
    for (const p of PAYLOADS) {
      const ev = copilotCliAgent.parseHookInput(VERB[p.event]!, JSON.stringify(p.stdin));
      if (p.event === 'preToolUse' || p.event === 'postToolUse') {
        expect(ev.kind).toBe('noop');
        continue;
      }
      expect(ev.sessionId).toBe('81fca3c4-a042-4aaf-8375-86dabc9dca40');
      expect(ev.cwd).toBe('/tmp/ra/dp1/repo');
      if (p.event === 'agentStop') expect(ev.transcriptPath).toMatch(/session-state\/81fca3c4-a042-4aaf-8375-86dabc9dca40\/events\.jsonl$/);
      else expect(ev.transcriptPath).toBeUndefined();
    }
    const start = PAYLOADS.find((p) => p.event === 'sessionStart' && p.stdin['source'] === 'resume')!;
    expect(copilotCliAgent.parseHookInput('session-start', JSON.stringify(start.stdin))).toMatchObject({ kind: 'session-start', source: 'resume' });
    const prompt = PAYLOADS.find((p) => p.event === 'userPromptSubmitted')!;
    expect(copilotCliAgent.parseHookInput('user-prompt-submitted', JSON.stringify(prompt.stdin))).toMatchObject({
      kind: 'turn-start',
      prompt: 'Please say hello: create hello.txt and commit it.',
    });
    expect(copilotCliAgent.parseHookInput('session-end', '{"sessionId":"s1","reason":"complete"}')).toMatchObject({ kind: 'session-end', reason: 'complete' });
  });

  it('a missing or unsafe sessionId is INVALID_INPUT; an unknown verb INVALID_USAGE', () => {
    expect(() => copilotCliAgent.parseHookInput('agent-stop', '{"cwd":"/x"}')).toThrow(/sessionId/);
    expect(() => copilotCliAgent.parseHookInput('agent-stop', '{"sessionId":"../x"}')).toThrow(/sessionId/);
    expect(() => copilotCliAgent.parseHookInput('nope', '{}')).toThrow(/unknown hook/);
  });
});

describe('turn-end flush (SPEC-2 §B.4)', () => {
  it("flushed once agentStop's own record ends the transcript (other hooks' records may follow)", () => {
    const lines = EVENTS.split('\n');
    const at = lines.findIndex((l) => l.includes('"hookType":"agentStop"') && l.includes('"hook.start"'));
    expect(at).toBeGreaterThan(0);
    expect(endsWithAgentStop(lines.slice(0, at + 1).join('\n') + '\n', true)).toBe(true);
    expect(endsWithAgentStop(lines.slice(0, at + 3).join('\n') + '\n', true)).toBe(true);
    expect(endsWithAgentStop(lines.slice(0, at).join('\n') + '\n', true)).toBe(false);
    expect(endsWithAgentStop(lines.slice(0, at + 1).join('\n') + '\n{"type":"assist', true)).toBe(false);
  });
});

describe('.github/hooks/entire.json (C4)', () => {
  const ours = {
    sessionStart: [{ type: 'command', bash: 'entire hooks copilot-cli session-start', timeoutSec: 30 }],
    userPromptSubmitted: [{ type: 'command', bash: 'entire hooks copilot-cli user-prompt-submitted', timeoutSec: 30 }],
    agentStop: [{ type: 'command', bash: 'entire hooks copilot-cli agent-stop', timeoutSec: 30 }],
    sessionEnd: [{ type: 'command', bash: 'entire hooks copilot-cli session-end', timeoutSec: 30 }],
  };

  it('a fresh file; a rerun changes nothing; uninstall removes the file it emptied', () => {
    const root = tempDir();
    const r = installCopilotHooks(root);
    expect(r).toMatchObject({ file: COPILOT_HOOKS_FILE, changed: true });
    const text = readFileSync(join(root, COPILOT_HOOKS_FILE), 'utf8');
    expect(JSON.parse(text)).toEqual({ version: 1, hooks: ours });
    expect(copilotHooksInstalled(root)).toBe(true);
    expect(installCopilotHooks(root).changed).toBe(false);
    expect(readFileSync(join(root, COPILOT_HOOKS_FILE), 'utf8')).toBe(text);
    expect(uninstallCopilotHooks(root)).toEqual({ files: [COPILOT_HOOKS_FILE], changed: true });
    expect(() => readFileSync(join(root, COPILOT_HOOKS_FILE))).toThrow();
    expect(copilotHooksInstalled(root)).toBe(false);
  });

  it('keeps foreign entries and keys, replaces stale entries of ours, and uninstall leaves the rest', () => {
    const root = tempDir();
    mkdirSync(join(root, '.github', 'hooks'), { recursive: true });
    const foreign = { type: 'command', bash: './scripts/audit.sh', timeoutSec: 5 };
    writeFileSync(
      join(root, COPILOT_HOOKS_FILE),
      JSON.stringify({
        version: 1,
        note: 'kept',
        hooks: {
          agentStop: [foreign, { type: 'command', bash: 'entire hooks copilot-cli agent-stop', timeoutSec: 10 }],
          preToolUse: [{ type: 'command', bash: 'entire hooks copilot-cli pre-tool-use' }],
        },
      }),
    );
    writeFileSync(join(root, '.github', 'hooks', 'other.json'), '{"version":1,"hooks":{}}');
    installCopilotHooks(root);
    const data = JSON.parse(readFileSync(join(root, COPILOT_HOOKS_FILE), 'utf8'));
    expect(data.note).toBe('kept');
    expect(data.hooks.agentStop).toEqual([foreign, ours.agentStop[0]]);
    expect(data.hooks.preToolUse).toBeUndefined();
    expect(installCopilotHooks(root).changed).toBe(false);
    uninstallCopilotHooks(root);
    expect(JSON.parse(readFileSync(join(root, COPILOT_HOOKS_FILE), 'utf8'))).toEqual({ version: 1, note: 'kept', hooks: { agentStop: [foreign] } });
    expect(readFileSync(join(root, '.github', 'hooks', 'other.json'), 'utf8')).toBe('{"version":1,"hooks":{}}');
  });
});

describe('trust (SPEC-2 §C.3)', () => {
  it('untrusted unless config.json trusts the folder or an ancestor, or COPILOT_ALLOW_ALL=true', async () => {
    const home = tempDir();
    const root = join(home, 'work', 'repo');
    mkdirSync(root, { recursive: true });
    const env = { HOME: home, COPILOT_HOME: join(home, 'ch') };
    expect(copilotTrustsFolder(root, env)).toBe(false);
    const notes = await copilotTrustGaps(root, env);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/^! Copilot CLI runs these hooks only in a trusted folder: /);
    expect(notes[0]).toContain(root);
    expect(notes[0]).toContain(join(home, 'ch', 'config.json'));
    expect(copilotTrustsFolder(root, { ...env, COPILOT_ALLOW_ALL: 'true' })).toBe(true);
    mkdirSync(join(home, 'ch'));
    writeFileSync(join(home, 'ch', 'config.json'), JSON.stringify({ trustedFolders: [join(home, 'elsewhere')] }));
    expect(copilotTrustsFolder(root, env)).toBe(false);
    writeFileSync(join(home, 'ch', 'config.json'), JSON.stringify({ trustedFolders: [join(home, 'work')] }));
    expect(copilotTrustsFolder(root, env)).toBe(true);
    expect(await copilotTrustGaps(root, env)).toEqual([]);
    writeFileSync(join(home, 'ch', 'config.json'), JSON.stringify({ trusted_folders: [root] }));
    expect(copilotTrustsFolder(root, env)).toBe(true);
  });
});
