#!/usr/bin/env node
// Generates src/git/checksum-wasm-module.ts: the checksums hooks compute on every commit, as one
// WebAssembly module (≈ 0.5 ms to compile and instantiate cold, where loading node:crypto costs
// 4–6 ms and the same loops in JavaScript run in V8's interpreter on a hook's first call):
//   blocks(n)        SHA-1: compress n 64-byte blocks at IN into the state at 0
//   crc32(len, crc)  CRC-32 (zlib's) of len bytes at IN, continuing from crc
//   adler32(len, st) Adler-32 of len bytes at IN, continuing from st
// `node scripts/gen-checksum-wasm.mjs` rewrites the file; test/git/checksums.test.ts checks that
// the committed bytes are what this script produces.
//
// Memory (one 64 KiB page): [0, 20) the SHA-1 state words h0..h4 (native i32), [64, 384) the
// message schedule W[0..80), [1024, 1024 + 32 KiB) the input, [TABLE, TABLE + 1 KiB) the CRC
// table, filled by the JavaScript side.
import { writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const op = {
  block: 0x02, loop: 0x03, end: 0x0b, br_if: 0x0d,
  get: 0x20, set: 0x21, tee: 0x22,
  load: 0x28, store: 0x36, const: 0x41,
  lt_u: 0x49, add: 0x6a, mul: 0x6c, and: 0x71, or: 0x72, xor: 0x73, rotl: 0x77, rotr: 0x78,
  load8_u: 0x2d, rem_u: 0x70, shl: 0x74, shr_u: 0x76, gt_u: 0x4b, select: 0x1b, eqz: 0x45,
};

function uleb(n) {
  const out = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}
function sleb(n) {
  const out = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}
const str = (s) => [...uleb(s.length), ...Buffer.from(s, 'ascii')];
const section = (id, body) => [id, ...uleb(body.length), ...body];
const vec = (items) => [...uleb(items.length), ...items.flat()];

// locals: 0 = n (param), then p, end, i, a, b, c, d, e, t
const L = { n: 0, p: 1, end: 2, i: 3, a: 4, b: 5, c: 6, d: 7, e: 8, t: 9 };
const NLOCALS = 9; // p..t, all i32
const W = 64;
const IN = 1024;
export const TABLE = IN + 32 * 1024;

const get = (l) => [op.get, l];
const set = (l) => [op.set, l];
const k = (v) => [op.const, ...sleb(v | 0)];
const load = (off = 0) => [op.load, 2, ...uleb(off)];
const store = (off = 0) => [op.store, 2, ...uleb(off)];
/** address of W[i] on the stack: W + 4 i */
const wAddr = (delta = 0) => [...get(L.i), ...k(4), op.mul, ...k(W + 4 * delta), op.add];
/** for (; i < limit; i++) body, with i already set */
const upTo = (limit, body) => [op.loop, 0x40, ...body, ...get(L.i), ...k(1), op.add, ...[op.tee, L.i], ...k(limit), op.lt_u, op.br_if, 0, op.end];

function rounds(from, to, f, kk) {
  // t = rotl(a,5) + f(b,c,d) + e + K + W[i]; e = d; d = c; c = rotl(b,30); b = a; a = t
  return [
    ...k(from), ...set(L.i),
    ...upTo(to, [
      ...get(L.a), ...k(5), op.rotl,
      ...f,
      op.add,
      ...get(L.e), op.add,
      ...k(kk), op.add,
      ...wAddr(), ...load(), op.add,
      ...set(L.t),
      ...get(L.d), ...set(L.e),
      ...get(L.c), ...set(L.d),
      ...get(L.b), ...k(30), op.rotl, ...set(L.c),
      ...get(L.a), ...set(L.b),
      ...get(L.t), ...set(L.a),
    ]),
  ];
}
const ch = [...get(L.b), ...get(L.c), op.and, ...get(L.b), ...k(-1), op.xor, ...get(L.d), op.and, op.or];
const parity = [...get(L.b), ...get(L.c), op.xor, ...get(L.d), op.xor];
const maj = [...get(L.b), ...get(L.c), op.and, ...get(L.b), ...get(L.d), op.and, op.or, ...get(L.c), ...get(L.d), op.and, op.or];

const stateVars = [L.a, L.b, L.c, L.d, L.e];
const body = [
  ...k(IN), ...set(L.p),
  ...k(IN), ...get(L.n), ...k(64), op.mul, op.add, ...set(L.end),
  op.block, 0x40,
  // n = 0: nothing to do
  ...get(L.p), ...get(L.end), op.lt_u, op.eqz, op.br_if, 0,
  op.loop, 0x40,
  // W[0..16): the block's big-endian words
  ...k(0), ...set(L.i),
  ...upTo(16, [
    ...wAddr(),
    ...get(L.p), ...get(L.i), ...k(4), op.mul, op.add, ...load(), ...set(L.t),
    // bswap: (rotl(t, 8) & 0x00ff00ff) | (rotr(t, 8) & 0xff00ff00)
    ...get(L.t), ...k(8), op.rotl, ...k(0x00ff00ff), op.and,
    ...get(L.t), ...k(8), op.rotr, ...k(0xff00ff00), op.and,
    op.or,
    ...store(),
  ]),
  // W[16..80) = rotl(W[i-3] ^ W[i-8] ^ W[i-14] ^ W[i-16], 1)
  ...upTo(80, [
    ...wAddr(),
    ...wAddr(-3), ...load(), ...wAddr(-8), ...load(), op.xor, ...wAddr(-14), ...load(), op.xor, ...wAddr(-16), ...load(), op.xor,
    ...k(1), op.rotl,
    ...store(),
  ]),
  // a..e = h0..h4
  ...stateVars.flatMap((v, j) => [...k(0), ...load(4 * j), ...set(v)]),
  ...rounds(0, 20, ch, 0x5a827999),
  ...rounds(20, 40, parity, 0x6ed9eba1),
  ...rounds(40, 60, maj, 0x8f1bbcdc),
  ...rounds(60, 80, parity, 0xca62c1d6),
  // h += a..e
  ...stateVars.flatMap((v, j) => [...k(0), ...k(0), ...load(4 * j), ...get(v), op.add, ...store(4 * j)]),
  ...get(L.p), ...k(64), op.add, ...[op.tee, L.p], ...get(L.end), op.lt_u, op.br_if, 0,
  op.end, // loop
  op.end, // block
  op.end, // function
];
// one group of NLOCALS i32 locals, then the body
const sha1Fn = [...uleb(1), ...uleb(NLOCALS), 0x7f, ...body];

// crc32(len, crc): locals 0 = len, 1 = crc, then p, end, c
const C = { len: 0, crc: 1, p: 2, end: 3, c: 4 };
const crcFn = [
  ...uleb(1), ...uleb(3), 0x7f,
  ...k(IN), ...set(C.p),
  ...k(IN), ...get(C.len), op.add, ...set(C.end),
  ...get(C.crc), ...k(-1), op.xor, ...set(C.c),
  op.block, 0x40,
  ...get(C.p), ...get(C.end), op.lt_u, op.eqz, op.br_if, 0,
  op.loop, 0x40,
  // c = TABLE[(c ^ byte) & 255] ^ (c >>> 8)
  ...get(C.c), ...get(C.p), op.load8_u, 0, 0, op.xor, ...k(255), op.and, ...k(4), op.mul, ...load(TABLE),
  ...get(C.c), ...k(8), op.shr_u, op.xor, ...set(C.c),
  ...get(C.p), ...k(1), op.add, ...[op.tee, C.p], ...get(C.end), op.lt_u, op.br_if, 0,
  op.end,
  op.end,
  ...get(C.c), ...k(-1), op.xor,
  op.end,
];

// adler32(len, st): locals 0 = len, 1 = st, then p, end, a, s, stop
const A = { len: 0, st: 1, p: 2, end: 3, a: 4, s: 5, stop: 6 };
const adlerFn = [
  ...uleb(1), ...uleb(5), 0x7f,
  ...k(IN), ...set(A.p),
  ...k(IN), ...get(A.len), op.add, ...set(A.end),
  ...get(A.st), ...k(0xffff), op.and, ...set(A.a),
  ...get(A.st), ...k(16), op.shr_u, ...set(A.s),
  op.block, 0x40,
  ...get(A.p), ...get(A.end), op.lt_u, op.eqz, op.br_if, 0,
  op.loop, 0x40,
  // stop = min(p + 5552, end): 5552 bytes is the most before the sums can overflow (zlib's NMAX)
  ...get(A.end), ...get(A.p), ...k(5552), op.add, ...get(A.p), ...k(5552), op.add, ...get(A.end), op.gt_u, op.select, ...set(A.stop),
  op.loop, 0x40,
  ...get(A.a), ...get(A.p), op.load8_u, 0, 0, op.add, ...[op.tee, A.a], ...get(A.s), op.add, ...set(A.s),
  ...get(A.p), ...k(1), op.add, ...[op.tee, A.p], ...get(A.stop), op.lt_u, op.br_if, 0,
  op.end,
  ...get(A.a), ...k(65521), op.rem_u, ...set(A.a),
  ...get(A.s), ...k(65521), op.rem_u, ...set(A.s),
  ...get(A.p), ...get(A.end), op.lt_u, op.br_if, 0,
  op.end,
  op.end,
  ...get(A.s), ...k(16), op.shl, ...get(A.a), op.or,
  op.end,
];

export function checksumWasmBytes() {
  const fns = [sha1Fn, crcFn, adlerFn];
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vec([[0x60, 1, 0x7f, 0], [0x60, 2, 0x7f, 0x7f, 1, 0x7f]])), // (i32) -> (), (i32, i32) -> i32
    ...section(3, vec([[0], [1], [1]])),
    ...section(5, vec([[0x00, 1]])), // one memory, min 1 page
    ...section(7, vec([[...str('mem'), 0x02, 0], [...str('blocks'), 0x00, 0], [...str('crc32'), 0x00, 1], [...str('adler32'), 0x00, 2]])),
    ...section(10, vec(fns.map((f) => [...uleb(f.length), ...f]))),
    // the CRC table as an active data segment: in memory at instantiation, not filled by JavaScript
    ...section(11, vec([[0x00, ...k(TABLE), op.end, ...uleb(1024), ...crcTableBytes()]])),
  ]);
}

/** zlib's CRC-32 table (polynomial 0xedb88320), little-endian as WebAssembly memory is. */
function crcTableBytes() {
  const out = [];
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let j = 0; j < 8; j++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    out.push(c & 255, (c >>> 8) & 255, (c >>> 16) & 255, c >>> 24);
  }
  return out;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const bytes = checksumWasmBytes();
  const out = `// Generated by scripts/gen-checksum-wasm.mjs: do not edit (test/git/checksums.test.ts checks it).
// SHA-1 blocks, CRC-32 and Adler-32 as one WebAssembly module (${bytes.length} bytes).
export const CHECKSUM_WASM_BASE64 =
  '${Buffer.from(bytes).toString('base64')}';
`;
  writeFileSync(join(root, 'src', 'git', 'checksum-wasm-module.ts'), out);
  process.stdout.write(`wrote src/git/checksum-wasm-module.ts (${bytes.length} bytes of wasm)\n`);
}
