/**
 * The WebAssembly SHA-1 (src/git/sha1.ts) must agree with node:crypto for
 * every length around the block and chunk boundaries, however the input is
 * split, with hashers interleaved; and the committed module bytes must be
 * exactly what scripts/gen-sha1-wasm.mjs produces.
 */
import { describe, it, expect } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { createHasher, sha1Hex } from '../../src/git/sha1.js';
import { SHA1_WASM_BASE64 } from '../../src/git/sha1-wasm-module.js';
// @ts-expect-error plain .mjs build script without types
import { sha1WasmBytes } from '../../scripts/gen-sha1-wasm.mjs';

const ref = (b: Uint8Array | string) => createHash('sha1').update(b).digest('hex');

describe('WebAssembly SHA-1 (src/git/sha1.ts)', () => {
  it('matches node:crypto on every length from 0 to 300 bytes and on known answers', () => {
    expect(sha1Hex('')).toBe('da39a3ee5e6b4b0d3255bfef95601890afd80709');
    expect(sha1Hex('abc')).toBe('a9993e364706816aba3e25717850c26c9cd0d89d');
    for (let len = 0; len <= 300; len++) {
      const b = randomBytes(len);
      expect(sha1Hex(b), `length ${len}`).toBe(ref(b));
    }
  });

  it('matches node:crypto across the 32 KiB chunk boundary and for megabytes', () => {
    for (const len of [32767, 32768, 32769, 65536 + 55, 3 * 1024 * 1024 + 7]) {
      const b = randomBytes(len);
      expect(sha1Hex(b), `length ${len}`).toBe(ref(b));
    }
  });

  it('gives the same digest however the input is split, with hashers interleaved', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 5000 }), fc.array(fc.nat(5000), { maxLength: 8 }), fc.string(), (data, cuts, other) => {
        const h = createHasher('sha1');
        const o = createHasher('sha1'); // a second hasher in between must not disturb the first
        const points = [...new Set(cuts.map((c) => c % (data.length + 1)))].sort((a, b) => a - b);
        let at = 0;
        for (const p of [...points, data.length]) {
          h.update(data.subarray(at, p));
          o.update(other);
          at = p;
        }
        expect(h.digestHex()).toBe(ref(data));
        expect(o.digestHex()).toBe(ref(other.repeat(points.length + 1)));
      }),
      { numRuns: 300 },
    );
  });

  it('hashes strings as UTF-8, like git object headers and node:crypto', () => {
    expect(createHasher('sha1').update('blob 4\0').update('ü\n').digestHex()).toBe(ref(Buffer.concat([Buffer.from('blob 4\0'), Buffer.from('ü\n')])));
  });

  it('uses node:crypto for SHA-256 and when turned off', () => {
    expect(createHasher('sha256').update('abc').digestHex()).toBe(createHash('sha256').update('abc').digest('hex'));
    const before = process.env['ENTIRE_WASM_SHA1'];
    process.env['ENTIRE_WASM_SHA1'] = '0';
    try {
      expect(createHasher('sha1').update('abc').digestHex()).toBe(ref('abc'));
    } finally {
      if (before === undefined) delete process.env['ENTIRE_WASM_SHA1'];
      else process.env['ENTIRE_WASM_SHA1'] = before;
    }
  });

  it('refuses a second digest', () => {
    const h = createHasher('sha1').update('x');
    h.digestHex();
    expect(() => h.digestHex()).toThrow(/already/);
  });

  it('ships exactly the module the generator builds', () => {
    expect(Buffer.from(sha1WasmBytes()).toString('base64')).toBe(SHA1_WASM_BASE64);
  });
});
