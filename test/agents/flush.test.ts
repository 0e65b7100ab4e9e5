import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupAll, FIXTURES, tempDir } from '../helpers/repo.js';
import { linesFromEnd, readTail, stopWaitCapFromEnv, waitForFlush } from '../../src/agents/kit/flush.js';
import { claudeFlushProbe, lastAssistantText } from '../../src/agents/claude-code/flush.js';
import { getAgent } from '../../src/agents/registry.js';

afterAll(cleanupAll);

// A real Claude Code 2.1.332 transcript after turn 1 and its Stop payload (SPEC-2 §B.4):
// the last assistant line is followed by system/stop_hook_summary, last-prompt and cost-state.
const REAL = join(FIXTURES, 'real-agents', 'claude-code');
const turn1 = readFileSync(join(REAL, 'p-turn1.truncated.jsonl'), 'utf8');
const stopPayload = JSON.parse(readFileSync(join(REAL, 'a1-03-stop.json'), 'utf8')) as { last_assistant_message: string };
/** The transcript as it is while Stop runs: everything before the lines Claude writes after the hook. */
const atStop = turn1.split('\n').slice(0, 39).join('\n') + '\n';

describe('Claude: the last assistant text on disk', () => {
  it('is the Stop payload\'s last_assistant_message on the real transcript', () => {
    expect(lastAssistantText(turn1, true)).toBe(stopPayload.last_assistant_message);
    expect(lastAssistantText(atStop, true)).toBe(stopPayload.last_assistant_message);
  });

  it('skips a cut first line and a line still being written', () => {
    const line = JSON.stringify({ type: 'assistant', message: { content: [{ type: 'text', text: 'first' }] } });
    expect(lastAssistantText(line + '\n', false)).toBeUndefined();
    expect(lastAssistantText(line + '\n', true)).toBe('first');
    expect(lastAssistantText(line + '\n' + line.slice(0, 30), true)).toBe('first');
    expect([...linesFromEnd('a\nb\nc\n', false)]).toEqual(['c', 'b']);
    expect([...linesFromEnd('a\nb\nc', true)]).toEqual(['c', 'b', 'a']);
  });
});

describe('stopWaitCapFromEnv', () => {
  it('defaults to 3000, 0 disables, junk falls back to the default', () => {
    expect(stopWaitCapFromEnv({})).toBe(3000);
    expect(stopWaitCapFromEnv({ ENTIRE_STOP_WAIT_MS: '0' })).toBe(0);
    expect(stopWaitCapFromEnv({ ENTIRE_STOP_WAIT_MS: '1500' })).toBe(1500);
    expect(stopWaitCapFromEnv({ ENTIRE_STOP_WAIT_MS: 'soon' })).toBe(3000);
    expect(stopWaitCapFromEnv({ ENTIRE_STOP_WAIT_MS: '-5' })).toBe(3000);
  });
});

describe('readTail', () => {
  it('returns the size and only the last bytes', () => {
    const p = join(tempDir(), 't.jsonl');
    writeFileSync(p, 'a'.repeat(100) + 'END');
    expect(readTail(p, 5)).toEqual({ size: 103, tail: 'aaEND', whole: false });
    expect(readTail(p, 500).whole).toBe(true);
    expect(readTail(join(tempDir(), 'missing')).size).toBe(-1);
  });
});

describe('turn-end flush wait', () => {
  it('cap 0 means no wait', async () => {
    const r = await waitForFlush('/does/not/matter', { capMs: 0 });
    expect(r.outcome).toBe('disabled');
  });

  it('Claude: flushed at once when the answer is on disk (no wait)', async () => {
    const p = join(tempDir(), 's.jsonl');
    writeFileSync(p, atStop);
    const claude = await getAgent('claude-code');
    const r = await claude.waitForTranscriptFlush(p, { startedAt: Date.now(), capMs: 10_000, response: stopPayload.last_assistant_message });
    expect(r).toEqual({ outcome: 'flushed', waitedMs: 0 });
  });

  it('Claude: waits for the answer to be written, then returns flushed', async () => {
    const p = join(tempDir(), 's.jsonl');
    const lines = atStop.split('\n');
    writeFileSync(p, lines.slice(0, 37).join('\n') + '\n'); // before the final text line
    // a settle time longer than the cap: only the answer landing can end this wait
    const waiting = waitForFlush(p, { capMs: 60_000, settleMs: 120_000, probe: claudeFlushProbe(stopPayload.last_assistant_message) });
    let appended = false;
    const writer = setInterval(() => {
      if (!appended) appendFileSync(p, lines.slice(37).join('\n'));
      appended = true;
      clearInterval(writer);
    }, 5);
    expect((await waiting).outcome).toBe('flushed');
  });

  it('Claude: without an answer in the payload, returns once the size is stable', async () => {
    const p = join(tempDir(), 's.jsonl');
    writeFileSync(p, atStop);
    const claude = await getAgent('claude-code');
    expect((await claude.waitForTranscriptFlush(p, { startedAt: Date.now(), capMs: 10_000 })).outcome).toBe('stable');
    expect((await claude.waitForTranscriptFlush(p, { startedAt: Date.now(), capMs: 10_000, response: 'something else' })).outcome).toBe('stable');
  });

  it('Gemini legacy document: returns when it parses; times out while it does not', async () => {
    const dir = tempDir();
    const good = join(dir, 'good.json');
    writeFileSync(good, '{"messages":[]}');
    const gemini = await getAgent('gemini');
    expect((await gemini.waitForTranscriptFlush(good, { startedAt: Date.now(), capMs: 10_000 })).outcome).toBe('flushed');
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"messages":[');
    expect((await gemini.waitForTranscriptFlush(bad, { startedAt: Date.now(), capMs: 120 })).outcome).toBe('timeout');
  });
});
