/** Incremental redaction of append-only transcripts (SPEC §3.3 SHOULD). */
import { describe, it, expect, afterAll } from 'vitest';
import { appendFileSync, readFileSync, writeFileSync, readdirSync, existsSync, truncateSync, rmSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import {
  redactJsonlFileIncremental,
  updateRedactionCache,
  redactionCachePaths,
  cacheKeyName,
  removeRedactionCache,
} from '../../src/redact/incremental.js';
import { redactJsonl } from '../../src/redact/index.js';
import { FIXTURES, tempDir, cleanupAll } from '../helpers/repo.js';

afterAll(cleanupAll);

const fixture = readFileSync(join(FIXTURES, 'transcripts', 'claude-secrets.jsonl'), 'utf8');
const lines = fixture.split('\n').filter((l) => l !== '');

function setup(): { src: string; cacheDir: string; key: string } {
  const d = tempDir();
  const src = join(d, 'session.jsonl');
  writeFileSync(src, '');
  return { src, cacheDir: join(d, '.entire', 'tmp', 'redact'), key: 'c4d8e2a1-6f3b-47c9-9e05-b8a1d3f6e2c7' };
}

describe('redactJsonlFileIncremental', () => {
  it('equals full redaction after every append, reading only the new bytes', async () => {
    const { src, cacheDir, key } = setup();
    let total = 0;
    for (let i = 0; i < lines.length; i += 3) {
      const chunk = lines.slice(i, i + 3).join('\n') + '\n';
      appendFileSync(src, chunk);
      const r = await redactJsonlFileIncremental({ sourcePath: src, cacheDir, key });
      expect(r.text).toBe(redactJsonl(readFileSync(src, 'utf8')));
      expect(r.newBytes).toBe(Buffer.byteLength(chunk));
      expect(r.rebuilt).toBe(i === 0);
      total += Buffer.byteLength(chunk);
      expect(r.sourceBytes).toBe(total);
    }
    // nothing new: nothing read
    const again = await redactJsonlFileIncremental({ sourcePath: src, cacheDir, key });
    expect(again.newBytes).toBe(0);
    expect(again.text).toBe(redactJsonl(fixture));
    expect(again.text).not.toContain('ghp_FaKe7T0kEnF0rTeStS9xQ2mZ7vR1bN8kL3pJ');
    // no temp or lock files left
    expect(readdirSync(cacheDir).sort()).toEqual([`${key}.cursor.json`, `${key}.redacted.jsonl`]);
  });

  it('an unterminated last line is in the text but the cursor stays before it', async () => {
    const { src, cacheDir, key } = setup();
    writeFileSync(src, lines[0] + '\n' + lines[1]!.slice(0, 200));
    const r1 = await redactJsonlFileIncremental({ sourcePath: src, cacheDir, key });
    expect(r1.text).toBe(redactJsonl(readFileSync(src, 'utf8')));
    const cursor = JSON.parse(readFileSync(redactionCachePaths(cacheDir, key).cursor, 'utf8')) as { offset: number };
    expect(cursor.offset).toBe(Buffer.byteLength(lines[0] + '\n'));
    appendFileSync(src, lines[1]!.slice(200) + '\n');
    const r2 = await redactJsonlFileIncremental({ sourcePath: src, cacheDir, key });
    expect(r2.rebuilt).toBe(false);
    expect(r2.newBytes).toBe(Buffer.byteLength(lines[1] + '\n'));
    expect(r2.text).toBe(redactJsonl(lines[0] + '\n' + lines[1] + '\n'));
    expect(r2.text).not.toContain('AKIAFAKE2TESTKEY7ZQX');
  });

  it('a truncated or replaced source is redone from scratch', async () => {
    const { src, cacheDir, key } = setup();
    writeFileSync(src, lines.slice(0, 6).join('\n') + '\n');
    await redactJsonlFileIncremental({ sourcePath: src, cacheDir, key });
    // shrink
    writeFileSync(src, lines.slice(0, 2).join('\n') + '\n');
    const r1 = await redactJsonlFileIncremental({ sourcePath: src, cacheDir, key });
    expect(r1.rebuilt).toBe(true);
    expect(r1.text).toBe(redactJsonl(readFileSync(src, 'utf8')));
    // same size or larger but different prefix
    writeFileSync(src, lines.slice(3, 9).join('\n') + '\n');
    const r2 = await redactJsonlFileIncremental({ sourcePath: src, cacheDir, key });
    expect(r2.rebuilt).toBe(true);
    expect(r2.text).toBe(redactJsonl(readFileSync(src, 'utf8')));
  });

  it('a damaged cache (torn output, garbage cursor) is rebuilt, never trusted', async () => {
    const { src, cacheDir, key } = setup();
    writeFileSync(src, lines.slice(0, 6).join('\n') + '\n');
    await redactJsonlFileIncremental({ sourcePath: src, cacheDir, key });
    const p = redactionCachePaths(cacheDir, key);
    truncateSync(p.output, 10);
    appendFileSync(src, lines[6] + '\n');
    const r1 = await redactJsonlFileIncremental({ sourcePath: src, cacheDir, key });
    expect(r1.rebuilt).toBe(true);
    expect(r1.text).toBe(redactJsonl(readFileSync(src, 'utf8')));
    writeFileSync(p.cursor, '{not json');
    const r2 = await redactJsonlFileIncremental({ sourcePath: src, cacheDir, key });
    expect(r2.rebuilt).toBe(true);
    expect(r2.text).toBe(redactJsonl(readFileSync(src, 'utf8')));
    // bytes past the cursor's outBytes (a crash after append) are cut off
    appendFileSync(p.output, 'GARBAGE\n');
    appendFileSync(src, lines[7] + '\n');
    const r3 = await redactJsonlFileIncremental({ sourcePath: src, cacheDir, key });
    expect(r3.rebuilt).toBe(false);
    expect(r3.text).toBe(redactJsonl(readFileSync(src, 'utf8')));
  });

  it('an unchanged source is answered from the cursor alone; a same-size rewrite with a new mtime is not', async () => {
    const { src, cacheDir, key } = setup();
    writeFileSync(src, lines.slice(0, 6).join('\n') + '\n');
    const first = await updateRedactionCache({ sourcePath: src, cacheDir, key });
    const p = redactionCachePaths(cacheDir, key);
    // held lock: the full path would wait for it (and then redact without the cache); the quick one needs none
    writeFileSync(p.lock, '99999');
    const again = await updateRedactionCache({ sourcePath: src, cacheDir, key });
    expect(again).toMatchObject({ cached: true, rebuilt: false, newBytes: 0, outputBytes: first.outputBytes, appended: '' });
    rmSync(p.lock);
    // same length, other bytes, later mtime: fully checked, and redone
    const swapped = lines.slice(1, 7).join('\n') + '\n';
    const same = swapped.length === readFileSync(src, 'utf8').length ? swapped : readFileSync(src, 'utf8').replace(/[a-z]/, (c) => (c === 'a' ? 'b' : 'a'));
    writeFileSync(src, same);
    utimesSync(src, new Date(), new Date(Date.now() + 5000));
    const r = await redactJsonlFileIncremental({ sourcePath: src, cacheDir, key });
    expect(r.text).toBe(redactJsonl(readFileSync(src, 'utf8')));
  });

  it('concurrent calls for one key agree and leave a consistent cache', async () => {
    const { src, cacheDir, key } = setup();
    writeFileSync(src, lines.join('\n') + '\n');
    const rs = await Promise.all([1, 2, 3, 4].map(() => redactJsonlFileIncremental({ sourcePath: src, cacheDir, key })));
    for (const r of rs) expect(r.text).toBe(redactJsonl(fixture));
    const u = await updateRedactionCache({ sourcePath: src, cacheDir, key });
    expect(u.cached).toBe(true);
    expect(u.newBytes).toBe(0);
    expect(readFileSync(u.outputPath, 'utf8')).toBe(redactJsonl(fixture));
  });

  it('keys are made safe for file names; removeRedactionCache deletes the files', async () => {
    expect(cacheKeyName('c4d8e2a1-6f3b-47c9-9e05-b8a1d3f6e2c7')).toBe('c4d8e2a1-6f3b-47c9-9e05-b8a1d3f6e2c7');
    for (const bad of ['../../etc/passwd', 'a/b', '', '.hidden', 'x'.repeat(300), 'a..b']) {
      expect(cacheKeyName(bad)).toMatch(/^k-[0-9a-f]{40}$/);
    }
    const { src, cacheDir } = setup();
    writeFileSync(src, lines[0] + '\n');
    await redactJsonlFileIncremental({ sourcePath: src, cacheDir, key: '../escape' });
    expect(readdirSync(cacheDir).every((f) => f.startsWith('k-'))).toBe(true);
    await removeRedactionCache(cacheDir, '../escape');
    expect(readdirSync(cacheDir)).toEqual([]);
    expect(existsSync(join(cacheDir, '..', 'escape.cursor.json'))).toBe(false);
  });
});
