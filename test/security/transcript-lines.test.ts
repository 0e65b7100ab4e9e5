/** SPEC-2 §A.6: transcripts are read in bounded, line-aligned windows; overlong lines are never held. */
import { describe, it, expect, afterAll } from 'vitest';
import { closeSync, openSync, writeFileSync, appendFileSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import fc from 'fast-check';
import { lineWindows, MAX_LINE_BYTES, omittedRecord } from '../../src/trust/transcript-lines.js';
import { redactJsonlFileIncremental, updateRedactionCache } from '../../src/redact/incremental.js';
import { redactJsonl } from '../../src/redact/index.js';
import { tempDir, cleanupAll, FIXTURES } from '../helpers/repo.js';
import { getAgent } from '../../src/agents/registry.js';

afterAll(cleanupAll);

function windowsOf(content: Buffer, readBytes: number, maxLine: number) {
  const p = join(tempDir(), 't.jsonl');
  writeFileSync(p, content);
  const fd = openSync(p, 'r');
  try {
    return [...lineWindows(fd, 0, content.length, { readBytes, maxLine })];
  } finally {
    closeSync(fd);
  }
}

describe('lineWindows', () => {
  it('gives back every line, in order, in windows no larger than a read or one line', () => {
    const line = fc.oneof(fc.string({ maxLength: 6 }), fc.string({ minLength: 10, maxLength: 40 }));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 30 }), fc.boolean(), fc.integer({ min: 1, max: 16 }), fc.integer({ min: 1, max: 24 }), (lines, finalNl, readBytes, maxLine) => {
        const text = lines.map((l) => l.replace(/\n/g, ' ')).join('\n') + (finalNl && lines.length > 0 ? '\n' : '');
        const content = Buffer.from(text, 'utf8');
        const ws = windowsOf(content, readBytes, maxLine);
        // rebuild the file from the windows: lines verbatim, oversized ones by length and hash
        let at = 0;
        for (const w of ws) {
          expect(w.start).toBe(at);
          if (w.kind === 'lines') {
            expect(content.subarray(at, at + w.buf.length).equals(w.buf)).toBe(true);
            expect(w.buf.length).toBeLessThanOrEqual(Math.max(readBytes, maxLine + 1));
            expect(w.buf[w.buf.length - 1] === 10).toBe(w.terminated);
            at += w.buf.length;
          } else {
            expect(w.bytes).toBeGreaterThan(maxLine);
            const bytes = content.subarray(at, at + w.bytes);
            expect(bytes.includes(10)).toBe(false);
            expect(w.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
            at += w.bytes + (w.terminated ? 1 : 0);
            if (w.terminated) expect(content[at - 1]).toBe(10);
          }
        }
        expect(at).toBe(content.length);
        // only the last window may be unterminated
        ws.slice(0, -1).forEach((w) => expect(w.terminated).toBe(true));
      }),
      { numRuns: 300 },
    );
  });
});

