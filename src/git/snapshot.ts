/**
 * Work-tree snapshots for shadow branches: the given paths as tree changes
 * (blob ids from `git hash-object --stdin-paths`, which applies the path's
 * clean filters such as LFS), to apply on top of a base tree with
 * fast-import. The user's index is never read for writing nor locked, and
 * the cost is one spawn for the changed files, whatever the repository size
 * (a temporary GIT_INDEX_FILE would read and write the whole tree: measured
 * 10 ms vs 3.4 ms on a tiny repository, growing with every tracked file).
 */
import { lstatSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { runGit, splitZ } from './exec.js';
import type { Repo } from './repo.js';
import type { TreeChange } from './fastimport.js';

export interface SnapshotOptions {
  /** Repo-relative paths to take from the work tree (missing → removed). */
  paths: string[];
  /** Paths known not to be ignored (from git status); others are checked. */
  trustedPaths?: ReadonlySet<string>;
}

/** Tree changes that make a tree hold the work tree's version of `paths`. */
export async function snapshotChanges(repo: Repo, opts: SnapshotOptions): Promise<TreeChange[]> {
  const changes: TreeChange[] = [];
  const files: { path: string; mode: '100644' | '100755' }[] = [];
  const toCheck: string[] = [];
  const candidates: { path: string; kind: 'file' | 'link' | 'gone'; mode: '100644' | '100755' }[] = [];
  for (const p of new Set(opts.paths)) {
    if (p === '' || p === '.entire' || p.startsWith('.entire/') || p.startsWith('../') || p.startsWith('/')) continue;
    let st;
    try {
      st = lstatSync(join(repo.root, p));
    } catch {
      candidates.push({ path: p, kind: 'gone', mode: '100644' });
      continue;
    }
    if (st.isDirectory()) continue; // directories and gitlinks are never stored
    const kind = st.isSymbolicLink() ? 'link' : st.isFile() ? 'file' : null;
    if (!kind) continue;
    candidates.push({ path: p, kind, mode: st.mode & 0o111 ? '100755' : '100644' });
    if (!opts.trustedPaths?.has(p)) toCheck.push(p);
  }
  let ignored = new Set<string>();
  if (toCheck.length > 0) {
    const r = await runGit(['check-ignore', '-z', '--stdin'], { cwd: repo.root, input: toCheck.join('\0') + '\0', allowFailure: true });
    if (r.code === 0) ignored = new Set(splitZ(r.stdout));
  }
  for (const c of candidates) {
    if (c.kind === 'gone') changes.push({ op: 'delete', path: c.path });
    else if (ignored.has(c.path)) continue;
    else if (c.kind === 'link') {
      try {
        changes.push({ op: 'put', path: c.path, mode: '120000', content: readlinkSync(join(repo.root, c.path)) });
      } catch {
        changes.push({ op: 'delete', path: c.path });
      }
    } else files.push({ path: c.path, mode: c.mode });
  }
  if (files.length > 0) {
    // paths may hold any byte but a newline; those are left out rather than mangled
    const safe = files.filter((f) => !f.path.includes('\n'));
    const r = await runGit(['hash-object', '-w', '--stdin-paths'], {
      cwd: repo.root,
      input: safe.map((f) => f.path).join('\n') + '\n',
      allowFailure: true,
    });
    if (r.code === 0) {
      const oids = r.stdout.toString('utf8').trim().split('\n');
      safe.forEach((f, i) => {
        const oid = oids[i];
        if (oid) changes.push({ op: 'put-oid', path: f.path, oid, mode: f.mode });
      });
    } else {
      // a file vanished mid-way: hash one by one, dropping the ones that are gone
      for (const f of safe) {
        const one = await runGit(['hash-object', '-w', '--', f.path], { cwd: repo.root, allowFailure: true });
        const oid = one.stdout.toString('utf8').trim();
        if (one.code === 0 && oid) changes.push({ op: 'put-oid', path: f.path, oid, mode: f.mode });
        else changes.push({ op: 'delete', path: f.path });
      }
    }
  }
  return changes;
}
