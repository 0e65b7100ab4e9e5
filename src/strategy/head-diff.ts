/**
 * Which of a few paths differ between commits, or between HEAD and the work
 * tree, without a git spawn: post-commit asks this for a handful of session
 * files, and two spawns (diff-tree, status) cost more than the whole answer.
 * Reads tree objects through the long-lived cat-file reader and hashes work
 * tree files the way git names blobs. A file that only looks different
 * (e.g. through a clean filter) errs on the safe side: it stays pending.
 */
import { lstatSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { Repo } from '../git/repo.js';
import { blobOid } from '../git/objects.js';
import { entriesAt } from '../store/tree.js';

/** Paths among `paths` whose entry differs between commits `a` (null: none) and `b`. */
export async function changedBetween(repo: Repo, a: string | null, b: string, paths: readonly string[]): Promise<Set<string>> {
  const [ea, eb] = await Promise.all([a ? entriesAt(repo, a, paths) : Promise.resolve(new Map()), entriesAt(repo, b, paths)]);
  const out = new Set<string>();
  for (const p of paths) {
    const x = ea.get(p) ?? null;
    const y = eb.get(p) ?? null;
    if (!x && !y) continue;
    if (!x || !y || x.oid !== y.oid || x.mode !== y.mode) out.add(p);
  }
  return out;
}

/** Paths among `paths` whose work-tree version differs from commit `head`. */
export async function differingFromCommit(repo: Repo, head: string, paths: readonly string[]): Promise<Set<string>> {
  const entries = await entriesAt(repo, head, paths);
  const out = new Set<string>();
  for (const p of paths) {
    const e = entries.get(p) ?? null;
    let st;
    try {
      st = lstatSync(join(repo.root, p));
    } catch {
      if (e) out.add(p); // deleted
      continue;
    }
    if (!e || st.isDirectory()) {
      if (!st.isDirectory()) out.add(p); // new
      continue;
    }
    try {
      if (st.isSymbolicLink()) {
        if (e.mode !== '120000' || blobOid(readlinkSync(join(repo.root, p)), repo.objectFormat) !== e.oid) out.add(p);
        continue;
      }
      const mode = st.mode & 0o111 ? '100755' : '100644';
      if (e.mode !== mode || blobOid(readFileSync(join(repo.root, p)), repo.objectFormat) !== e.oid) out.add(p);
    } catch {
      out.add(p);
    }
  }
  return out;
}
