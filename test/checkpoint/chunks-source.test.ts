/** SPEC §2.7 chunking over a ByteSource (SPEC-2 §A.6) gives the chunks chunkJsonl gives over a Buffer. */
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { chunkJsonl, chunkJsonlSource, contentHash, contentHashOf, lineGroupRanges, lineGroupRangesOf } from '../../src/checkpoint/chunks.js';
import { BufferSource, ConcatSource, type ByteSource } from '../../src/byte-source.js';

/** A source read in pieces of a few bytes, so every piece boundary falls somewhere in a line. */
class Tiny extends BufferSource {
  constructor(buf: Buffer, private readonly piece: number) {
    super(buf);
  }
  override *pieces(start = 0, end = this.size): Generator<Buffer> {
    yield* super.pieces(start, end, this.piece);
  }
}

const jsonl = fc
  .array(fc.oneof(fc.string({ maxLength: 5 }), fc.string({ minLength: 6, maxLength: 30 })), { maxLength: 25 })
  .chain((lines) => fc.boolean().map((nl) => Buffer.from(lines.map((l) => l.replace(/\n/g, '.')).join('\n') + (nl ? '\n' : ''), 'utf8')));

describe('chunking a source', () => {
  it('chunkJsonlSource equals chunkJsonl, omitted lines included', () => {
    fc.assert(
      fc.property(jsonl, fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 9 }), (content, max, piece) => {
        const want = chunkJsonl(content, max);
        const got = chunkJsonlSource(new Tiny(content, piece), max).map((c: ByteSource) => c.readAll());
        expect(got.map((b) => b.toString('utf8'))).toEqual(want.map((b) => b.toString('utf8')));
        for (const [i, c] of got.entries()) expect(c.equals(want[i]!)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('lineGroupRangesOf equals lineGroupRanges', () => {
    fc.assert(
      fc.property(jsonl, fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 9 }), (content, max, piece) => {
        expect(lineGroupRangesOf(new Tiny(content, piece), max)).toEqual(lineGroupRanges(content, max));
      }),
      { numRuns: 500 },
    );
  });

  it('the content hash and reads across joined sources', () => {
    const a = Buffer.from('{"a":1}\n{"b":2}\n');
    const b = Buffer.from('{"c":3}');
    const src = new ConcatSource([new Tiny(a, 2), new BufferSource(b)]);
    const all = Buffer.concat([a, b]);
    expect(contentHashOf(src)).toBe(contentHash(all));
    expect(contentHashOf(src)).toBe('sha256:' + createHash('sha256').update(all).digest('hex'));
    for (let s = 0; s < all.length; s++) for (let e = s; e <= all.length; e++) expect(src.slice(s, e).readAll().equals(all.subarray(s, e))).toBe(true);
  });
});
