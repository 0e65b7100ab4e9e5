/**
 * Encoding a small pack and its v2 index (gitformat-pack(5)), without I/O.
 * A hook writes about ten small objects per ref update; as loose objects
 * that is ten files and up to ten new fan-out directories, and creating
 * files is the slowest thing a hook does on a busy disk. One pack is two.
 * Entries are never deltas, so packs can later be merged by copying their
 * entries byte for byte (src/git/pack-merge.ts).
 */
import { createHasher, crc32, type Hasher } from './checksums.js';

export type PackObjectType = 'commit' | 'tree' | 'blob' | 'tag';

const TYPE_CODE: Record<PackObjectType, number> = { commit: 1, tree: 2, blob: 3, tag: 4 };

/** One entry as it sits in a pack: its id and its bytes (type/size header and zlib stream). */
export interface PackEntry {
  oid: string;
  bytes: Buffer;
  /** CRC-32 of `bytes` (kept when copied from another pack's index). */
  crc?: number;
}

/** The type/size header of a non-delta entry. */
export function entryHeader(type: PackObjectType, size: number): Buffer {
  const out: number[] = [];
  let c = (TYPE_CODE[type] << 4) | (size & 15);
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    out.push(c | 0x80);
    c = rest & 0x7f;
    rest = Math.floor(rest / 128);
  }
  out.push(c);
  return Buffer.from(out);
}

export interface EncodedPack {
  /** The pack's checksum in hex: its name is `pack-<name>.pack` / `.idx`. */
  name: string;
  pack: Buffer;
  idx: Buffer;
}

/**
 * A pack of `entries` (each id once; SHA-1 repositories) and its index.
 * Offsets are 32-bit: callers keep packs far below 2 GiB. `newHasher`: the
 * wasm SHA-1 by default; merges of bigger packs pass node:crypto's.
 */
export function encodePack(entries: PackEntry[], newHasher: () => Hasher = () => createHasher('sha1')): EncodedPack {
  const head = Buffer.alloc(12);
  head.write('PACK', 0, 'latin1');
  head.writeUInt32BE(2, 4);
  head.writeUInt32BE(entries.length, 8);
  const parts: Buffer[] = [head];
  const rows: { oid: Buffer; crc: number; offset: number }[] = [];
  let offset = 12;
  for (const e of entries) {
    rows.push({ oid: Buffer.from(e.oid, 'hex'), crc: e.crc ?? crc32(e.bytes), offset });
    parts.push(e.bytes);
    offset += e.bytes.length;
  }
  if (offset >= 0x80000000) throw new Error('pack too large for 32-bit offsets');
  const body = Buffer.concat(parts);
  const h = newHasher();
  h.update(body);
  const sum = Buffer.from(h.digestHex(), 'hex');
  const pack = Buffer.concat([body, sum]);

  rows.sort((a, b) => Buffer.compare(a.oid, b.oid));
  const n = rows.length;
  const idx = Buffer.alloc(8 + 1024 + n * 20 + n * 4 + n * 4 + 40);
  idx.writeUInt32BE(0xff744f63, 0);
  idx.writeUInt32BE(2, 4);
  let r = 0;
  for (let b = 0; b < 256; b++) {
    while (r < n && rows[r]!.oid[0]! <= b) r++;
    idx.writeUInt32BE(r, 8 + b * 4);
  }
  let p = 8 + 1024;
  for (const row of rows) {
    row.oid.copy(idx, p);
    p += 20;
  }
  for (const row of rows) {
    idx.writeUInt32BE(row.crc, p);
    p += 4;
  }
  for (const row of rows) {
    idx.writeUInt32BE(row.offset, p);
    p += 4;
  }
  sum.copy(idx, p);
  p += 20;
  const ih = newHasher();
  ih.update(idx.subarray(0, p));
  Buffer.from(ih.digestHex(), 'hex').copy(idx, p);
  return { name: sum.toString('hex'), pack, idx: idx.subarray(0, p + 20) };
}
