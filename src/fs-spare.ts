/**
 * Replacing small files without creating one. A file creation is the slow
 * part of a small write on some file systems: 0.1-0.6 ms each on the bench
 * VM's ext4, where rewriting a file that exists takes tens of microseconds,
 * and a hook that creates a few pays for it on every commit. So a file
 * replaced often (the state index, the commit intent) keeps a spare,
 * `<path>.spare`: an inode it had before, that the next write fills and
 * renames over `path`. Readers of `path` see one whole version or another,
 * as with a temporary file and rename.
 */
import { closeSync, fstatSync, ftruncateSync, linkSync, openSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { randomHex } from './random.js';

const code = (e: unknown): string | undefined => (e as NodeJS.ErrnoException | null)?.code;
const tryUnlink = (path: string): void => rmSync(path, { force: true });

/**
 * Replace `path` with `data`. The content goes into the spare when there is
 * one (else a new temporary file), which is renamed over `path`; the inode
 * `path` had, kept by a hard link, becomes the next spare. A spare still
 * linked elsewhere is never written into. Two writers racing for one spare
 * can leave the older version or one that does not parse, so this is for
 * files whose writers are serialised (the intent: git runs one commit at a
 * time per worktree) or whose readers tolerate that (the index is a cache).
 * Throws on failure, leaving `path` as it was.
 */
export function replaceViaSpare(path: string, data: string, mode = 0o600): void {
  const buf = Buffer.from(data, 'utf8');
  const spare = `${path}.spare`;
  let src = spare;
  let fd: number | null = null;
  try {
    fd = openSync(spare, 'r+');
    if (fstatSync(fd).nlink !== 1) {
      closeSync(fd);
      fd = null;
    }
  } catch {
    fd = null;
  }
  if (fd !== null) {
    try {
      let off = 0;
      while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off, off);
      ftruncateSync(fd, buf.length);
    } finally {
      closeSync(fd);
    }
  } else {
    src = `${path}.${process.pid}.${randomHex(4)}.tmp`;
    writeFileSync(src, buf, { mode, flag: 'wx' });
  }
  // keep the inode being replaced, to be the next spare
  const prev = `${path}.prev`;
  let kept = false;
  try {
    linkSync(path, prev);
    kept = true;
  } catch (e) {
    if (code(e) === 'EEXIST') {
      tryUnlink(prev); // left by a writer that died between its link and its renames
      try {
        linkSync(path, prev);
        kept = true;
      } catch {
        /* no spare this time */
      }
    }
  }
  try {
    renameSync(src, path);
  } catch (e) {
    if (src !== spare) tryUnlink(src);
    if (kept) tryUnlink(prev);
    throw e;
  }
  if (kept) {
    try {
      renameSync(prev, spare);
    } catch {
      tryUnlink(prev);
    }
  }
}

/** Remove `path` by making it the spare of the next replaceViaSpare (a missing file is fine). */
export function retireToSpare(path: string): void {
  try {
    renameSync(path, `${path}.spare`);
  } catch (e) {
    if (code(e) !== 'ENOENT') tryUnlink(path);
  }
}
