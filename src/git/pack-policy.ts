/**
 * When a batch of new objects may go out as one pack, and writing it.
 *
 * Every pack counts towards git's `gc.autoPackLimit` (50 by default): past it,
 * `git gc --auto` repacks the whole repository, which is slow on big ones.
 * So a hook writes a pack only while the repository has well under that many
 * (else loose objects, which gc packs incrementally), never next to a
 * multi-pack-index (its pack list is git's to maintain), and the Stop hook
 * merges our small packs back into one (src/git/pack-merge.ts).
 */
import { closeSync, fsyncSync, openSync, readdirSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Repo } from './repo.js';
import type { EncodedPack } from './pack-write.js';
import { readConfigValue } from './config-file.js';
import { randomHex } from '../random.js';
import { adjustSharedPerm, type SharedPerm } from './shared-perm.js';

/** Room left below gc.autoPackLimit before hooks stop adding packs. */
const HEADROOM = 10;
const DEFAULT_AUTO_PACK_LIMIT = 50;

export function packDir(repo: Repo): string {
  return join(repo.commonDir, 'objects', 'pack');
}

const limits = new WeakMap<Repo, number>();

function autoPackLimit(repo: Repo): number {
  let n = limits.get(repo);
  if (n === undefined) {
    const v = readConfigValue('gc', 'autopacklimit', repo);
    const parsed = v?.value != null ? Number.parseInt(v.value, 10) : NaN;
    // 0 turns git's pack-count trigger off; our own limit still applies
    n = Number.isFinite(parsed) && parsed > 0 ? parsed : DEFAULT_AUTO_PACK_LIMIT;
    limits.set(repo, n);
  }
  return n;
}

/** Whether a batch of objects may be written as a new pack now. */
export function packWritable(repo: Repo, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env['ENTIRE_PACK_WRITES'] === '0' || repo.objectFormat !== 'sha1') return false;
  let names: string[];
  try {
    names = readdirSync(packDir(repo));
  } catch {
    return false;
  }
  let packs = 0;
  for (const n of names) {
    if (n === 'multi-pack-index') return false;
    if (n.endsWith('.idx')) packs++;
  }
  return packs + 1 <= autoPackLimit(repo) - HEADROOM;
}

/** How writePackFiles hardens and shares what it writes (none of it on the hooks' commit path). */
export interface PackFileOptions {
  /** fsync the pack, its index, and then their directory (see pack-merge.ts packFsync). */
  fsync?: { pack: boolean; index: boolean };
  /** core.sharedRepository: the files get the group's bits before they are renamed in (as git's finish_tmp_packfile). */
  perm?: SharedPerm;
}

let fsyncImpl: (fd: number, what: 'pack' | 'index' | 'directory') => void = (fd) => fsyncSync(fd);

/** Tests: observe (or replace) the fsync calls of writePackFiles; null restores fsync(2). */
export function setFsyncForTests(fn: ((fd: number, what: 'pack' | 'index' | 'directory') => void) | null): void {
  fsyncImpl = fn ?? ((fd) => fsyncSync(fd));
}

function writeFileSynced(path: string, data: Buffer, what: 'pack' | 'index', sync: boolean, perm: SharedPerm): void {
  const fd = openSync(path, 'wx', 0o444);
  try {
    for (let off = 0; off < data.length; ) off += writeSync(fd, data, off, data.length - off);
    if (sync) fsyncImpl(fd, what);
  } finally {
    closeSync(fd);
  }
  adjustSharedPerm(path, perm);
}

/**
 * Put `enc` in place as `pack-<checksum>.{pack,idx}`: the pack first, then
 * its index, each under a temporary name and renamed, as git does (readers
 * find packs through their index). Without options not fsynced, like the
 * loose objects it replaces (git's default `core.fsync` leaves loose objects
 * to the OS): that is the hooks' commit path.
 */
export function writePackFiles(repo: Repo, enc: EncodedPack, opts: PackFileOptions = {}): string {
  const dir = packDir(repo);
  const base = join(dir, `pack-${enc.name}`);
  const tag = `${process.pid}_${randomHex(4)}`;
  const tmpPack = join(dir, `tmp_pack_${tag}`);
  const tmpIdx = join(dir, `tmp_idx_${tag}`);
  const plain = !opts.fsync && !opts.perm;
  try {
    if (plain) writeFileSync(tmpPack, enc.pack, { mode: 0o444 });
    else writeFileSynced(tmpPack, enc.pack, 'pack', opts.fsync?.pack === true, opts.perm ?? 0);
    renameSync(tmpPack, `${base}.pack`);
    if (plain) writeFileSync(tmpIdx, enc.idx, { mode: 0o444 });
    else writeFileSynced(tmpIdx, enc.idx, 'index', opts.fsync?.index === true, opts.perm ?? 0);
    renameSync(tmpIdx, `${base}.idx`);
  } catch (e) {
    rmSync(tmpPack, { force: true });
    rmSync(tmpIdx, { force: true });
    throw e;
  }
  if (opts.fsync && (opts.fsync.pack || opts.fsync.index)) {
    // the renames themselves: durable before anything that relies on them (pack-merge's deletions)
    const fd = openSync(dir, 'r');
    try {
      fsyncImpl(fd, 'directory');
    } finally {
      closeSync(fd);
    }
  }
  return base;
}
