/**
 * The WebAssembly checksums (src/git/checksums.ts) must agree with
 * node:crypto and node:zlib: SHA-1 for every length around the block and
 * chunk boundaries, however the input is split, with hashers interleaved;
 * CRC-32 and Adler-32 likewise, with and without WebAssembly. The committed
 * module bytes must be exactly what scripts/gen-checksum-wasm.mjs produces.
 */
import { describe, it, expect } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { deflateSync, crc32 as zlibCrc32 } from 'node:zlib';
import { createHasher, sha1Hex, crc32, adler32 } from '../../src/git/checksums.js';
import { CHECKSUM_WASM_BASE64 } from '../../src/git/checksum-wasm-module.js';
// @ts-expect-error plain .mjs build script without types
import { checksumWasmBytes } from '../../scripts/gen-checksum-wasm.mjs';

const ref = (b: Uint8Array | string) => createHash('sha1').update(b).digest('hex');

/** The Adler-32 zlib puts at the end of a stream. */
const zlibAdler = (b: Uint8Array) => deflateSync(b).readUInt32BE(deflateSync(b).length - 4);

function withoutWasm<T>(fn: () => T): T {
  const before = process.env['ENTIRE_WASM'];
  process.env['ENTIRE_WASM'] = '0';
  try {
    return fn();
  } finally {
    if (before === undefined) delete process.env['ENTIRE_WASM'];
    else process.env['ENTIRE_WASM'] = before;
  }
}

describe('CRC-32 and Adler-32 (src/git/checksums.ts)', () => {
  it('match zlib on known answers, every short length and across the chunk boundary, with and without WebAssembly', () => {
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
    expect(adler32(Buffer.from('Wikipedia'))).toBe(0x11e60398);
    expect(adler32(Buffer.alloc(0))).toBe(1);
    for (const len of [...Array.from({ length: 70 }, (_, i) => i), 5551, 5552, 5553, 32767, 32768, 32769, 200_000]) {
      const b = randomBytes(len);
      const ff = Buffer.alloc(len, 0xff); // the worst case for Adler's sums
      expect(crc32(b), `crc ${len}`).toBe(zlibCrc32(b));
      expect(adler32(b), `adler ${len}`).toBe(zlibAdler(b));
      expect(adler32(ff), `adler ff ${len}`).toBe(zlibAdler(ff));
      withoutWasm(() => {
        expect(crc32(b), `js crc ${len}`).toBe(zlibCrc32(b));
        expect(adler32(ff), `js adler ${len}`).toBe(zlibAdler(ff));
      });
    }
  });

  it('continue from an earlier value', () => {
    const b = randomBytes(10_000);
    expect(crc32(b.subarray(3000), crc32(b.subarray(0, 3000)))).toBe(zlibCrc32(b));
    expect(adler32(b.subarray(3000), adler32(b.subarray(0, 3000)))).toBe(zlibAdler(b));
  });
});

describe('WebAssembly SHA-1 (src/git/checksums.ts)', () => {
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
    withoutWasm(() => expect(createHasher('sha1').update('abc').digestHex()).toBe(ref('abc')));
  });

  it('refuses a second digest', () => {
    const h = createHasher('sha1').update('x');
    h.digestHex();
    expect(() => h.digestHex()).toThrow(/already/);
  });

  it('ships exactly the module the generator builds', () => {
    expect(Buffer.from(checksumWasmBytes()).toString('base64')).toBe(CHECKSUM_WASM_BASE64);
  });
});
