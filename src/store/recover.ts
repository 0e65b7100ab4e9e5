/**
 * Finding and repairing refs of Entire's branches that name objects no
 * longer in the object store (SPEC-2 §A.11, §E.3), and ref lock files left
 * behind by killed processes. Used by `entire doctor`; nothing here runs on
 * a hook path.
 *
 * How a ref loses its object: `git gc --prune=now` (or `git prune`) deletes
 * every object no ref reaches, however fresh. A hook writes its objects,
 * then moves the ref; a gc that listed the refs in between deletes the new
 * commit (casWrite checks and rewrites once, but a gc can still win after
 * the check). The branch's older commits stay: they were reachable, and the
 * reflog keeps them reachable too. So the repair is to move the ref back to
 * the newest commit whose objects are all present, and to merge what the
 * remote-tracking ref holds.
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync, type Stats } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { randomHex } from '../random.js';
import type { Repo } from '../git/repo.js';
import { zeroOid } from '../git/repo.js';
import { runGit } from '../git/exec.js';
import { parseCommit, identTime } from '../git/objects.js';
import { commitAndTreePresent, refTarget } from './branch.js';
import { isPidAlive } from '../session/lock.js';

export interface Completeness {
  complete: boolean;
  /** The commit itself is missing. */
  commitMissing: boolean;
  /** Some objects it reaches are missing (up to a few ids, for the report). */
  missing: string[];
}

/**
 * Whether commit `oid` and everything it reaches (its history, trees and
 * blobs; with `not`, only what those commits do not reach) are in the object
 * store: what readers need, and what `git gc` needs to succeed (it refuses
 * to repack a ref whose objects are missing).
 */
export async function commitComplete(repo: Repo, oid: string, not: string[] = []): Promise<Completeness> {
  if (!(await commitAndTreePresent(repo, oid))) {
    const c = await repo.objects.read(oid).catch(() => null);
    return { complete: false, commitMissing: !c || c.type !== 'commit', missing: [oid] };
  }
  const args = ['rev-list', '--objects', '--missing=print', oid];
  if (not.length > 0) args.push('--not', ...not);
  const r = await runGit(args, { cwd: repo.root, allowFailure: true });
  const missing: string[] = [];
  for (const line of r.stdout.toString('utf8').split('\n')) if (line.startsWith('?')) missing.push(line.slice(1).trim());
  if (r.code !== 0) {
    // a missing commit in the history stops the walk: git names it
    const m = /(?:Could not read|bad object) ([0-9a-f]{40,64})/.exec(r.stderr);
    missing.push(m?.[1] ?? '(history)');
  }
  return { complete: missing.length === 0, commitMissing: false, missing: missing.slice(0, 5) };
}

export interface ReflogEntry {
  old: string;
  new: string;
  /** When the entry was written (null if unreadable). */
  when: Date | null;
  message: string;
}

/** The reflog of `ref` (files backend: `<common dir>/logs/<ref>`), oldest first; [] when there is none. */
export function readReflog(repo: Repo, ref: string): ReflogEntry[] {
  let text: string;
  try {
    text = readFileSync(join(repo.commonDir, 'logs', ref), 'utf8');
  } catch {
    return [];
  }
  const out: ReflogEntry[] = [];
  for (const line of text.split('\n')) {
    const m = /^([0-9a-f]{40,64}) ([0-9a-f]{40,64}) (.*?> \d+ [+-]\d{4})(?:\t(.*))?$/.exec(line);
    if (!m) continue;
    out.push({ old: m[1]!, new: m[2]!, when: identTime(m[3]!), message: m[4] ?? '' });
  }
  return out;
}

/** The commits a reflog named, newest first, each once, without the zero id and `except`. */
export function reflogCandidates(repo: Repo, ref: string, except: readonly string[] = []): { oid: string; when: Date | null }[] {
  const zero = zeroOid(repo.objectFormat);
  const seen = new Set<string>([zero, ...except]);
  const out: { oid: string; when: Date | null }[] = [];
  const entries = readReflog(repo, ref);
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i]!;
    for (const oid of [e.new, e.old]) {
      if (seen.has(oid)) continue;
      seen.add(oid);
      out.push({ oid, when: e.when });
    }
  }
  return out;
}

/** Of `oids`, those the object store does not have (one `git cat-file --batch-check`). */
export async function missingObjects(repo: Repo, oids: Iterable<string>): Promise<Set<string>> {
  const list = [...new Set(oids)];
  const out = new Set<string>();
  if (list.length === 0) return out;
  const r = await runGit(['cat-file', '--batch-check'], { cwd: repo.root, input: list.join('\n') + '\n', allowFailure: true });
  for (const line of r.stdout.toString('utf8').split('\n')) {
    const m = /^([0-9a-f]{40,64}) missing$/.exec(line.trim());
    if (m) out.add(m[1]!);
  }
  return out;
}

/**
 * Drop the lines of `ref`'s reflog that name one of `oids` (commits that
 * are gone), under the ref's lock. false: no reflog, nothing to drop, or the
 * lock is held by someone else (nothing changed).
 */
