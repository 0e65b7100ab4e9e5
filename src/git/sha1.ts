/**
 * SHA-1 of git objects without loading node:crypto (SPEC §10: hooks are hot
 * paths). A post-commit hashes about 15 KB of new objects; loading crypto
 * for that costs 4–6 ms on the bench VM and a JavaScript SHA-1 about as much
 * (it runs in V8's interpreter on a hook's first call). The block function is
 * a 681-byte WebAssembly module (scripts/gen-sha1-wasm.mjs) that compiles and
 * instantiates in about 0.5 ms. Where WebAssembly is unavailable, or for
 * SHA-256 repositories, callers get node:crypto.
 */
import { crypto } from '../builtins.js';
import { SHA1_WASM_BASE64 } from './sha1-wasm-module.js';

interface Engine {
  mem: Uint8Array;
  state: Int32Array;
  blocks: (n: number) => void;
}

/** The little of the WebAssembly API used here (the project's lib settings do not declare it). */
interface Wasm {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}

const IN = 1024;
const CHUNK = 32 * 1024; // input bytes per call: the module's one page holds them at IN

let engine: Engine | null | undefined;

function load(): Engine | null {
  if (engine !== undefined) return engine;
  try {
    const bytes = Buffer.from(SHA1_WASM_BASE64, 'base64');
    const wasm = (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly;
    const inst = new wasm.Instance(new wasm.Module(bytes), {});
    const { mem, blocks } = inst.exports as { mem: { buffer: ArrayBuffer }; blocks: (n: number) => void };
    engine = { mem: new Uint8Array(mem.buffer), state: new Int32Array(mem.buffer, 0, 5), blocks };
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
  if (format === 'sha1' && process.env.ENTIRE_WASM_SHA1 !== '0') {
    const e = load();
    if (e) return new WasmSha1(e);
  }
  return new CryptoHasher(format === 'sha256' ? 'sha256' : 'sha1');
}

/** Hex SHA-1 of one buffer or string (see createHasher). */
export function sha1Hex(data: Uint8Array | string): string {
  return createHasher('sha1').update(data).digestHex();
}
