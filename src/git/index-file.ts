/**
 * Reading a few entries of a git index file (gitformat-index(5), versions
 * 2–4) in-process. prepare-commit-msg only needs the staged blob of each of
 * a session's candidate paths; reading them here spares the hook a
 * `git diff --cached` process. Index features that change what the entries
 * mean (a split index, a sparse index) answer `undefined`: ask git.
 */
import { closeSync, fstatSync, openSync } from 'node:fs';
import { readAt } from '../fs-read.js';

export interface IndexEntry {
  /** Canonical mode, as in trees: 100644, 100755, 120000, 160000. */
  mode: number;
  /** The stat data git compares to tell an unchanged file (seconds, nanoseconds; 32-bit fields). */
  stat: { ctimeS: number; ctimeNs: number; mtimeS: number; mtimeNs: number; dev: number; ino: number; uid: number; gid: number; size: number };
  oid: string;
  /** 0, or 1–3 for the sides of an unresolved conflict. */
  stage: number;
  /** `git add -N` placeholder. */
  intentToAdd: boolean;
}

/** Larger indexes are left to git (reading them is git's job, and it is fast at it). */
const MAX_INDEX_BYTES = 32 << 20;

/** git's canon_mode: what diff compares. */
export function canonMode(mode: number): number {
  const type = mode & 0o170000;
  if (type === 0o100000) return mode & 0o111 ? 0o100755 : 0o100644;
  if (type === 0o040000) return 0o040000;
  if (type === 0o120000) return 0o120000;
  if (type === 0o160000) return 0o160000;
  return mode;
}

function readWhole(file: string): Buffer | null | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? null : undefined;
  }
  try {
    const size = fstatSync(fd).size;
    if (size > MAX_INDEX_BYTES) return undefined;
    const buf = readAt(fd, 0, size);
    return buf.length === size ? buf : undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * The entries (every stage) of the index at `file` whose path is in
 * `wanted`; an absent index file has none. undefined: ask git.
 */
export function readIndexEntries(file: string, wanted: ReadonlySet<string>, hashBytes: number): Map<string, IndexEntry[]> | undefined {
  const buf = readWhole(file);
  if (buf === null) return new Map();
  if (buf === undefined || buf.length < 12 + hashBytes || buf.toString('latin1', 0, 4) !== 'DIRC') return undefined;
  const version = buf.readUInt32BE(4);
  if (version < 2 || version > 4) return undefined;
  const count = buf.readUInt32BE(8);
  // names are compared as bytes: look only at entries whose length can match
  const want = new Map<string, string>();
  const lengths = new Set<number>();
  for (const p of wanted) {
    const bytes = Buffer.from(p, 'utf8');
    want.set(bytes.toString('latin1'), p);
    lengths.add(bytes.length);
  }
  const out = new Map<string, IndexEntry[]>();
  const end = buf.length - hashBytes;
  let pos = 12;
  let prev = ''; // v4: the previous name, as latin1 (one char per byte)
  for (let i = 0; i < count; i++) {
    const start = pos;
    if (start + 40 + hashBytes + 2 > end) return undefined;
    const mode = buf.readUInt32BE(start + 24);
    const flags = buf.readUInt16BE(start + 40 + hashBytes);
    let p = start + 40 + hashBytes + 2;
    let extended = 0;
    if (flags & 0x4000) {
      if (version < 3) return undefined;
      extended = buf.readUInt16BE(p);
      p += 2;
    }
    let name: string | null = null;
    let nameLen = flags & 0x0fff;
    if (version === 4) {
      let c = buf[p++]!;
      let strip = c & 0x7f;
      while (c & 0x80) {
        c = buf[p++]!;
        strip = (strip + 1) * 128 + (c & 0x7f);
      }
      const nul = buf.indexOf(0, p);
      if (nul < 0 || nul >= end || strip > prev.length) return undefined;
      name = prev.slice(0, prev.length - strip) + buf.toString('latin1', p, nul);
      prev = name;
      nameLen = name.length;
      pos = nul + 1;
    } else {
      const nul = nameLen < 0x0fff ? p + nameLen : buf.indexOf(0, p);
      if (nul < 0 || nul >= end) return undefined;
      nameLen = nul - p;
      if (lengths.has(nameLen)) name = buf.toString('latin1', p, nul);
      // entries are padded with 1–8 NULs to a multiple of 8 bytes
      pos = start + ((nul - start + 8) & ~7);
    }
    // a sparse-index directory entry: paths below it are not listed
    if ((mode & 0o170000) === 0o040000) return undefined;
    if (name === null || !lengths.has(nameLen)) continue;
    const path = want.get(name);
    if (path === undefined) continue;
    const e: IndexEntry = {
      mode: canonMode(mode),
      stat: {
        ctimeS: buf.readUInt32BE(start),
        ctimeNs: buf.readUInt32BE(start + 4),
        mtimeS: buf.readUInt32BE(start + 8),
        mtimeNs: buf.readUInt32BE(start + 12),
        dev: buf.readUInt32BE(start + 16),
        ino: buf.readUInt32BE(start + 20),
        uid: buf.readUInt32BE(start + 28),
        gid: buf.readUInt32BE(start + 32),
        size: buf.readUInt32BE(start + 36),
      },
      oid: buf.toString('hex', start + 40, start + 40 + hashBytes),
      stage: (flags >> 12) & 3,
      intentToAdd: (extended & 0x2000) !== 0,
    };
    const list = out.get(path);
    if (list) list.push(e);
    else out.set(path, [e]);
  }
  // extensions: a split index keeps most entries in another file
  while (pos + 8 <= end) {
    const sig = buf.toString('latin1', pos, pos + 4);
    const size = buf.readUInt32BE(pos + 4);
    if (sig === 'link' || sig === 'sdir') return undefined;
    pos += 8 + size;
  }
  return out;
}

/**
 * Whether a file whose `lstat` (bigint) is `st` still holds the content of
 * index entry `e`, by git's own rule: every recorded stat field matches, and
 * the entry is not "racily clean" (the file changed in the same instant the
 * index was written, `indexMtimeNs`). False means only hashing can tell.
 */
export function unchangedSinceIndexed(e: IndexEntry, st: import('node:fs').BigIntStats, indexMtimeNs: bigint): boolean {
  const s = e.stat;
  const u32 = (v: bigint): number => Number(v & 0xffffffffn);
  if (st.mtimeNs >= indexMtimeNs) return false;
  return (
    Number(st.mtimeNs / 1_000_000_000n) === s.mtimeS &&
    Number(st.mtimeNs % 1_000_000_000n) === s.mtimeNs &&
    Number(st.ctimeNs / 1_000_000_000n) === s.ctimeS &&
    Number(st.ctimeNs % 1_000_000_000n) === s.ctimeNs &&
    u32(st.ino) === s.ino &&
    u32(st.size) === s.size &&
    u32(st.uid) === s.uid &&
    u32(st.gid) === s.gid &&
    canonMode(Number(st.mode)) === e.mode
  );
}
