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
 * copied, and each input is checked against its own checksum first. Safe
 * against a power loss as far as git's `core.fsync` asks: the merged pack
 * and index are flushed (with the directory holding their new names) before
 * any input is deleted (packFsync). In a shared repository (core.sharedRepository)
 * they get the group's bits, as git's own packs do.
 */
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Repo } from './repo.js';
import { encodePack, type PackEntry } from './pack-write.js';
import { packDir, writePackFiles } from './pack-policy.js';
import { CryptoHasher } from './checksums.js';
import { readConfigValue } from './config-file.js';
import { sharedPerm } from './shared-perm.js';

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

// git's fsync components (git 2.39, cache.h enum fsync_component) and the names core.fsync takes
const LOOSE_OBJECT = 1 << 0;
const PACK = 1 << 1;
const PACK_METADATA = 1 << 2;
const COMMIT_GRAPH = 1 << 3;
const INDEX = 1 << 4;
const REFERENCE = 1 << 5;
const OBJECTS = LOOSE_OBJECT | PACK;
const DERIVED_METADATA = PACK_METADATA | COMMIT_GRAPH;
const COMPONENT_NAMES: [string, number][] = [
  ['loose-object', LOOSE_OBJECT],
  ['pack', PACK],
  ['pack-metadata', PACK_METADATA],
  ['commit-graph', COMMIT_GRAPH],
  ['index', INDEX],
  ['objects', OBJECTS],
  ['reference', REFERENCE],
  ['derived-metadata', DERIVED_METADATA],
  ['committed', OBJECTS | REFERENCE],
  ['added', OBJECTS | REFERENCE | INDEX],
  ['all', LOOSE_OBJECT | PACK | PACK_METADATA | COMMIT_GRAPH | INDEX | REFERENCE],
];
/**
 * git's default when core.fsync is unset or empty. The faithful reading is git's source
 * (FSYNC_COMPONENTS_DEFAULT: objects and derived metadata, less loose objects), which is
 * pack, pack-metadata and commit-graph: the pack and its index are both flushed. The
 * git-config page words it as "equivalent to committed,-loose-object", which would leave
 * out the index; the code is what git does, and the stronger reading.
 */
const DEFAULT_COMPONENTS = (OBJECTS | DERIVED_METADATA) & ~LOOSE_OBJECT;

/**
 * core.fsync as git 2.39 parses it (config.c parse_fsync_components): `none`
 * alone is nothing; else git's default, less the `-` items, plus the others
 * (so `committed` adds to the default and leaves the index flushed). An item
 * names every component it is a prefix of (`-pack` also removes
 * pack-metadata); unknown items are ignored. (Later gits also take `none` as
 * the last item; 2.39 ignores it there, as this does.)
 */
export function parseFsyncComponents(value: string): number {
  if (value === 'none') return 0;
  const current = DEFAULT_COMPONENTS;
  let positive = 0;
  let negative = 0;
  let s = value;
  for (;;) {
    let i = 0;
    while (i < s.length && ', \t\n\r'.includes(s[i]!)) i++;
    s = s.slice(i);
    const comma = s.indexOf(',');
    let item = comma < 0 ? s : s.slice(0, comma);
    let negated = false;
    if (item.startsWith('-')) {
      negated = true;
      item = item.slice(1);
    }
    if (item === '') break;
    // git matches a prefix of a name (strncmp over the item's length): `p` names every p…
    for (const [name, bits] of COMPONENT_NAMES) {
      if (!name.startsWith(item)) continue;
      if (negated) negative |= bits;
      else positive |= bits;
    }
    if (comma < 0) break;
    s = s.slice(comma);
  }
  return (current & ~negative) | positive;
}

/**
 * Whether git would flush a pack and its index it writes here: core.fsync's `pack` and
 * `pack-metadata` components. core.fsyncObjectFiles (deprecated) is about loose objects
 * only, in git as here; GIT_TEST_FSYNC=false turns every fsync off, as in git. A config
 * this reader cannot read flushes both.
 */
export function packFsync(repo: { commonDir: string; gitDir: string }, env: NodeJS.ProcessEnv = process.env): { pack: boolean; index: boolean } {
  const t = env['GIT_TEST_FSYNC'];
  if (t !== undefined && /^(false|no|off|0|)$/i.test(t.trim())) return { pack: false, index: false };
  const v = readConfigValue('core', 'fsync', repo, env);
  const bits = v === undefined ? PACK | PACK_METADATA : v.value === null ? DEFAULT_COMPONENTS : parseFsyncComponents(v.value);
  return { pack: (bits & PACK) !== 0, index: (bits & PACK_METADATA) !== 0 };
}

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
  const perm = sharedPerm(repo);
  if (perm === undefined) return { merged: 0, objects: 0 }; // a config only git can read: leave the packs be
  const enc = encodePack(entries, sha1);
  // flushed before the inputs go (core.fsync): else a power loss could keep the deletions and lose the merge
  const out = writePackFiles(repo, enc, { fsync: packFsync(repo), perm });
  for (const i of inputs) {
    if (i.name === `pack-${enc.name}`) continue; // the same objects in the same order: that is the output
    // the index first: from then on no reader starts using the pack
    rmSync(`${i.base}.idx`, { force: true });
    rmSync(`${i.base}.pack`, { force: true });
    rmSync(`${i.base}.rev`, { force: true });
  }
  return { merged: inputs.length, objects: entries.length, pack: out };
}
