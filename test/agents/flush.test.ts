import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupAll, FIXTURES, tempDir } from '../helpers/repo.js';
import { hasStopSentinel, readTail, stopWaitCapFromEnv, waitForTranscriptFlush } from '../../src/agents/flush.js';
import { getAgent } from '../../src/agents/registry.js';

afterAll(cleanupAll);

const small = readFileSync(join(FIXTURES, 'transcripts', 'claude-small.jsonl'), 'utf8');
// The fixture's last line is the Stop hook_progress line, timestamp 2026-02-10T09:15:06.620Z.
const SENTINEL_AT = Date.parse('2026-02-10T09:15:06.620Z');

function progressLine(ts: string, command = 'entire hooks claude-code stop'): string {
  return JSON.stringify({ type: 'progress', data: { type: 'hook_progress', hookEvent: 'Stop', command }, uuid: 'p', timestamp: ts }) + '\n';
}

describe('hasStopSentinel', () => {
  it('finds the fixture sentinel within ±2 s of the hook start, not outside', () => {
    expect(hasStopSentinel(small, SENTINEL_AT)).toBe(true);
    expect(hasStopSentinel(small, SENTINEL_AT + 2000)).toBe(true);
    expect(hasStopSentinel(small, SENTINEL_AT - 1999)).toBe(true);
    expect(hasStopSentinel(small, SENTINEL_AT + 2001)).toBe(false);
    // turn 1's sentinel (09:14:21.620Z) matches a hook started then
    expect(hasStopSentinel(small, Date.parse('2026-02-10T09:14:22.000Z'))).toBe(true);
    expect(hasStopSentinel(small, Date.parse('2026-02-10T09:14:40.000Z'))).toBe(false);
  });

  it('needs the stop command on the line; the legacy spelling counts; a cut line uses its timestamp field', () => {
    const ts = '2026-03-01T10:00:00.000Z';
    const t = Date.parse(ts);
    expect(hasStopSentinel(progressLine(ts, 'entire hooks claude-code user-prompt-submit'), t)).toBe(false);
    expect(hasStopSentinel(progressLine(ts, 'entire hooks claudecode stop'), t)).toBe(true);
    expect(hasStopSentinel('"command":"entire hooks claude-code stop"},"timestamp":"' + ts + '"}\n', t)).toBe(true);
    expect(hasStopSentinel('entire hooks claude-code stop, no timestamp here\n', t)).toBe(false);
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
    expect(readTail(p, 5)).toEqual({ size: 103, tail: 'aaEND' });
    expect(readTail(join(tempDir(), 'missing')).size).toBe(-1);
  });
});

describe('waitForTranscriptFlush', () => {
  it('cap 0 means no wait', async () => {
    const r = await waitForTranscriptFlush('/does/not/matter', { startedAt: Date.now(), capMs: 0, mode: 'claude' });
    expect(r.outcome).toBe('disabled');
  });

  it('Claude: returns on the sentinel', async () => {
    const p = join(tempDir(), 's.jsonl');
    const now = Date.now();
    writeFileSync(p, small + progressLine(new Date(now).toISOString()));
    const claude = await getAgent('claude-code');
    const r = await claude.waitForTranscriptFlush(p, { startedAt: now, capMs: 10_000 });
    expect(r.outcome).toBe('sentinel');
  });

  it('Claude: without a sentinel, returns once the size is stable', async () => {
    const p = join(tempDir(), 's.jsonl');
    writeFileSync(p, small);
    const r = await waitForTranscriptFlush(p, { startedAt: Date.now(), capMs: 10_000, agent: 'claude-code' });
    expect(r.outcome).toBe('stable');
  });

  it('Gemini: returns when the document parses; times out while it does not', async () => {
    const dir = tempDir();
    const good = join(dir, 'good.json');
    writeFileSync(good, '{"messages":[]}');
    const gemini = await getAgent('gemini');
    expect((await gemini.waitForTranscriptFlush(good, { startedAt: Date.now(), capMs: 10_000 })).outcome).toBe('parsed');
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"messages":[');
    expect((await gemini.waitForTranscriptFlush(bad, { startedAt: Date.now(), capMs: 120 })).outcome).toBe('timeout');
  });
});
