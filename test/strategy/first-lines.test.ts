import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { firstLinesOf } from '../../src/strategy/transcript.js';
import { BufferSource } from '../../src/byte-source.js';

/** The rule as it was stated on text, before transcripts were read in pieces. */
function firstLines(text: string, lines: number): string {
  if (lines <= 0) return '';
  let idx = -1;
  for (let i = 0; i < lines; i++) {
    idx = text.indexOf('\n', idx + 1);
    if (idx < 0) return text;
  }
  return text.slice(0, idx + 1);
}

class Tiny extends BufferSource {
  override *pieces(start = 0, end = this.size): Generator<Buffer> {
    yield* super.pieces(start, end, 3);
  }
}

describe('firstLinesOf', () => {
  it('cuts a transcript after its n-th line, reading in pieces', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 8 }), { maxLength: 10 }), fc.boolean(), fc.integer({ min: -1, max: 12 }), (ls, nl, n) => {
        const text = ls.map((l) => l.replace(/\n/g, '')).join('\n') + (nl ? '\n' : '');
        expect(firstLinesOf(new Tiny(Buffer.from(text)), n).readAll().toString()).toBe(firstLines(text, n));
      }),
    );
  });
});
