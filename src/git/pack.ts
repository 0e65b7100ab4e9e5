/**
 * Reading objects out of one pack (`objects/pack/pack-*.pack` with its v2
 * `.idx`), in-process: the idx is binary-searched with positional reads and
 * only the wanted entries of the pack are read and inflated, so the cost is
 * independent of the pack's size. Deltas (OFS_DELTA and REF_DELTA) are
 * resolved here; a REF_DELTA base in another pack or loose is fetched through
 * `lookupBase`. Formats: gitformat-pack(5).
 */
import { closeSync, fstatSync, openSync } from 'node:fs';
import { inflateObject } from './inflate.js';
import { readAt } from '../fs-read.js';

export type ObjectType = 'commit' | 'tree' | 'blob' | 'tag';

export interface RawObject {
  type: ObjectType;
  data: Buffer;
}

const TYPES: Record<number, ObjectType> = { 1: 'commit', 2: 'tree', 3: 'blob', 4: 'tag' };
const OFS_DELTA = 6;
const REF_DELTA = 7;
/** Bytes read at an entry's offset: header and stream of a typical commit or tree (one read, not two). */
const FIRST_READ = 4096;
/** Delta chains git writes are ≤ 50 deep (pack.depth, max 4095); anything deeper is corrupt. */
const MAX_CHAIN = 10_000;

/** An .idx up to this size is read whole (a repository of ~500k objects); bigger ones are probed. */
let IDX_IN_MEMORY = 16 << 20;

/** Tests exercise the probing path on small packs. */
export function setIdxInMemoryLimitForTests(bytes: number): void {
  IDX_IN_MEMORY = bytes;
}

/** Thrown for a pack we do not understand; callers fall back to git. */
export class PackFormatError extends Error {}

/** One `.idx` (version 2) and its `.pack`, opened lazily and kept open. */
export class Pack {
  private idxFd = -1;
  private packFd = -1;
  private packSize = 0;
  private count = 0;
  private fanout: Buffer | null = null;
  /** The whole .idx when it is small (one read instead of a read per probe). */
  private idx: Buffer | null = null;
  /** Recently inflated entries by offset: delta chains share their bases. */
  private cache = new Map<number, RawObject>();
  private cacheBytes = 0;

  constructor(
    readonly idxPath: string,
    private readonly hashLen: number,
  ) {}

  /** Whether the .idx is open (a lookup then costs no system call). */
  get isOpen(): boolean {
    return this.fanout !== null;
  }

  // The .idx: opened, sized and (when small) read in one go; the .pack only
  // when an entry is read from it. Each system call counts on the hook path.
  private open(): void {
    if (this.fanout) return;
    const fd = openSync(this.idxPath, 'r');
    try {
      const size = fstatSync(fd).size;
      const whole = size <= IDX_IN_MEMORY ? readAt(fd, 0, size) : null;
      const head = whole ?? readAt(fd, 0, 8 + 256 * 4);
      if (head.length < 8 + 1024 || head.readUInt32BE(0) !== 0xff744f63 || head.readUInt32BE(4) !== 2) {
        throw new PackFormatError(`unsupported pack index ${this.idxPath}`);
      }
      this.fanout = head.subarray(8, 8 + 1024);
      this.count = this.fanout.readUInt32BE(255 * 4);
      this.idx = whole;
      this.idxFd = fd;
    } catch (e) {
      closeSync(fd);
      throw e;
    }
  }

  private openPack(): void {
    if (this.packFd >= 0) return;
    // ENOENT when the pack went away after its index was read: the caller looks again
    const fd = openSync(this.idxPath.slice(0, -4) + '.pack', 'r');
    try {
      this.packSize = fstatSync(fd).size;
    } catch (e) {
      closeSync(fd);
      throw e;
    }
    this.packFd = fd;
  }

  close(): void {
    if (this.idxFd >= 0) closeSync(this.idxFd);
    if (this.packFd >= 0) closeSync(this.packFd);
    this.idxFd = this.packFd = -1;
    this.fanout = null;
    this.idx = null;
    this.cache.clear();
    this.cacheBytes = 0;
  }

