/** SPEC-2 §A.7's strict-extension test on transcripts read in pieces equals the test on whole buffers. */
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { strictExtension } from '../../src/sync/extends.js';

async function* pieces(b: Buffer, cuts: number[]): AsyncGenerator<Buffer> {
  let at = 0;
  for (const c of [...cuts].sort((x, y) => x - y)) {
    const to = Math.min(b.length, c);
    if (to < at) continue;
    yield b.subarray(at, to);
    at = to;
  }
  yield b.subarray(at);
}

describe('strictExtension', () => {
  it('agrees with the whole-buffer rule, however the two sides are cut', async () => {
    const bytes = fc.uint8Array({ maxLength: 24 }).map((a) => Buffer.from(a));
    await fc.assert(
      fc.asyncProperty(bytes, bytes, fc.boolean(), fc.array(fc.nat(30)), fc.array(fc.nat(30)), async (a, tail, prefix, cutsA, cutsB) => {
        // half the cases: theirs starts with ours
        const mine = a;
        const theirs = prefix ? Buffer.concat([a, tail]) : tail;
        const want = theirs.length > mine.length && theirs.subarray(0, mine.length).equals(mine);
        const got = await strictExtension(pieces(mine, cutsA), pieces(theirs, cutsB));
        expect(got.extends).toBe(want);
        if (want) expect(got.sha256).toBe(createHash('sha256').update(theirs).digest('hex'));
      }),
      { numRuns: 500 },
    );
  });
});