export function dropReflogLines(repo: Repo, ref: string, oids: ReadonlySet<string>): boolean {
  const path = join(repo.commonDir, 'logs', ref);
  const lock = join(repo.commonDir, ref) + '.lock';
  let fd: number;
  try {
    fd = openSync(lock, 'wx', 0o666);
  } catch {
    return false;
  }
  try {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      return false;
    }
    const lines = text.split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    const keep = lines.filter((l) => !l.split(' ', 2).some((o) => oids.has(o)));
    if (keep.length === lines.length) return false;
    const tmp = `${path}.${process.pid}.${randomHex(4)}.tmp`;
    try {
      writeFileSync(tmp, keep.map((l) => l + '\n').join(''));
      renameSync(tmp, path);
    } catch {
      rmSync(tmp, { force: true });
      return false;
    }
    return true;
  } finally {
    closeSync(fd);
    rmSync(lock, { force: true });
  }
}

/**
 * Drop the lines of `ref`'s reflog that name a missing object or a commit
 * reaching one, under the ref's lock as `git reflog expire` does: git
 * fsck reports such lines as errors, and `git gc` fails on them (it packs
 * what reflogs reach). `base`: the complete commit the ref was just reset
 * to; its ancestors need no check. Returns how many lines were dropped; 0
 * also when someone else holds the ref's lock (nothing changes then).
 */
export async function pruneReflog(repo: Repo, ref: string, base: string | null): Promise<number> {
  const path = join(repo.commonDir, 'logs', ref);
  if (!existsSync(path)) return 0;
  const lock = join(repo.commonDir, ref) + '.lock';
  let fd: number;
  try {
    mkdirSync(dirname(lock), { recursive: true });
    fd = openSync(lock, 'wx', 0o666);
  } catch {
    return 0;
  }
  try {
    const lines = readFileSync(path, 'utf8').split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    const zero = zeroOid(repo.objectFormat);
    const oids = new Set<string>();
    for (const l of lines) for (const o of l.split(' ', 2)) if (/^[0-9a-f]{40,64}$/.test(o) && o !== zero) oids.add(o);
    const bad = await missingObjects(repo, oids);
    // present commits off the base's history (the lines written after the damage): complete?
    const ancestors = new Set<string>();
    if (base) {
      const r = await runGit(['rev-list', base], { cwd: repo.root, allowFailure: true });
      for (const l of r.stdout.toString('utf8').split('\n')) if (l !== '') ancestors.add(l);
    }
    for (const o of oids) {
      if (bad.has(o) || ancestors.has(o)) continue;
      if (!(await commitComplete(repo, o, base ? [base] : [])).complete) bad.add(o);
    }
    if (bad.size === 0) return 0;
    const keep = lines.filter((l) => !l.split(' ', 2).some((o) => bad.has(o)));
    const tmp = `${path}.${process.pid}.${randomHex(4)}.tmp`;
    try {
      writeFileSync(tmp, keep.map((l) => l + '\n').join(''));
      renameSync(tmp, path);
    } catch (e) {
      rmSync(tmp, { force: true });
      throw e;
    }
    return lines.length - keep.length;
  } finally {
    closeSync(fd);
    rmSync(lock, { force: true });
  }
}

export interface LostCommit {
  oid: string;
  parents: string[];
  time: number;
  message: string;
}

/**
 * Commits the object store still holds that no ref reaches (reflogs not
 * counted) and whose message `wanted` accepts: `git fsck --unreachable`.
 * Costs a walk of the whole repository; only for when nothing better is left.
 */
export async function lostCommits(repo: Repo, wanted: (message: string) => boolean): Promise<LostCommit[]> {
  const r = await runGit(['fsck', '--connectivity-only', '--unreachable', '--no-reflogs', '--no-progress'], { cwd: repo.root, allowFailure: true });
  const out: LostCommit[] = [];
  for (const line of r.stdout.toString('utf8').split('\n')) {
    const m = /^(?:unreachable|dangling) commit ([0-9a-f]{40,64})$/.exec(line.trim());
    if (!m) continue;
    const o = await repo.objects.read(m[1]!).catch(() => null);
    if (!o || o.type !== 'commit') continue;
    const c = parseCommit(o.data, repo.objectFormat);
    if (!c || !wanted(c.message)) continue;
    out.push({ oid: o.oid, parents: c.parents, time: identTime(c.committer)?.getTime() ?? 0, message: c.message });
  }
  return out;
}

/**
 * Of `commits`, the ones no other one has as a parent (the tips of the lines
 * they form), newest first.
 */
export function headsOf(commits: LostCommit[]): LostCommit[] {
  const parents = new Set<string>();
  for (const c of commits) for (const p of c.parents) parents.add(p);
  return commits.filter((c) => !parents.has(c.oid)).sort((a, b) => b.time - a.time);
}

/** Whether `message` is one Entire writes on `entire/checkpoints/v1` (SPEC §2.8). */
export function isMetadataMessage(message: string): boolean {
  return (
    /^Checkpoint: [0-9a-f]{12}\n\nEntire-Session: /.test(message) ||
    /^Finalize transcript for Checkpoint: [0-9a-f]{12}$/.test(message) ||
    message === 'Merge remote session logs' ||
    message === 'Initialize sessions branch'
  );
}