  /** The pack offset of `oid` (raw bytes), or -1. */
  find(oid: Buffer): number {
    this.open();
    const fan = this.fanout!;
    const first = oid[0]!;
    let lo = first === 0 ? 0 : fan.readUInt32BE((first - 1) * 4);
    let hi = fan.readUInt32BE(first * 4);
    const H = this.hashLen;
    const names = 8 + 1024;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const at = names + mid * H;
      const c = this.idx ? this.idx.compare(oid, 0, H, at, at + H) : readAt(this.idxFd, at, H).compare(oid);
      if (c === 0) return this.offsetAt(mid);
      if (c < 0) lo = mid + 1;
      else hi = mid;
    }
    return -1;
  }

  private offsetAt(i: number): number {
    const n = this.count;
    const H = this.hashLen;
    const offs = 8 + 1024 + n * H + n * 4;
    const v = this.idx ? this.idx.readUInt32BE(offs + i * 4) : readAt(this.idxFd, offs + i * 4, 4).readUInt32BE(0);
    if ((v & 0x80000000) === 0) return v;
    const bigAt = offs + n * 4 + (v & 0x7fffffff) * 8;
    const big = this.idx ? this.idx.subarray(bigAt, bigAt + 8) : readAt(this.idxFd, bigAt, 8);
    return big.readUInt32BE(0) * 2 ** 32 + big.readUInt32BE(4);
  }

  /** The object at `offset`, deltas applied. */
  read(offset: number, lookupBase: (oid: string) => RawObject | null, depth = 0): RawObject {
    const hit = this.cache.get(offset);
    if (hit) return hit;
    if (depth > MAX_CHAIN) throw new PackFormatError('delta chain too deep');
    this.openPack();
    const H = this.hashLen;
    // the entry's header and, for the small objects hooks read, its whole stream in one read
    const head = readAt(this.packFd, offset, Math.min(FIRST_READ, Math.max(0, this.packSize - offset)));
    let p = 0;
    let c = head[p++]!;
    const type = (c >> 4) & 7;
    let size = c & 15;
    let shift = 4;
    while (c & 0x80) {
      c = head[p++]!;
      size += (c & 0x7f) * 2 ** shift;
      shift += 7;
    }
    let base: RawObject | null = null;
    if (type === OFS_DELTA) {
      c = head[p++]!;
      let rel = c & 0x7f;
      while (c & 0x80) {
        c = head[p++]!;
        rel = (rel + 1) * 128 + (c & 0x7f);
      }
      base = this.read(offset - rel, lookupBase, depth + 1);
    } else if (type === REF_DELTA) {
      const baseOid = head.subarray(p, p + H).toString('hex');
      p += H;
      base = lookupBase(baseOid);
      if (!base) throw new PackFormatError(`delta base ${baseOid} not found`);
    } else if (!TYPES[type]) {
      throw new PackFormatError(`unknown pack entry type ${type}`);
    }
    const data = this.inflateAt(offset + p, size, head.subarray(p));
    const obj: RawObject = base ? { type: base.type, data: applyDelta(base.data, data) } : { type: TYPES[type]!, data };
    this.remember(offset, obj);
    return obj;
  }

  /** The entry's data at `pos`; `have` holds the bytes from `pos` already read. */
  private inflateAt(pos: number, size: number, have: Buffer): Buffer {
    const end = this.packSize - this.hashLen; // the trailing checksum
    // deflate never expands by more than ~0.1 % plus a few bytes (zlib's deflateBound)
    let want = Math.min(size + (size >>> 9) + 64, end - pos);
    for (;;) {
      const z = want <= have.length ? have.subarray(0, want) : readAt(this.packFd, pos, want);
      try {
        const out = inflateObject(z, size);
        if (out.length !== size) throw new PackFormatError(`entry inflates to ${out.length} bytes, header says ${size}`);
        return out;
      } catch (e) {
        if (e instanceof PackFormatError || want >= end - pos) throw e;
        want = end - pos; // stream longer than the bound (should not happen): read to the end
      }
    }
  }

  private remember(offset: number, obj: RawObject): void {
    if (obj.data.length > 1 << 20) return;
    if (this.cache.size >= 256 || this.cacheBytes > 16 << 20) {
      this.cache.clear();
      this.cacheBytes = 0;
    }
    this.cache.set(offset, obj);
    this.cacheBytes += obj.data.length;
  }
}

function deltaVarint(d: Buffer, p: { i: number }): number {
  let v = 0;
  let shift = 0;
  let c: number;
  do {
    c = d[p.i++]!;
    v += (c & 0x7f) * 2 ** shift;
    shift += 7;
  } while (c & 0x80);
  return v;
}

/** Apply a git delta (copy/insert instructions) to `base`. */
export function applyDelta(base: Buffer, delta: Buffer): Buffer {
  const p = { i: 0 };
  const srcSize = deltaVarint(delta, p);
  if (srcSize !== base.length) throw new PackFormatError('delta base size mismatch');
  const dstSize = deltaVarint(delta, p);
  const out = Buffer.allocUnsafe(dstSize);
  let o = 0;
  while (p.i < delta.length) {
    const op = delta[p.i++]!;
    if (op & 0x80) {
      let off = 0;
      let len = 0;
      if (op & 0x01) off |= delta[p.i++]!;
      if (op & 0x02) off |= delta[p.i++]! << 8;
      if (op & 0x04) off |= delta[p.i++]! << 16;
      if (op & 0x08) off += delta[p.i++]! * 2 ** 24;
      if (op & 0x10) len |= delta[p.i++]!;
      if (op & 0x20) len |= delta[p.i++]! << 8;
      if (op & 0x40) len |= delta[p.i++]! << 16;
      if (len === 0) len = 0x10000;
      if (off + len > base.length || o + len > dstSize) throw new PackFormatError('delta copy out of range');
      base.copy(out, o, off, off + len);
      o += len;
    } else if (op !== 0) {
      if (p.i + op > delta.length || o + op > dstSize) throw new PackFormatError('delta insert out of range');
      delta.copy(out, o, p.i, p.i + op);
      p.i += op;
      o += op;
    } else {
      throw new PackFormatError('delta opcode 0');
    }
  }
  if (o !== dstSize) throw new PackFormatError('delta result size mismatch');
  return out;
}
