/**
 * Copilot CLI subagents (the `task` tool), on a real capture (test/fixtures/real-agents/copilot-cli/subagent/,
 * Copilot CLI 1.0.102): a subagent's own prompt and stop hooks are its session's pre-task / post-task,
 * never a session of their own, and its transcript is its lines of the session's events.jsonl.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupAll, FIXTURES, tempDir } from '../helpers/repo.js';
import { copilotCliAgent } from '../../src/agents/copilot-cli/index.js';
import { analyzeCopilotText } from '../../src/agents/copilot-cli/transcript.js';
import { copilotTranscriptEntries } from '../../src/agents/copilot-cli/render.js';
import { stageCopilotSubagent, subagentStageName } from '../../src/agents/copilot-cli/subagents.js';
import { endsWithAgentStop } from '../../src/agents/copilot-cli/flush.js';

afterAll(cleanupAll);

const DIR = join(FIXTURES, 'real-agents', 'copilot-cli', 'subagent');
const EVENTS = readFileSync(join(DIR, 'events.jsonl'), 'utf8');
const PAYLOADS = readFileSync(join(DIR, 'hook-payloads.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as { verb: string; stdin: Record<string, unknown> });
const SESSION = '3507ae3d-4666-47b6-988f-f87062171b86';
const SUBAGENT = '9461133c-e7c4-4020-a0b0-5be771c207c0';

const parse = (p: { verb: string; stdin: Record<string, unknown> }) => copilotCliAgent.parseHookInput(p.verb, JSON.stringify(p.stdin));

describe('hook input', () => {
  it("the subagent's prompt hook is the session's pre-task, keyed by the subagent's id, with no prompt", () => {
    const ev = parse(PAYLOADS.find((p) => p.verb === 'user-prompt-submitted' && p.stdin['parentAgentId'])!);
    expect(ev).toMatchObject({ kind: 'pre-task', sessionId: SESSION, toolUseId: SUBAGENT, subagentId: SUBAGENT, subagentType: 'general-purpose' });
    expect(ev.prompt).toBeUndefined();
  });

  it("the subagent's stop hook is the session's post-task, with the session's transcript", () => {
    const ev = parse(PAYLOADS.find((p) => p.verb === 'agent-stop' && p.stdin['parentAgentId'])!);
    expect(ev).toMatchObject({ kind: 'post-task', sessionId: SESSION, toolUseId: SUBAGENT, subagentId: SUBAGENT });
    expect(ev.transcriptPath).toMatch(new RegExp(`/${SESSION}/events\\.jsonl$`));
  });

  it("the session's own hooks stay what they were", () => {
    const kinds = PAYLOADS.filter((p) => !p.stdin['parentAgentId']).map((p) => [p.verb, parse(p).kind, parse(p).sessionId]);
    expect(kinds).toEqual([
      ['session-start', 'session-start', SESSION],
      ['user-prompt-submitted', 'turn-start', SESSION],
      ['agent-stop', 'turn-end', SESSION],
      ['session-end', 'session-end', SESSION],
    ]);
  });

  it('a subagent id or parent id that fails its validator is refused (SPEC-2 §A.2)', () => {
    const sub = PAYLOADS.find((p) => p.verb === 'agent-stop' && p.stdin['parentAgentId'])!;
    expect(() => parse({ verb: sub.verb, stdin: { ...sub.stdin, agentId: '../x' } })).toThrow(/agentId/);
    expect(() => parse({ verb: sub.verb, stdin: { ...sub.stdin, parentAgentId: '../x' } })).toThrow();
  });
});

describe("the session's analysis", () => {
  it("keeps the user's prompt only (the subagent's task prompt is not one), and the subagent's edit", () => {
    const a = analyzeCopilotText(EVENTS);
    expect(a.prompts).toEqual(['ETIER-FG have a foreground subagent write fg.txt']);
    expect(a.modifiedFiles).toEqual(['/tmp/entire-agents-copilot-cli-DGQIdP/project-fg/fg.txt']);
    // the session's file records the subagent's model calls with the session's own
    expect(a.tokenUsage.api_call_count).toBe(4);
    expect(a.summary).toBe('Done: the foreground subagent wrote fg.txt.');
  });

  it("explain shows no subagent prompt as the user's", () => {
    const users = copilotTranscriptEntries(EVENTS, 'jsonl', 0).filter((e) => e.kind === 'user');
    expect(users.map((e) => e.text)).toEqual(['ETIER-FG have a foreground subagent write fg.txt']);
  });
});

describe("the subagent's stop on disk (the stop hook may run before its lines are written)", () => {
  const lines = EVENTS.trim().split('\n');
  const upTo = (n: number) => lines.slice(0, n).join('\n') + '\n';
  const stopAt = lines.findIndex((l) => l.includes('"hookType":"agentStop"') && l.includes('"type":"hook.start"'));

  it("is there once the file ends with the subagent's agentStop hook.start", () => {
    expect(endsWithAgentStop(upTo(stopAt + 1), true, SUBAGENT)).toBe(true);
  });

  it('is not there before it, nor for another agent', () => {
    expect(endsWithAgentStop(upTo(stopAt), true, SUBAGENT)).toBe(false);
    expect(endsWithAgentStop(upTo(stopAt + 1), true, SESSION)).toBe(false);
  });
});

describe('the staged subagent transcript', () => {
  it("is the subagent's lines of events.jsonl, in order, under .entire/tmp", async () => {
    const root = tempDir();
    const events = join(root, 'events.jsonl');
    writeFileSync(events, EVENTS);
    mkdirSync(join(root, '.entire'));
    const path = await stageCopilotSubagent(root, SESSION, SUBAGENT, events);
    expect(path).toBe(join(root, '.entire', 'tmp', subagentStageName(SUBAGENT)));
    const lines = readFileSync(path!, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const expected = EVENTS.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>).filter((e) => e['agentId'] === SUBAGENT);
    expect(lines).toEqual(expected);
    expect(lines[0]!['type']).toBe('subagent.started');
    const a = analyzeCopilotText(readFileSync(path!, 'utf8'));
    expect(a.modifiedFiles).toEqual(['/tmp/entire-agents-copilot-cli-DGQIdP/project-fg/fg.txt']);
    expect(a.summary).toBe('subagent finished fg');
  });

  it('is null for an id the file does not hold, and refused for an invalid one', async () => {
    const root = tempDir();
    const events = join(root, 'events.jsonl');
    writeFileSync(events, EVENTS);
    // (the wait for a stop that never comes is capped: ENTIRE_STOP_WAIT_MS=0 skips it here)
    process.env['ENTIRE_STOP_WAIT_MS'] = '0';
    try {
      expect(await stageCopilotSubagent(root, SESSION, 'no-such-agent', events)).toBeNull();
    } finally {
      delete process.env['ENTIRE_STOP_WAIT_MS'];
    }
    await expect(stageCopilotSubagent(root, SESSION, '../evil', events)).rejects.toThrow();
  });
});