describe('the redaction cache reads in windows', () => {
  const secret = 'ghp_FaKe7T0kEnF0rTeStS9xQ2mZ7vR1bN8kL3pJ';
  const line = (text: string) => JSON.stringify({ type: 'assistant', uuid: 'u', message: { content: [{ type: 'text', text }] } });

  it('equals whole-text redaction when lines straddle 1 MiB reads, however the appends fall', async () => {
    const d = tempDir();
    const src = join(d, 's.jsonl');
    // lines of 0.3–1.7 MiB with a secret at their start and end: every read boundary cuts one
    const lines = [0.3, 1.7, 0.9, 1.2, 0.5].map((mb, i) => line(`${secret} ${'x'.repeat(Math.floor(mb * 1024 * 1024))} ${i} ${secret}`));
    writeFileSync(src, lines.slice(0, 2).join('\n') + '\n' + lines[2]!.slice(0, 1000));
    const opts = { sourcePath: src, cacheDir: join(d, 'cache'), key: 'k' };
    const r1 = await redactJsonlFileIncremental(opts);
    expect(r1.text).toBe(redactJsonl(readFileSync(src, 'utf8')));
    appendFileSync(src, lines[2]!.slice(1000) + '\n' + lines.slice(3).join('\n') + '\n');
    const r2 = await redactJsonlFileIncremental(opts);
    expect(r2.rebuilt).toBe(false);
    expect(r2.text).toBe(redactJsonl(readFileSync(src, 'utf8')));
    expect(r2.text).not.toContain(secret);
  });

  it(`stores a line over ${MAX_LINE_BYTES} bytes as an entire-omitted record and redacts the lines around it`, async () => {
    const d = tempDir();
    const src = join(d, 's.jsonl');
    const huge = line(`${secret} ${'y'.repeat(MAX_LINE_BYTES)}`);
    writeFileSync(src, line(`before ${secret}`) + '\n' + huge + '\n' + line(`after ${secret}`) + '\n' + huge);
    const opts = { sourcePath: src, cacheDir: join(d, 'cache'), key: 'k' };
    const u = await updateRedactionCache(opts);
    const marker = omittedRecord(Buffer.byteLength(huge), createHash('sha256').update(huge).digest('hex'));
    const expected = [redactJsonl(line(`before ${secret}`)), marker, redactJsonl(line(`after ${secret}`))].join('\n') + '\n';
    expect(readFileSync(u.outputPath, 'utf8').slice(0, u.outputBytes)).toBe(expected);
    // the unterminated huge last line: the record is the tail, the cursor stays before it
    expect(u.tail).toBe(marker);
    expect(u.appended).toBe(expected);
    appendFileSync(src, '\n');
    const again = await redactJsonlFileIncremental(opts);
    expect(again.rebuilt).toBe(false);
    expect(again.text).toBe(expected + marker + '\n');
    expect(again.text).not.toContain(secret);
  });
});

describe('the transcript analysers read in windows', () => {
  it('give the analysis of the whole text, from any line and cursor, for a transcript of many windows', async () => {
    const adapter = await getAgent('claude-code');
    const fixture = readFileSync(join(FIXTURES, 'transcripts', 'claude-small.jsonl'), 'utf8').split('\n').filter(Boolean);
    // the fixture's turns between progress lines of 0.2–0.7 MiB: windows end everywhere
    const pad = (n: number) => JSON.stringify({ type: 'progress', uuid: `p-${n}`, data: 'z'.repeat(200_000 + ((n * 97_531) % 500_000)) });
    const lines: string[] = [];
    for (let round = 0; round < 3; round++) fixture.forEach((l, i) => lines.push(l, ...(i % 4 === 0 ? [pad(round * 100 + i)] : [])));
    const p = join(tempDir(), 't.jsonl');
    writeFileSync(p, lines.join('\n') + '\n' + fixture[3]!.slice(0, 50));
    const text = readFileSync(p, 'utf8');
    const { analyzeJsonl } = await import('../../src/agents/kit/jsonl.js');
    const { CLAUDE_DIALECT } = await import('../../src/agents/claude-code/transcript.js');
    for (const from of [0, 7, lines.length - 3]) {
      const whole = analyzeJsonl(text, CLAUDE_DIALECT, { fromLine: from });
      const r = adapter.analyzeTranscriptFile(p, { from });
      expect(r.analysis).toEqual(whole);
      // and again from the cursor it left, after more lines
      expect(r.cursor!.line).toBe(whole.position - 1);
    }
    const pos = adapter.transcriptPosition(p);
    expect(pos.position).toBe(lines.length + 1);
    const whole = analyzeJsonl(text, CLAUDE_DIALECT);
    expect(pos.lastIdentifier).toBe(whole.lastIdentifier);
    const first = adapter.analyzeTranscriptFile(p, { from: 0 });
    appendFileSync(p, fixture[3]!.slice(50) + '\n' + lines.slice(0, 20).join('\n') + '\n');
    const resumed = adapter.analyzeTranscriptFile(p, { from: first.cursor!.line, cursor: first.cursor });
    const all = analyzeJsonl(readFileSync(p, 'utf8'), CLAUDE_DIALECT, { fromLine: first.cursor!.line });
    expect(resumed.analysis.position).toBe(all.position);
    expect(resumed.analysis.prompts).toEqual(all.prompts);
    expect(resumed.analysis.tokenUsage).toEqual(all.tokenUsage);
  });
});
