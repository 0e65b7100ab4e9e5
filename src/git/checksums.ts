/**
 * The checksums of writing git objects and packs (SHA-1 ids, zlib's Adler-32,
 * the CRC-32 of pack entries) without loading node:crypto or node:zlib
 * (SPEC §10: hooks are hot paths). A post-commit hashes about 15 KB of new
 * objects; loading crypto for that costs 4–6 ms on the bench VM, and the same
 * loops in JavaScript about as much (they run in V8's interpreter on a hook's
 * first call). Their inner loops are a 1,959-byte WebAssembly module, CRC
 * table included (scripts/gen-checksum-wasm.mjs), that compiles and
 * instantiates in about 0.5 ms. Without WebAssembly, and for SHA-256 repositories, node:crypto and
 * JavaScript loops take over.
 */
import { crypto } from '../builtins.js';
import { CHECKSUM_WASM_BASE64 } from './checksum-wasm-module.js';

interface Engine {
  mem: Uint8Array;
  state: Int32Array;
  blocks: (n: number) => void;
  crc32: (len: number, crc: number) => number;
  adler32: (len: number, st: number) => number;
}

/** The little of the WebAssembly API used here (the project's lib settings do not declare it). */
interface Wasm {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}

const IN = 1024;
const CHUNK = 32 * 1024; // input bytes per call: the module's one page holds them at IN

let engine: Engine | null | undefined;
let CRC_TABLE: Int32Array | null = null;

/** The byte table of zlib's CRC-32 (polynomial 0xedb88320), for the JavaScript fallback (the module carries its own). */
function crcTable(): Int32Array {
  if (!CRC_TABLE) {
    CRC_TABLE = new Int32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      CRC_TABLE[n] = c;
    }
  }
  return CRC_TABLE;
}

