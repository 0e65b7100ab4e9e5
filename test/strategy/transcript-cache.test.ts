import { describe, it, expect, afterAll } from 'vitest';
import { appendFileSync, writeFileSync, readFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir, cleanupAll, FIXTURES } from '../helpers/repo.js';
import { TranscriptCache } from '../../src/strategy/transcript-cache.js';
import { getAgent } from '../../src/agents/registry.js';

afterAll(cleanupAll);

describe('per-session transcript cache (hooks read only new bytes)', () => {
  it('incremental prompts, positions and ranges equal a full analysis, across processes (save/open)', async () => {
    const root = tempDir();
    mkdirSync(join(root, '.entire', 'tmp'), { recursive: true });
    const adapter = await getAgent('claude-code');
    const lines = readFileSync(join(FIXTURES, 'transcripts', 'claude-small.jsonl'), 'utf8').split('\n').filter(Boolean);
    const path = join(root, 't.jsonl');
    writeFileSync(path, '');
    let written = 0;
    for (const cut of [5, 14, 15, 20]) {
      appendFileSync(path, lines.slice(written, cut).map((l) => l + '\n').join(''));
      written = cut;
      const cache = TranscriptCache.open(root, 'sid-1', adapter, path);
      const full = adapter.analyzeTranscriptFile(path, { from: 0 }).analysis;
      expect(cache.position().position).toBe(full.position);
      expect(await cache.prompts()).toEqual(full.prompts);
      const from = Math.min(14, cut);
      expect(cache.analyze(from)?.tokenUsage).toEqual(adapter.analyzeTranscriptFile(path, { from }).analysis.tokenUsage);
      cache.save();
    }
    expect((await TranscriptCache.open(root, 'sid-1', adapter, path).prompts())[0]).toMatch(/^Add a GET \/healthz endpoint/);
  });

  it('an unterminated last line is counted but not cached; a replaced file starts over', async () => {
    const root = tempDir();
    const adapter = await getAgent('claude-code');
    const path = join(root, 't.jsonl');
    const user = (t: string) => JSON.stringify({ type: 'user', uuid: t, message: { role: 'user', content: t } });
    writeFileSync(path, user('one') + '\n' + user('two'));
    let c = TranscriptCache.open(root, 's', adapter, path);
    expect(await c.prompts()).toEqual(['one', 'two']);
    c.save();
    appendFileSync(path, '\n' + user('three') + '\n');
    c = TranscriptCache.open(root, 's', adapter, path);
    expect(await c.prompts()).toEqual(['one', 'two', 'three']);
    c.save();
    writeFileSync(path, user('fresh') + '\n');
    c = TranscriptCache.open(root, 's', adapter, path);
    expect(await c.prompts()).toEqual(['fresh']);
  });

  it('prompts in the cache are redacted', async () => {
    const root = tempDir();
    const adapter = await getAgent('claude-code');
    const path = join(root, 't.jsonl');
    writeFileSync(path, JSON.stringify({ type: 'user', uuid: 'u', message: { role: 'user', content: 'use ghp_FaKe7T0kEnF0rTeStS9xQ2mZ7vR1bN8kL3pJ now' } }) + '\n');
    const c = TranscriptCache.open(root, 's', adapter, path);
    expect(await c.prompts()).toEqual(['use REDACTED now']);
    c.save();
    expect(readFileSync(join(root, '.entire', 'tmp', 'transcript-s.json'), 'utf8')).not.toContain('ghp_');
  });
});
