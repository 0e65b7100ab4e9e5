/**
 * A small zlib (RFC 1950/1951) decoder for small objects. Hooks read a few
 * commits and trees, a few hundred bytes each; loading node:zlib for them
 * (it pulls in the stream machinery) costs about 2 ms, decoding them here
 * microseconds. Large inputs go to node:zlib (see `inflateObject`).
 */
import { zlib } from '../builtins.js';

/** Inputs at most this big are decoded here. */
const SMALL = 64 * 1024;

export class InflateError extends Error {}

interface Huffman {
  counts: Uint16Array; // number of codes of each length
  symbols: Uint16Array; // symbols ordered by code
  /** 9 low bits of the stream (LSB-first) → (symbol << 4 | length), for codes ≤ 9 bits; 0 = longer code. */
  fast: Int32Array;
}

const FAST_BITS = 9;

const LEN_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
const LEN_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DIST_BASE = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577];
const DIST_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];
const CL_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

function build(lengths: ArrayLike<number>, n: number): Huffman {
  const counts = new Uint16Array(16);
  for (let i = 0; i < n; i++) counts[lengths[i]!]!++;
  counts[0] = 0;
  const offs = new Uint16Array(16);
  for (let i = 1; i < 16; i++) offs[i] = offs[i - 1]! + counts[i - 1]!;
  const symbols = new Uint16Array(n);
  for (let i = 0; i < n; i++) if (lengths[i]) symbols[offs[lengths[i]!]!++] = i;
  // canonical codes (RFC 1951 §3.2.2), bit-reversed: the stream sends them MSB first
  const next = new Uint16Array(16);
  for (let len = 1, code = 0; len < 16; len++) {
    code = (code + counts[len - 1]!) << 1;
    next[len] = code;
  }
  const fast = new Int32Array(1 << FAST_BITS);
  for (let sym = 0; sym < n; sym++) {
    const len = lengths[sym]!;
    if (!len) continue;
    const code = next[len]!++;
    if (len > FAST_BITS) continue;
    let rev = 0;
    for (let b = 0; b < len; b++) rev |= ((code >> b) & 1) << (len - 1 - b);
    for (let k = rev; k < 1 << FAST_BITS; k += 1 << len) fast[k] = (sym << 4) | len;
  }
  return { counts, symbols, fast };
}

let fixed: { lit: Huffman; dist: Huffman } | null = null;
function fixedTables(): { lit: Huffman; dist: Huffman } {
  if (!fixed) {
    const l = new Uint8Array(288);
    l.fill(8, 0, 144);
    l.fill(9, 144, 256);
    l.fill(7, 256, 280);
    l.fill(8, 280, 288);
    fixed = { lit: build(l, 288), dist: build(new Uint8Array(30).fill(5), 30) };
  }
  return fixed;
}

class Reader {
  pos = 0;
  bitBuf = 0;
  bitCnt = 0;
  constructor(readonly src: Uint8Array) {}

  bits(n: number): number {
    while (this.bitCnt < n) {
      if (this.pos >= this.src.length) throw new InflateError('unexpected end of data');
      this.bitBuf |= this.src[this.pos++]! << this.bitCnt;
      this.bitCnt += 8;
    }
    const v = this.bitBuf & ((1 << n) - 1);
    this.bitBuf >>>= n;
    this.bitCnt -= n;
    return v;
  }

  decode(h: Huffman): number {
    while (this.bitCnt < FAST_BITS && this.pos < this.src.length) {
      this.bitBuf |= this.src[this.pos++]! << this.bitCnt;
      this.bitCnt += 8;
    }
    const e = h.fast[this.bitBuf & ((1 << FAST_BITS) - 1)]!;
    const len = e & 15;
    if (e !== 0 && len <= this.bitCnt) {
      this.bitBuf >>>= len;
      this.bitCnt -= len;
      return e >> 4;
    }
    return this.decodeSlow(h);
  }

  /** Bit by bit (puff's canonical decoding): codes longer than FAST_BITS. */
  decodeSlow(h: Huffman): number {
    let code = 0;
    let first = 0;
    let index = 0;
    for (let len = 1; len < 16; len++) {
      code |= this.bits(1);
      const count = h.counts[len]!;
      if (code - first < count) return h.symbols[index + code - first]!;
      index += count;
      first = (first + count) << 1;
      code <<= 1;
    }
    throw new InflateError('bad Huffman code');
  }
}

class Output {
  buf: Uint8Array;
  len = 0;
  constructor(hint: number) {
    this.buf = new Uint8Array(Math.max(hint, 64));
  }
  ensure(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.len + n));
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }
}

