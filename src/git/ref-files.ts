/**
 * Ref transactions done in-process on the files ref backend, with git's own
 * lock protocol (gitrepository-layout(5), refs/files-backend.c): every ref
 * is locked by creating `<ref>.lock` exclusively, the expected old values
 * are checked under the locks, reflog lines are appended, and each lock is
 * renamed over its ref. Git and we exclude each other through the same lock
 * files, so a concurrent `git commit`, `update-ref` or `gc` is safe.
 *
 * Hooks end with one such transaction; running `git update-ref` for it
 * costs loading child_process plus a process, about 9 ms of a post-commit.
 * Whatever is not the plain case answers `undefined` and the caller runs
 * git: packed refs to delete, a lock held by someone else, a name that
 * clashes with a directory, HEAD pointing at one of the refs, an identity or
 * date that only git can work out, or a ref store other than files.
 */
import { appendFileSync, closeSync, constants, ftruncateSync, openSync, readFileSync, readSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Repo } from './repo.js';
import type { RefUpdate } from './refs.js';
import { readConfigValue } from './config-file.js';
import { zeroOid } from './repo.js';
import { isValidRefName, packedRefsHaveUnder, packedRefValue, parseRefFile, readHead } from './ref-format.js';
import { adjustSharedPerm, mkdirShared, sharedPerm } from './shared-perm.js';
import { fault } from '../faults.js';
import { processStartTime } from '../process-identity.js';
import { hostname } from 'node:os';

/**
 * Issue 25 point 10: a hook SIGKILLed while it holds `<ref>.lock` (a commit's post-commit killed
 * from outside; on a loaded machine the kill lands inside the transaction often enough) left
 * the lock for good, and git, like us, then refused every update of the metadata branch: each
 * checkpoint after it became pending work that could never be written, every trailer dangled
 * (until `doctor --force`, ten minutes later). Git's lock files say nothing of their holder, so
 * ours say it while held: `entire-ref-lock <pid> <start time> <host>`, replaced by the ref's value as
 * the last write before the rename. A later transaction that meets such a lock of a process that
 * no longer runs on this host (its pid is gone, or now names a process started at another time: pids wrap
 * at 32768 on a busy machine) removes it under an O_EXCL guard and goes on. A lock without
 * the mark (git's, or one of ours killed between its last write and its rename) is left to
 * git and `doctor`.
 */
const LOCK_MARK = 'entire-ref-lock';
const GUARD_STALE_MS = 10_000;
let selfStart: string | undefined;
let host: string | undefined;

/** The host name as a mark may hold it (a lock on a shared file system may be another machine's). */
function thisHost(): string {
  host ??= hostname().replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 64) || '_';
  return host;
}

/** The start time of process `pid`; '0' where unknown, null when no such process. */
function startTime(pid: number): string | null {
  const t = processStartTime(pid);
  return t === null ? null : t || '0';
}

function lockMark(): string {
  selfStart ??= startTime(process.pid) ?? '0';
  return `${LOCK_MARK} ${process.pid} ${selfStart} ${thisHost()}\n`;
}

/** Is `lockPath` a lock of ours whose holder no longer runs? */
function abandonedLock(lockPath: string): boolean {
  let text: string;
  try {
    const fd = openSync(lockPath, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      const buf = Buffer.alloc(160);
      text = buf.subarray(0, readSync(fd, buf, 0, buf.length, 0)).toString('latin1');
    } finally {
      closeSync(fd);
    }
  } catch {
    return false;
  }
  const m = new RegExp(`^${LOCK_MARK} (\\d+) (\\d+) (\\S+)\n$`).exec(text);
  if (!m || m[3] !== thisHost()) return false;
  const pid = Number(m[1]);
  if (pid === process.pid) return false;
  const now = startTime(pid);
  return now === null || (now !== '0' && m[2] !== '0' && now !== m[2]);
}

/**
 * Remove `lockPath` if it is an abandoned lock of ours (see LOCK_MARK), under the guard
 * `<lock>.entire-takeover` (O_EXCL: one remover at a time; under it the abandoned lock cannot
 * change, as only its dead holder or a guard holder would remove it). True when removed.
 */
function takeOverAbandonedLock(lockPath: string): boolean {
  if (!abandonedLock(lockPath)) return false;
  const guard = lockPath + '.entire-takeover';
  let fd: number;
  try {
    fd = openSync(guard, 'wx', 0o600);
  } catch {
    try {
      // a guard left by a process killed during its takeover
      if (Date.now() - statSync(guard).mtimeMs > GUARD_STALE_MS) rmSync(guard, { force: true });
    } catch {
      /* gone meanwhile */
    }
    return false;
  }
  try {
    closeSync(fd);
    if (!abandonedLock(lockPath)) return false;
    rmSync(lockPath, { force: true });
    return true;
  } finally {
    rmSync(guard, { force: true });
  }
}

