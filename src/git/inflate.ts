/**
 * A small zlib (RFC 1950/1951) decoder for small objects. Hooks read a few
 * commits and trees; loading node:zlib for them (it pulls in the stream
 * machinery) costs about 2.3 ms on the bench VM, decoding a 4 KiB tree here
 * about 0.5–1 ms cold (everything in locals and table lookups, because V8's
 * interpreter runs it: it never gets hot enough to be optimised). Large
 * inputs go to node:zlib (see `inflateObject`).
 */
import { zlib } from '../builtins.js';

/** Inputs at most this big are decoded here. */
const SMALL = 64 * 1024;

export class InflateError extends Error {}

const LEN_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
const LEN_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DIST_BASE = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577];
const DIST_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];
const CL_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

/**
 * A decoding table: entry = symbol << 4 | length, indexed by the next `bits`
 * (≤ 10) stream bits, LSB first: one lookup per symbol; the rare longer codes
 * (0 in the table) are decoded by `slow`.
 */
/** Table index width: 9 bits covers every fixed-code symbol; fewer entries to fill cold. */
const MAX_TABLE_BITS = 9;

interface Table { t: Int32Array; bits: number; counts: Uint16Array; symbols: Uint16Array }
function table(lengths: Uint8Array, n: number): Table {
  let max = 0;
  const counts = new Uint16Array(16);
  for (let i = 0; i < n; i++) {
    const l = lengths[i]!;
    counts[l]!++;
    if (l > max) max = l;
  }
  counts[0] = 0;
  const bits = Math.min(Math.max(max, 1), MAX_TABLE_BITS);
  const offs = new Uint16Array(16);
  for (let i = 1; i < 16; i++) offs[i] = offs[i - 1]! + counts[i - 1]!;
  const symbols = new Uint16Array(n);
  for (let i = 0; i < n; i++) if (lengths[i]) symbols[offs[lengths[i]!]!++] = i;
  const t = new Int32Array(1 << bits);
  const next = new Uint16Array(16);
  for (let len = 1, code = 0; len < 16; len++) {
    code = (code + counts[len - 1]!) << 1;
    next[len] = code;
  }
  const size = 1 << bits;
  for (let sym = 0; sym < n; sym++) {
    const len = lengths[sym]!;
    if (!len) continue;
    let code = next[len]!++;
    if (len > bits) continue;
    // the code's bits reversed (the stream is read LSB first): swaps, not a loop per bit
    code = ((code & 0xaaaa) >>> 1) | ((code & 0x5555) << 1);
    code = ((code & 0xcccc) >>> 2) | ((code & 0x3333) << 2);
    code = ((code & 0xf0f0) >>> 4) | ((code & 0x0f0f) << 4);
    code = ((code & 0xff00) >>> 8) | ((code & 0x00ff) << 8);
    const rev = code >>> (16 - len);
    const v = (sym << 4) | len;
    for (let k = rev; k < size; k += 1 << len) t[k] = v;
  }
  return { t, bits, counts, symbols };
}

/** Codes longer than the table: canonical decoding bit by bit (puff). Returns symbol << 4 | length. */
function slow(h: Table, buf: number, cnt: number): number {
  let code = 0;
  let first = 0;
  let index = 0;
  for (let len = 1; len < 16 && len <= cnt; len++) {
    code |= (buf >>> (len - 1)) & 1;
    const count = h.counts[len]!;
    if (code - first < count) return (h.symbols[index + code - first]! << 4) | len;
    index += count;
    first = (first + count) << 1;
    code <<= 1;
  }
  return 0;
}

let fixedLit: Table | null = null;
let fixedDist: Table | null = null;