function dynamicTables(r: Reader): { lit: Huffman; dist: Huffman } {
  const hlit = r.bits(5) + 257;
  const hdist = r.bits(5) + 1;
  const hclen = r.bits(4) + 4;
  const cl = new Uint8Array(19);
  for (let i = 0; i < hclen; i++) cl[CL_ORDER[i]!] = r.bits(3);
  const clh = build(cl, 19);
  const lens = new Uint8Array(hlit + hdist);
  for (let i = 0; i < hlit + hdist; ) {
    const sym = r.decode(clh);
    if (sym < 16) {
      lens[i++] = sym;
      continue;
    }
    let rep: number;
    let val = 0;
    if (sym === 16) {
      if (i === 0) throw new InflateError('repeat with no previous length');
      val = lens[i - 1]!;
      rep = 3 + r.bits(2);
    } else if (sym === 17) rep = 3 + r.bits(3);
    else rep = 11 + r.bits(7);
    if (i + rep > hlit + hdist) throw new InflateError('too many code lengths');
    lens.fill(val, i, i + rep);
    i += rep;
  }
  return { lit: build(lens.subarray(0, hlit), hlit), dist: build(lens.subarray(hlit), hdist) };
}

/** Decode one raw DEFLATE stream; returns the output and the bytes consumed. */
export function inflateRaw(src: Uint8Array, sizeHint = 0): { data: Uint8Array; consumed: number } {
  const r = new Reader(src);
  const out = new Output(sizeHint || src.length * 4);
  let last = 0;
  while (!last) {
    last = r.bits(1);
    const type = r.bits(2);
    if (type === 0) {
      // a stored block starts at the next byte: drop the partial byte, give back read-ahead
      r.pos -= r.bitCnt >> 3;
      r.bitBuf = 0;
      r.bitCnt = 0;
      if (r.pos + 4 > src.length) throw new InflateError('unexpected end of data');
      const len = src[r.pos]! | (src[r.pos + 1]! << 8);
      const nlen = src[r.pos + 2]! | (src[r.pos + 3]! << 8);
      if ((len ^ 0xffff) !== nlen) throw new InflateError('stored block length mismatch');
      r.pos += 4;
      if (r.pos + len > src.length) throw new InflateError('unexpected end of data');
      out.ensure(len);
      out.buf.set(src.subarray(r.pos, r.pos + len), out.len);
      out.len += len;
      r.pos += len;
      continue;
    }
    if (type === 3) throw new InflateError('invalid block type');
    const { lit, dist } = type === 1 ? fixedTables() : dynamicTables(r);
    for (;;) {
      const sym = r.decode(lit);
      if (sym < 256) {
        out.ensure(1);
        out.buf[out.len++] = sym;
        continue;
      }
      if (sym === 256) break;
      const li = sym - 257;
      if (li >= 29) throw new InflateError('bad length symbol');
      const len = LEN_BASE[li]! + r.bits(LEN_EXTRA[li]!);
      const di = r.decode(dist);
      if (di >= 30) throw new InflateError('bad distance symbol');
      const d = DIST_BASE[di]! + r.bits(DIST_EXTRA[di]!);
      if (d > out.len) throw new InflateError('distance too far back');
      out.ensure(len);
      const b = out.buf;
      for (let k = 0; k < len; k++, out.len++) b[out.len] = b[out.len - d]!;
    }
  }
  // whole bytes left in the bit buffer were read ahead
  return { data: out.buf.subarray(0, out.len), consumed: r.pos - (r.bitCnt >> 3) };
}

/** Decode a zlib stream (header, DEFLATE data; the checksum is not verified). */
export function inflateZlib(src: Uint8Array, sizeHint = 0): Buffer {
  if (src.length < 2 || (src[0]! & 0x0f) !== 8 || ((src[0]! << 8) | src[1]!) % 31 !== 0 || src[1]! & 0x20) {
    throw new InflateError('not a zlib stream');
  }
  const { data } = inflateRaw(src.subarray(2), sizeHint);
  return Buffer.from(data.buffer, data.byteOffset, data.length);
}

/**
 * Inflate an object's zlib stream (trailing bytes ignored). `size`, when
 * known, is the inflated size: it picks the decoder and is checked.
 */
export function inflateObject(src: Buffer, size?: number): Buffer {
  const small = size !== undefined ? size <= SMALL : src.length <= SMALL / 4;
  if (small) {
    try {
      return inflateZlib(src, size);
    } catch {
      /* node:zlib gives the authoritative answer (and error) */
    }
  }
  return zlib().inflateSync(src);
}