/** Create `<path>.lock` (O_EXCL) marked as ours; an abandoned lock of ours in the way is taken over once. */
function createRefLock(path: string): number {
  const lockPath = path + '.lock';
  let fd: number;
  try {
    fd = openSync(lockPath, 'wx', 0o666);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || !takeOverAbandonedLock(lockPath)) throw e;
    fd = openSync(lockPath, 'wx', 0o666);
  }
  try {
    writeSync(fd, lockMark());
  } catch (e) {
    closeSync(fd);
    rmSync(lockPath, { force: true });
    throw e;
  }
  return fd;
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** The ident and time git would write in a reflog line, when they are plain to see. */
function reflogIdent(repo: Repo, env: NodeJS.ProcessEnv): string | undefined {
  if (env['GIT_COMMITTER_DATE']) return undefined; // git parses many date formats
  const name = env['GIT_COMMITTER_NAME'] ?? readConfigValue('user', 'name', repo)?.value;
  const email = env['GIT_COMMITTER_EMAIL'] ?? readConfigValue('user', 'email', repo)?.value;
  if (!name || !email || /[<>\n]/.test(name + email)) return undefined;
  const now = new Date();
  const off = -now.getTimezoneOffset();
  const abs = Math.abs(off);
  const tz = `${off < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`;
  // git drops "crud" (whitespace and .,:;<>"\\') around ident parts
  const uncrud = (x: string): string => x.replace(/^[\s.,:;<>"\\']+|[\s.,:;<>"\\']+$/g, '');
  return `${uncrud(name)} <${uncrud(email)}> ${Math.floor(now.getTime() / 1000)} ${tz}`;
}

/** Whether updates of this ref get a reflog line (core.logAllRefUpdates, git's defaults). */
function logsRef(repo: Repo, ref: string, env: NodeJS.ProcessEnv, start = true): boolean | undefined {
  if (readText(join(repo.commonDir, 'logs', ref)) !== null) return true; // an existing reflog always grows
  if (!start) return false;
  const found = readConfigValue('core', 'logallrefupdates', repo, env);
  if (found === undefined) return undefined;
  let v = found.value;
  if (v === null) {
    // unset: on, unless the repository is bare
    const bare = readConfigValue('core', 'bare', repo, env);
    if (bare === undefined) return undefined;
    v = bare.value !== null && /^(true|yes|on|1)$/i.test(bare.value) ? 'false' : 'true';
  }
  v = v.toLowerCase();
  if (v === 'always') return true;
  if (/^(true|yes|on|1)$/.test(v)) return /^refs\/(heads|remotes|notes)\//.test(ref);
  if (/^(false|no|off|0|)$/.test(v)) return false;
  return undefined;
}

/** Largest packed-refs read here; git binary-searches bigger ones (a repository with many tags). */
const MAX_PACKED_REFS = 256 * 1024;

/** Ref names written here: branches and notes refs, in git's rules, spelt in a portable subset of ASCII. */
function writableName(r: string): boolean {
  return (r.startsWith('refs/heads/') || r.startsWith('refs/notes/')) && isValidRefName(r) && /^[A-Za-z0-9._/-]+$/.test(r);
}

/**
 * Apply `updates` atomically (all or none), as `git update-ref --stdin`
 * would. 'race': an expected old value did not hold, nothing changed.
 * undefined: not a case for this code; nothing changed, ask git.
 */
export function updateRefsInProcess(repo: Repo, updates: RefUpdate[], message: string, env: NodeJS.ProcessEnv = process.env): 'ok' | 'race' | undefined {
  if (!repo.filesRefs || env['ENTIRE_LOCAL_REFS'] === '0') return undefined;
  const refs = updates.map((u) => u.ref);
  if (new Set(refs).size !== refs.length) return undefined;
  if (!refs.every(writableName)) return undefined;
  const hexLen = repo.objectFormat === 'sha256' ? 64 : 40;
  // HEAD's own reflog would need a line too; a HEAD git would not read is git's to judge
  const head = readHead(repo.gitDir, hexLen);
  if (head === null || (head.symref !== undefined && refs.includes(head.symref))) return undefined;
  // core.sharedRepository: what we create gets the group's bits, as git's files do
  const perm = sharedPerm(repo, env);
  if (perm === undefined) return undefined;
  const ident = reflogIdent(repo, env);
  if (ident === undefined) return undefined;
  const logs = new Map<string, boolean>();
  for (const u of updates) {
    const r = u.ref;
    const l = logsRef(repo, r, env, u.startReflog !== false);
    if (l === undefined) return undefined;
    logs.set(r, l);
  }
  const zero = zeroOid(repo.objectFormat);

  const locks: { ref: string; path: string; fd: number }[] = [];
  const release = (): void => {
    for (const l of locks) {
      try {
        closeSync(l.fd);
      } catch {
        /* already closed */
      }
      rmSync(l.path + '.lock', { force: true });
    }
  };
  try {
    // lock in a fixed order, as git does
    for (const ref of [...refs].sort()) {
      const path = join(repo.commonDir, ref);
      try {
        mkdirShared(dirname(path), perm);
        locks.push({ ref, path, fd: createRefLock(path) });
        adjustSharedPerm(path + '.lock', perm); // the ref is this file, renamed
      } catch {
        release();
        return undefined; // held by another process, or a file where a directory must be
      }
    }
    // packed refs, read once; a big file is git's (it binary-searches it)
    let packed: string | null = null;
    try {
      packed = readFileSync(join(repo.commonDir, 'packed-refs'), 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
        release();
        return undefined;
      }
    }
    if (packed !== null && !packed.endsWith('\n')) packed += '\n';
    if (packed !== null && packed.length > MAX_PACKED_REFS) {
      release();
      return undefined;
    }
    // a new name that clashes with a packed ref as a directory or a file (refs/heads/a vs
    // refs/heads/a/b) is refused by git: let git say so
    if (packed !== null) {
      for (const u of updates) {
        if (u.newOid === null) continue;
        const segs = u.ref.split('/');
        let clash = packedRefsHaveUnder(packed, u.ref);
        // undefined (a packed-refs git must read) counts as a clash: git decides
        for (let i = 3; i < segs.length && !clash; i++) clash = packedRefValue(packed, segs.slice(0, i).join('/'), hexLen) !== null;
        if (clash) {
          release();
          return undefined;
        }
      }
    }
    // values under the locks
    const current = new Map<string, { loose: string | null; packed: string | null; anyPacked: boolean }>();
    for (const { ref, path } of locks) {
      let text: string | null = null;
      try {
        text = readFileSync(path, 'utf8');
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
          release();
          return undefined; // e.g. a directory of refs under this name
        }
      }
      const parsed = text === null ? null : parseRefFile(text, hexLen);
      if (text !== null && parsed?.oid === undefined) {
        release();
        return undefined; // a symbolic ref, or one git must judge
      }
      const loose = parsed?.oid ?? null;
      const inPacked = packed === null ? null : packedRefValue(packed, ref, hexLen);
      if (inPacked === undefined) {
        release();
        return undefined;
      }
      current.set(ref, { loose, packed: loose === null ? inPacked : null, anyPacked: inPacked !== null });
    }
    for (const u of updates) {
      const c = current.get(u.ref)!;
      const value = c.loose ?? c.packed;
      // deleting a ref that packed-refs also names (even under a loose one) rewrites packed-refs: git's job
      if (u.newOid === null && c.anyPacked) {
        release();
        return undefined;
      }
      if (u.oldOid === undefined) continue;
      if ((u.oldOid ?? null) !== (value === zero ? null : value)) {
        release();
        return 'race';
      }
    }
    fault('ref-locks-held');
    // commit: reflog lines, then each lock's mark replaced by the value and renamed (the mark
    // stays while anything else is done, see LOCK_MARK)
    for (const u of updates) {
      const lock = locks.find((l) => l.ref === u.ref)!;
      const c = current.get(u.ref)!;
      const old = c.loose ?? c.packed ?? zero;
      const logPath = join(repo.commonDir, 'logs', u.ref);
      if (u.newOid === null) {
        rmSync(lock.path, { force: true });
        rmSync(logPath, { force: true });
        rmSync(lock.path + '.lock', { force: true });
        continue;
      }
      if (logs.get(u.ref)) {
        try {
          mkdirShared(dirname(logPath), perm);
          appendFileSync(logPath, `${old} ${u.newOid} ${ident}\t${message.replace(/\n/g, ' ')}\n`);
          adjustSharedPerm(logPath, perm); // as git does each time it opens a reflog
        } catch {
          /* git, too, goes on when the reflog cannot be written */
        }
      }
      // no fsync: git's default (core.fsync unset) flushes packs only, not references
      ftruncateSync(lock.fd, 0);
      writeSync(lock.fd, u.newOid + '\n', 0);
      closeSync(lock.fd);
      lock.fd = -1;
      renameSync(lock.path + '.lock', lock.path);
    }
    for (const l of locks) if (l.fd >= 0) closeSync(l.fd);
    locks.length = 0;
    return 'ok';
  } catch (e) {
    release();
    throw e;
  }
}