/** The session a shadow step's message names, or null when it is no step message. */
export function stepSession(message: string): string | null {
  if (!/^Entire-Metadata(?:-Task)?: /m.test(message)) return null;
  return /^Entire-Session: (.+)$/m.exec(message)?.[1]?.trim() ?? null;
}

// ------------------------------------------------------------------ ref health

export type RefProblem = { kind: 'missing-commit' | 'incomplete'; oid: string; missing: string[] };

/**
 * What is wrong with the commit `ref` names: null when the ref is absent or
 * everything it reaches is present. `not`: commits whose objects need not be
 * checked again (e.g. HEAD for a shadow branch, whose tree is mostly HEAD's).
 */
export async function refProblem(repo: Repo, ref: string, not: string[] = []): Promise<RefProblem | null> {
  const oid = await refTarget(repo, ref);
  if (!oid) return null;
  const c = await commitComplete(repo, oid, not);
  if (c.complete) return null;
  return { kind: c.commitMissing ? 'missing-commit' : 'incomplete', oid, missing: c.missing };
}

/** The first of `candidates` (in order) that is complete; null if none. At most `max` are checked. */
export async function firstComplete<T extends { oid: string }>(repo: Repo, candidates: T[], max = 20, not: string[] = []): Promise<T | null> {
  for (const c of candidates.slice(0, max)) {
    if ((await commitComplete(repo, c.oid, not)).complete) return c;
  }
  return null;
}

// ------------------------------------------------------------------ ref locks

/** A ref lock older than this is left by a process that is gone (see `staleRefLocks`). */
export const REF_LOCK_STALE_MS = 10 * 60 * 1000;

export interface StaleRefLock {
  path: string;
  /** Path relative to the common dir, for the report. */
  name: string;
  ageMs: number;
  st: Stats;
}

/** A `git gc` recorded in `gc.pid` that is still running on this host. */
export function gcRunning(commonDir: string): boolean {
  try {
    const [pid, host] = readFileSync(join(commonDir, 'gc.pid'), 'utf8').trim().split(/\s+/);
    if (host && host !== hostname()) return true; // another machine's gc: we cannot tell; assume it runs
    return isPidAlive(Number(pid));
  } catch {
    return false;
  }
}

function walkLocks(dir: string, out: string[], depth = 0): void {
  if (depth > 12) return;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const n of names) {
    const p = join(dir, n);
    if (n.endsWith('.lock')) out.push(p);
    else if (!n.includes('.')) {
      try {
        if (statSync(p).isDirectory()) walkLocks(p, out, depth + 1);
      } catch {
        /* vanished */
      }
    }
  }
}

/**
 * Ref lock files that block Entire's ref updates and that no live process
 * holds: `<ref>.lock` under `refs/heads/entire/` and `refs/remotes/<remote>/entire/`,
 * and `packed-refs.lock`. Git, and our in-process ref writer
 * (src/git/ref-files.ts), hold such a lock for the milliseconds of one ref
 * transaction and record no owner in it; so a lock is taken as stale when it
 * was last written over REF_LOCK_STALE_MS ago, and `packed-refs.lock` only
 * while no `git gc` recorded in `gc.pid` still runs. Other locks (`index.lock`,
 * the user's branches) are git's to report.
 */
export function staleRefLocks(repo: Repo, now = Date.now()): StaleRefLock[] {
  const paths: string[] = [];
  walkLocks(join(repo.commonDir, 'refs', 'heads', 'entire'), paths);
  let remotes: string[] = [];
  try {
    remotes = readdirSync(join(repo.commonDir, 'refs', 'remotes'));
  } catch {
    /* none */
  }
  for (const r of remotes) walkLocks(join(repo.commonDir, 'refs', 'remotes', r, 'entire'), paths);
  const packed = join(repo.commonDir, 'packed-refs.lock');
  if (existsSync(packed) && !gcRunning(repo.commonDir)) paths.push(packed);
  const out: StaleRefLock[] = [];
  for (const path of paths) {
    let st: Stats;
    try {
      st = statSync(path);
    } catch {
      continue;
    }
    if (!st.isFile()) continue;
    const ageMs = now - st.mtimeMs;
    if (ageMs <= REF_LOCK_STALE_MS) continue;
    out.push({ path, name: path.slice(repo.commonDir.length + 1), ageMs, st });
  }
  return out;
}

/** Remove a lock `staleRefLocks` found, if it is still that very file (inode, size, mtime). */
export function removeStaleRefLock(lock: StaleRefLock): 'removed' | 'gone' | 'changed' {
  let st: Stats;
  try {
    st = statSync(lock.path);
  } catch {
    return 'gone';
  }
  if (st.ino !== lock.st.ino || st.size !== lock.st.size || st.mtimeMs !== lock.st.mtimeMs) return 'changed';
  try {
    unlinkSync(lock.path);
  } catch {
    return 'gone';
  }
  return 'removed';
}
