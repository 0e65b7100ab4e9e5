/**
 * SPEC-2 §A.4: writes and deletions stay inside named roots. A repository
 * cloned from someone else can commit anything under `.entire/` — a
 * symlink `tmp → ../../.ssh`, a `logs/entire.log` symlink to `~/.bashrc` —
 * so every file we create, append to or delete below a root goes through
 * here:
 *
 * - `confinedDir(root, rel)`: every component from `root` (trusted: a
 *   worktree, the git dir, an agent's transcript root) down to the target
 *   directory must `lstat` as a real directory; missing ones are created
 *   (0700 by default) and checked again. Anything else throws UNSAFE_PATH.
 * - files are opened with `O_NOFOLLOW` (a planted symlink as the last
 *   component fails with ELOOP instead of being written through); new files
 *   are a temporary `O_CREAT|O_EXCL|O_NOFOLLOW` 0600 file renamed into place
 *   (rename replaces a planted link, never its target);
 * - deletion removes a symlink itself, never what it points to, and only
 *   below a checked parent.
 *
 * Checked directories are remembered for the process (hooks write several
 * files into the same one).
 */
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { EntireError } from '../errors.js';
import { randomHex } from '../random.js';

const checked = new Set<string>();

function unsafe(path: string, why: string): EntireError {
  return new EntireError('UNSAFE_PATH', `refusing to use ${path}: ${why}`, { detail: { path } });
}

function splitRel(rel: string): string[] {
  if (isAbsolute(rel)) throw unsafe(rel, 'not a relative path');
  const parts = rel.split('/').filter((p) => p !== '' && p !== '.');
  for (const p of parts) if (p === '..' || p.includes('\0') || p.includes('\\')) throw unsafe(rel, 'path leaves its root');
  return parts;
}

/** Is `path` a real directory (not a symlink)? false when missing; throws UNSAFE_PATH for anything else. */
function isRealDir(path: string): boolean {
  let st;
  try {
    st = lstatSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw unsafe(path, (e as Error).message);
  }
  if (st.isSymbolicLink()) throw unsafe(path, 'it is a symbolic link');
  if (!st.isDirectory()) throw unsafe(path, 'it is not a directory');
  return true;
}

/**
 * `root/rel` as a directory every component of which below `root` is a real
 * directory. `create` (default true) makes missing ones with `mode`.
 * Throws EntireError UNSAFE_PATH; with `create: false`, returns null when a
 * component is missing.
 */
export function confinedDir(root: string, rel: string, opts: { create?: boolean; mode?: number } = {}): string {
  const r = confinedDirOrNull(root, rel, opts);
  if (r === null) throw new EntireError('UNSAFE_PATH', `${join(root, rel)} does not exist`, { detail: { path: join(root, rel) } });
  return r;
}

export function confinedDirOrNull(root: string, rel: string, opts: { create?: boolean; mode?: number } = {}): string | null {
  const base = resolve(root);
  let cur = base;
  for (const part of splitRel(rel)) {
    cur = join(cur, part);
    if (checked.has(cur)) continue;
    if (!isRealDir(cur)) {
      if (opts.create === false) return null;
      try {
        mkdirSync(cur, { mode: opts.mode ?? 0o700 });
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw unsafe(cur, (e as Error).message);
      }
      if (!isRealDir(cur)) throw unsafe(cur, 'it vanished while being created');
    }
    checked.add(cur);
  }
  return cur;
}

/** Is `root/rel` free of symlinks and non-directories (missing components allowed)? Never throws. */
export function confinedDirSafe(root: string, rel: string): boolean {
  try {
    confinedDirOrNull(root, rel, { create: false });
    return true;
  } catch {
    return false;
  }
}

function checkName(name: string): void {
  if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('\0')) throw unsafe(name, 'not a plain file name');
}

/** Open `dir/name` (dir from confinedDir) never following a final symlink. */
export function openIn(dir: string, name: string, flags: number, mode = 0o600): number {
  checkName(name);
  return openSync(join(dir, name), flags | constants.O_NOFOLLOW, mode);
}

/** Open a file in a checked directory for appending, creating it 0600. */
export function openAppendIn(dir: string, name: string): number {
  return openIn(dir, name, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT);
}

/**
 * Replace `dir/name` with `data`: a new 0600 temporary file (`O_EXCL`,
 * `O_NOFOLLOW`) renamed over it. A planted symlink is replaced, not followed.
 */
export function writeFileIn(dir: string, name: string, data: string | Buffer, mode = 0o600): void {
  checkName(name);
  const tmp = `${name}.${process.pid}.${randomHex(3)}.tmp`;
  const fd = openIn(dir, tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode);
  try {
    const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let off = 0;
    while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
  } catch (e) {
    closeSync(fd);
    rmSync(join(dir, tmp), { force: true });
    throw e;
  }
  closeSync(fd);
  try {
    renameSync(join(dir, tmp), join(dir, name));
  } catch (e) {
    rmSync(join(dir, tmp), { force: true });
    throw e;
  }
}

/**
 * `writeFileIn` for an absolute `path` below `root`: the directories from
 * `root` down are checked (and made, `dirMode`) first. Throws UNSAFE_PATH
 * when `path` is not below `root`.
 */
export function writeFileUnder(root: string, path: string, data: string | Buffer, mode = 0o600, dirMode = 0o755): void {
  const base = resolve(root);
  const abs = resolve(path);
  if (!abs.startsWith(base + '/')) throw unsafe(path, `not inside ${root}`);
  const rel = abs.slice(base.length + 1);
  const slash = rel.lastIndexOf('/');
  const dir = slash < 0 ? base : confinedDir(base, rel.slice(0, slash), { mode: dirMode });
  writeFileIn(dir, slash < 0 ? rel : rel.slice(slash + 1), data, mode);
}

/**
 * Read a regular file without following a final symlink (`O_NOFOLLOW`,
 * `O_NONBLOCK`: a FIFO planted in its place neither hangs nor is read).
 * null when missing or not a regular file; at most `maxBytes`.
 */
export function readFileNoFollow(path: string, maxBytes = 64 * 1024 * 1024): Buffer | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > maxBytes) return null;
    const buf = Buffer.allocUnsafe(st.size);
    let off = 0;
    while (off < st.size) {
      const n = readSync(fd, buf, off, st.size - off, off);
      if (n === 0) break;
      off += n;
    }
    return off === st.size ? buf : buf.subarray(0, off);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/**
 * Delete `root/rel`: its parent must be a confined directory; the target
 * itself goes whatever it is (a symlink is unlinked, never followed; a
 * directory only with `recursive`, and Node's recursive removal unlinks
 * the symlinks it meets without following them). Missing is fine.
 * Returns false when the parent is unsafe (nothing was deleted).
 */
export function removeConfined(root: string, rel: string, opts: { recursive?: boolean } = {}): boolean {
  const parts = splitRel(rel);
  if (parts.length === 0) throw unsafe(rel, 'refusing to remove a root');
  const name = parts.pop()!;
  let parent: string | null;
  try {
    parent = confinedDirOrNull(root, parts.join('/'), { create: false });
  } catch {
    return false;
  }
  if (parent === null) return true; // nothing there
  const target = join(parent, name);
  let st;
  try {
    st = lstatSync(target);
  } catch {
    return true;
  }
  if (st.isDirectory() && !st.isSymbolicLink()) {
    if (!opts.recursive) return false;
    rmSync(target, { recursive: true, force: true });
    // forget what was below it
    for (const d of [...checked]) if (d === target || d.startsWith(target + '/')) checked.delete(d);
  } else {
    unlinkSync(target);
  }
  return true;
}
