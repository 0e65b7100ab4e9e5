/** The benchmark function runs and finds exactly the planted secrets (no timing assertion: SPEC §10). */
import { describe, it, expect } from 'vitest';
import { benchRedaction, buildBenchTranscript } from '../../src/redact/bench.js';
import { redactJsonl } from '../../src/redact/index.js';

describe('benchRedaction', () => {
  it('builds a realistic transcript and reports a throughput', () => {
    const text = buildBenchTranscript(2 * 1024 * 1024, 7);
    expect(text.endsWith('\n')).toBe(true);
    const lines = text.split('\n').slice(0, -1);
    for (const l of lines.slice(0, 50)) JSON.parse(l);
    const r = benchRedaction({ text, runs: 1 });
    expect(r.bytes).toBe(Buffer.byteLength(text));
    expect(r.lines).toBe(lines.length);
    expect(r.mbPerSec).toBeGreaterThan(0);
    // only lines with a planted secret change
    const planted = /AKIA|ghp_|sk-ant-|postgres:\/\/app:|xoxb-/;
    const out = redactJsonl(text).split('\n');
    let changed = 0;
    lines.forEach((l, i) => {
      if (out[i] !== l) {
        changed++;
        expect(l).toMatch(planted);
      }
    });
    expect(changed).toBe(r.changedLines);
    expect(changed).toBeGreaterThan(0);
  });
});