/** Decode one raw DEFLATE stream (RFC 1951). Everything lives in locals: V8's interpreter runs it cold. */
export function inflateRaw(src: Uint8Array, sizeHint = 0): Uint8Array {
  let out = new Uint8Array(Math.max(sizeHint || src.length * 4, 64));
  let o = 0;
  let pos = 0;
  let buf = 0;
  let cnt = 0;
  const n = src.length;
  let last = 0;
  while (!last) {
    while (cnt < 3) { if (pos >= n) throw new InflateError('unexpected end of data'); buf |= src[pos++]! << cnt; cnt += 8; }
    last = buf & 1;
    const type = (buf >>> 1) & 3;
    buf >>>= 3;
    cnt -= 3;
    if (type === 0) {
      pos -= cnt >> 3;
      buf = 0;
      cnt = 0;
      if (pos + 4 > n) throw new InflateError('unexpected end of data');
      const len = src[pos]! | (src[pos + 1]! << 8);
      if ((len ^ 0xffff) !== (src[pos + 2]! | (src[pos + 3]! << 8))) throw new InflateError('stored block length mismatch');
      pos += 4;
      if (pos + len > n) throw new InflateError('unexpected end of data');
      if (o + len > out.length) { const x = new Uint8Array(Math.max(out.length * 2, o + len)); x.set(out.subarray(0, o)); out = x; }
      out.set(src.subarray(pos, pos + len), o);
      o += len;
      pos += len;
      continue;
    }
    if (type === 3) throw new InflateError('invalid block type');
    let lit: Table;
    let dist: Table;
    if (type === 1) {
      if (!fixedLit) {
        const l = new Uint8Array(288);
        l.fill(8, 0, 144); l.fill(9, 144, 256); l.fill(7, 256, 280); l.fill(8, 280, 288);
        fixedLit = table(l, 288);
        fixedDist = table(new Uint8Array(30).fill(5), 30);
      }
      lit = fixedLit; dist = fixedDist!;
    } else {
      while (cnt < 14) { if (pos >= n) throw new InflateError('unexpected end of data'); buf |= src[pos++]! << cnt; cnt += 8; }
      const hlit = (buf & 31) + 257;
      const hdist = ((buf >>> 5) & 31) + 1;
      const hclen = ((buf >>> 10) & 15) + 4;
      buf >>>= 14; cnt -= 14;
      const cl = new Uint8Array(19);
      for (let i = 0; i < hclen; i++) {
        while (cnt < 3) { if (pos >= n) throw new InflateError('unexpected end of data'); buf |= src[pos++]! << cnt; cnt += 8; }
        cl[CL_ORDER[i]!] = buf & 7; buf >>>= 3; cnt -= 3;
      }
      const clt = table(cl, 19);
      const lens = new Uint8Array(hlit + hdist);
      for (let i = 0; i < hlit + hdist; ) {
        while (cnt < 16 && pos < n) { buf |= src[pos++]! << cnt; cnt += 8; }
        let e = clt.t[buf & ((1 << clt.bits) - 1)]!;
        if (!e) e = slow(clt, buf, cnt);
        const l = e & 15;
        if (!e || l > cnt) throw new InflateError('bad code length code');
        buf >>>= l; cnt -= l;
        const sym = e >> 4;
        if (sym < 16) { lens[i++] = sym; continue; }
        let rep: number; let val = 0;
        if (sym === 16) { if (i === 0) throw new InflateError('repeat with no previous length'); val = lens[i - 1]!; rep = 3 + (buf & 3); buf >>>= 2; cnt -= 2; }
        else if (sym === 17) { rep = 3 + (buf & 7); buf >>>= 3; cnt -= 3; }
        else { rep = 11 + (buf & 127); buf >>>= 7; cnt -= 7; }
        if (cnt < 0) throw new InflateError('unexpected end of data');
        if (i + rep > hlit + hdist) throw new InflateError('too many code lengths');
        lens.fill(val, i, i + rep); i += rep;
      }
      lit = table(lens.subarray(0, hlit), hlit);
      dist = table(lens.subarray(hlit), hdist);
    }
    const lt = lit.t; const lmask = (1 << lit.bits) - 1;
    const dt = dist.t; const dmask = (1 << dist.bits) - 1;
    for (;;) {
      while (cnt < 15 && pos < n) { buf |= src[pos++]! << cnt; cnt += 8; }
      let e = lt[buf & lmask]!;
      if (!e) e = slow(lit, buf, cnt);
      let l = e & 15;
      if (!e || l > cnt) throw new InflateError('bad literal/length code');
      buf >>>= l; cnt -= l;
      const sym = e >> 4;
      if (sym < 256) {
        if (o >= out.length) { const x = new Uint8Array(out.length * 2); x.set(out); out = x; }
        out[o++] = sym;
        continue;
      }
      if (sym === 256) break;
      const li = sym - 257;
      if (li >= 29) throw new InflateError('bad length symbol');
      while (cnt < 15 && pos < n) { buf |= src[pos++]! << cnt; cnt += 8; }
      const le = LEN_EXTRA[li]!;
      const len = LEN_BASE[li]! + (buf & ((1 << le) - 1));
      buf >>>= le; cnt -= le;
      while (cnt < 15 && pos < n) { buf |= src[pos++]! << cnt; cnt += 8; }
      e = dt[buf & dmask]!;
      if (!e) e = slow(dist, buf, cnt);
      l = e & 15;
      if (!e || l > cnt) throw new InflateError('bad distance code');
      buf >>>= l; cnt -= l;
      const di = e >> 4;
      if (di >= 30) throw new InflateError('bad distance symbol');
      while (cnt < 13 && pos < n) { buf |= src[pos++]! << cnt; cnt += 8; }
      const de = DIST_EXTRA[di]!;
      const d = DIST_BASE[di]! + (buf & ((1 << de) - 1));
      buf >>>= de; cnt -= de;
      if (cnt < 0) throw new InflateError('unexpected end of data');
      if (d > o) throw new InflateError('distance too far back');
      if (o + len > out.length) { const x = new Uint8Array(Math.max(out.length * 2, o + len)); x.set(out.subarray(0, o)); out = x; }
      for (let k = 0; k < len; k++, o++) out[o] = out[o - d]!;
    }
  }
  return out.subarray(0, o);
}

/** Decode a zlib stream (header, DEFLATE data; the checksum is not verified). */
export function inflateZlib(src: Uint8Array, sizeHint = 0): Buffer {
  if (src.length < 2 || (src[0]! & 0x0f) !== 8 || ((src[0]! << 8) | src[1]!) % 31 !== 0 || src[1]! & 0x20) {
    throw new InflateError('not a zlib stream');
  }
  const data = inflateRaw(src.subarray(2), sizeHint);
  return Buffer.from(data.buffer, data.byteOffset, data.length);
}

/**
 * Inflate an object's zlib stream (trailing bytes ignored). `size`, when
 * known, is the inflated size: it picks the decoder and is checked.
 */
let decodedHere = 0;
/** After this many objects a process is reading in bulk (a listing): node:zlib pays for itself. */
const BULK = 32;

export function inflateObject(src: Buffer, size?: number): Buffer {
  const small = size !== undefined ? size <= SMALL : src.length <= SMALL / 4;
  if (small && decodedHere < BULK) {
    decodedHere++;
    try {
      return inflateZlib(src, size);
    } catch {
      /* node:zlib gives the authoritative answer (and error) */
    }
  }
  return zlib().inflateSync(src);
}