function load(): Engine | null {
  if (engine !== undefined) return engine;
  try {
    const bytes = Buffer.from(CHECKSUM_WASM_BASE64, 'base64');
    const wasm = (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly;
    const inst = new wasm.Instance(new wasm.Module(bytes), {});
    const x = inst.exports as Omit<Engine, 'mem' | 'state'> & { mem: { buffer: ArrayBuffer } };
    engine = { mem: new Uint8Array(x.mem.buffer), state: new Int32Array(x.mem.buffer, 0, 5), blocks: x.blocks, crc32: x.crc32, adler32: x.adler32 };
  } catch {
    engine = null; // no WebAssembly (e.g. --jitless): node:crypto instead
  }
  return engine;
}

const HEX: string[] = [];
for (let i = 0; i < 256; i++) HEX.push((i < 16 ? '0' : '') + i.toString(16));

/** A streaming SHA-1 with the createHash surface the object writers use. */
export interface Hasher {
  update(data: Uint8Array | string): Hasher;
  digestHex(): string;
}

class WasmSha1 implements Hasher {
  // each hasher keeps its own state and partial block, so hashers may interleave
  private readonly h = Int32Array.of(0x67452301, 0xefcdab89 | 0, 0x98badcfe | 0, 0x10325476, 0xc3d2e1f0 | 0);
  private readonly tail = new Uint8Array(64);
  private tailLen = 0;
  private total = 0;
  private done = false;

  constructor(private readonly e: Engine) {}

  /** Compress `bytes` (a multiple of 64, at most CHUNK) into this hasher's state. */
  private run(bytes: Uint8Array): void {
    const { mem, state, blocks } = this.e;
    mem.set(bytes, IN);
    state.set(this.h);
    blocks(bytes.length >>> 6);
    this.h.set(state);
  }

  update(data: Uint8Array | string): Hasher {
    const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    this.total += buf.length;
    let off = 0;
    if (this.tailLen > 0) {
      off = Math.min(64 - this.tailLen, buf.length);
      this.tail.set(buf.subarray(0, off), this.tailLen);
      this.tailLen += off;
      if (this.tailLen < 64) return this;
      this.run(this.tail);
      this.tailLen = 0;
    }
    while (buf.length - off >= 64) {
      const n = Math.min(CHUNK, (buf.length - off) & ~63);
      this.run(buf.subarray(off, off + n));
      off += n;
    }
    this.tail.set(buf.subarray(off), 0);
    this.tailLen = buf.length - off;
    return this;
  }

  digestHex(): string {
    if (this.done) throw new Error('digest already taken');
    this.done = true;
    // padding: 0x80, zeros, then the length in bits as a 64-bit big-endian integer
    const last = new Uint8Array(this.tailLen + 9 > 64 ? 128 : 64);
    last.set(this.tail.subarray(0, this.tailLen), 0);
    last[this.tailLen] = 0x80;
    const bits = this.total * 8;
    const hi = Math.floor(bits / 0x100000000);
    const lo = bits >>> 0;
    const n = last.length;
    last[n - 8] = hi >>> 24;
    last[n - 7] = hi >>> 16;
    last[n - 6] = hi >>> 8;
    last[n - 5] = hi;
    last[n - 4] = lo >>> 24;
    last[n - 3] = lo >>> 16;
    last[n - 2] = lo >>> 8;
    last[n - 1] = lo;
    this.run(last);
    let out = '';
    for (let i = 0; i < 5; i++) {
      const w = this.h[i]!;
      out += HEX[(w >>> 24) & 255]! + HEX[(w >>> 16) & 255]! + HEX[(w >>> 8) & 255]! + HEX[w & 255]!;
    }
    return out;
  }
}

export class CryptoHasher implements Hasher {
  private readonly h;
  constructor(algo: string) {
    this.h = crypto().createHash(algo);
  }
  update(data: Uint8Array | string): Hasher {
    this.h.update(data);
    return this;
  }
  digestHex(): string {
    return this.h.digest('hex');
  }
}

/** A hasher for git object ids of `format` (node:crypto for SHA-256, or without WebAssembly). */
export function createHasher(format: 'sha1' | 'sha256' | string): Hasher {
  if (format === 'sha1' && process.env.ENTIRE_WASM !== '0') {
    const e = load();
    if (e) return new WasmSha1(e);
  }
  return new CryptoHasher(format === 'sha256' ? 'sha256' : 'sha1');
}

/** Hex SHA-1 of one buffer or string (see createHasher). */
export function sha1Hex(data: Uint8Array | string): string {
  return createHasher('sha1').update(data).digestHex();
}

function runChunks(data: Uint8Array, start: number, step: (e: Engine, len: number, acc: number) => number, js: (d: Uint8Array, acc: number) => number): number {
  const e = process.env['ENTIRE_WASM'] !== '0' ? load() : null;
  if (!e) return js(data, start);
  let acc = start;
  for (let off = 0; off < data.length; off += CHUNK) {
    const part = data.subarray(off, Math.min(data.length, off + CHUNK));
    e.mem.set(part, IN);
    acc = step(e, part.length, acc) >>> 0;
  }
  return acc >>> 0;
}

/** zlib's CRC-32 of `data`, continuing from `crc`. */
export function crc32(data: Uint8Array, crc = 0): number {
  return runChunks(data, crc, (e, len, acc) => e.crc32(len, acc), (d, acc) => {
    const t = crcTable();
    let c = ~acc;
    for (let i = 0; i < d.length; i++) c = t[(c ^ d[i]!) & 0xff]! ^ (c >>> 8);
    return ~c >>> 0;
  });
}

/** zlib's Adler-32 of `data`, continuing from `adler` (1 to start). */
export function adler32(data: Uint8Array, adler = 1): number {
  return runChunks(data, adler, (e, len, acc) => e.adler32(len, acc), (b, acc) => {
    let a = acc & 0xffff;
    let s = acc >>> 16;
    for (let i = 0; i < b.length; ) {
      const end = Math.min(b.length, i + 5552);
      for (; i < end; i++) s += a += b[i]!;
      a %= 65521;
      s %= 65521;
    }
    return ((s << 16) | a) >>> 0;
  });
}
