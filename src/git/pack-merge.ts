/**
 * Merging small packs into one, so the packs hooks write (src/git/odb.ts
 * BatchWriter) do not pile up towards git's `gc.autoPackLimit`. Run from the
 * Stop hook, off the commit path. Only packs whose entries are all whole
 * objects (no deltas) are merged, which lets their entries be copied byte for
 * byte; any other pack, a kept, promisor or cruft pack, and every pack of a
 * repository with a multi-pack-index, is left to git.
 *
 * Safe against concurrent readers and writers: the merged pack is in place
 * before any input goes, an input is deleted only if all of its objects were
 * copied, and each input is checked against its own checksum first.
 */
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Repo } from './repo.js';
import { encodePack, type PackEntry } from './pack-write.js';
import { packDir, writePackFiles } from './pack-policy.js';
import { CryptoHasher } from './checksums.js';

/** A pack this small is a merge candidate. */
const SMALL_PACK_BYTES = 1024 * 1024;
/** At most this much is read per merge (the merged pack is rewritten and hashed whole). */
const MAX_MERGE_BYTES = 4 * 1024 * 1024;
/** Merge only when there are this many candidates: a Stop does not rewrite packs every turn. */
const MIN_PACKS = 4;
const SIDE_FILES = ['.keep', '.promisor', '.mtimes', '.bitmap'];

export interface MergeResult {
  merged: number;
  objects: number;
  pack?: string;
}

const sha1 = () => new CryptoHasher('sha1');

/** Read and check one pack; null when it cannot be merged (deltas, odd index, bad checksum). */
function readMergeable(base: string): PackEntry[] | null {
  let idx: Buffer;
  let pack: Buffer;
  try {
    idx = readFileSync(`${base}.idx`);
    pack = readFileSync(`${base}.pack`);
  } catch {
    return null; // merged or repacked away meanwhile
  }
  if (idx.length < 8 + 1024 + 40 || idx.readUInt32BE(0) !== 0xff744f63 || idx.readUInt32BE(4) !== 2) return null;
  const n = idx.readUInt32BE(8 + 255 * 4);
  if (idx.length !== 8 + 1024 + n * 28 + 40) return null; // large offsets: not a small pack
  if (pack.length < 32 || pack.toString('latin1', 0, 4) !== 'PACK' || pack.readUInt32BE(4) !== 2 || pack.readUInt32BE(8) !== n) return null;
  const trailer = pack.subarray(pack.length - 20);
  if (!trailer.equals(idx.subarray(idx.length - 40, idx.length - 20))) return null;
  const names = 8 + 1024;
  const crcs = names + n * 20;
  const offs = crcs + n * 4;
  const rows: { oid: string; crc: number; offset: number }[] = [];
  for (let i = 0; i < n; i++) {
    rows.push({ oid: idx.toString('hex', names + i * 20, names + i * 20 + 20), crc: idx.readUInt32BE(crcs + i * 4), offset: idx.readUInt32BE(offs + i * 4) });
  }
  rows.sort((a, b) => a.offset - b.offset);
  const out: PackEntry[] = [];
  for (let i = 0; i < n; i++) {
    const start = rows[i]!.offset;
    const end = i + 1 < n ? rows[i + 1]!.offset : pack.length - 20;
    if (start < 12 || end <= start || end > pack.length - 20) return null;
    const type = (pack[start]! >> 4) & 7;
    if (type < 1 || type > 4) return null; // a delta: its base may be elsewhere
    out.push({ oid: rows[i]!.oid, bytes: pack.subarray(start, end), crc: rows[i]!.crc });
  }
  // hashed last: a pack with deltas (most of git's own) is turned down without it
  if (sha1().update(pack.subarray(0, pack.length - 20)).digestHex() !== trailer.toString('hex')) return null;
  return out;
}

/** Merge the repository's small whole-object packs into one, when there are several. */
export function mergeSmallPacks(repo: Repo, opts: { minPacks?: number } = {}): MergeResult {
  if (repo.objectFormat !== 'sha1') return { merged: 0, objects: 0 };
  const dir = packDir(repo);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return { merged: 0, objects: 0 };
  }
  const present = new Set(names);
  if (present.has('multi-pack-index')) return { merged: 0, objects: 0 };
  const candidates: { base: string; name: string; size: number }[] = [];
  for (const n of names) {
    const m = /^(pack-[0-9a-f]{40})\.idx$/.exec(n);
    if (!m) continue;
    const stem = m[1]!;
    if (!present.has(`${stem}.pack`) || SIDE_FILES.some((s) => present.has(stem + s))) continue;
    let size: number;
    try {
      size = statSync(join(dir, `${stem}.pack`)).size;
    } catch {
      continue;
    }
    if (size <= SMALL_PACK_BYTES) candidates.push({ base: join(dir, stem), name: stem, size });
  }
  if (candidates.length < (opts.minPacks ?? MIN_PACKS)) return { merged: 0, objects: 0 };
  candidates.sort((a, b) => a.size - b.size);
  const inputs: { base: string; name: string }[] = [];
  const entries: PackEntry[] = [];
  const seen = new Set<string>();
  // packs turned down count too: a Stop reads at most MAX_MERGE_BYTES, however many
  // small packs of git's own (with deltas) the repository has
  let examined = 0;
  for (const c of candidates) {
    if (examined + c.size > MAX_MERGE_BYTES) break;
    examined += c.size;
    const got = readMergeable(c.base);
    if (!got) continue;
    inputs.push(c);
    for (const e of got) {
      if (seen.has(e.oid)) continue;
      seen.add(e.oid);
      entries.push(e);
    }
  }
  if (inputs.length < 2) return { merged: 0, objects: 0 };
  const enc = encodePack(entries, sha1);
  const out = writePackFiles(repo, enc);
  for (const i of inputs) {
    if (i.name === `pack-${enc.name}`) continue; // the same objects in the same order: that is the output
    // the index first: from then on no reader starts using the pack
    rmSync(`${i.base}.idx`, { force: true });
    rmSync(`${i.base}.pack`, { force: true });
    rmSync(`${i.base}.rev`, { force: true });
  }
  return { merged: inputs.length, objects: entries.length, pack: out };
}
