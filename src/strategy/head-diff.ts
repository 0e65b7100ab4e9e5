/**
 * Which of a few paths differ between commits, or between HEAD and the work
 * tree, without a git spawn: post-commit asks this for a handful of session
 * files, and two spawns (diff-tree, status) cost more than the whole answer.
 * Reads tree objects through the object reader and hashes work tree files
 * the way git names blobs, unless the index shows (by git's stat check) that
 * a file is unchanged since it was staged as HEAD has it. A file that only looks different
 * (e.g. through a clean filter) errs on the safe side: it stays pending.
 */
import { lstatSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Repo } from '../git/repo.js';
import { blobOid } from '../git/objects.js';
import { entriesAt } from '../store/tree.js';
import { readIndexEntries, unchangedSinceIndexed, type IndexEntry } from '../git/index-file.js';

/** The index's entries for `paths` and the index file's mtime, or null if it cannot be read here. */
function indexedEntries(repo: Repo, paths: readonly string[]): { entries: Map<string, IndexEntry[]>; mtimeNs: bigint } | null {
  const file = repo.hookIndexFile ?? join(repo.gitDir, 'index');
  try {
    const mtimeNs = statSync(file, { bigint: true }).mtimeNs;
    const entries = readIndexEntries(file, new Set(paths), repo.objectFormat === 'sha256' ? 32 : 20);
    return entries ? { entries, mtimeNs } : null;
  } catch {
    return null;
  }
}

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
  const indexed = indexedEntries(repo, paths);
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
      if (e.mode !== mode) {
        out.add(p);
        continue;
      }
      // staged as HEAD has it and untouched since (git's stat check): no need to read and hash it
      const ie = indexed?.entries.get(p);
      if (ie && ie.length === 1 && ie[0]!.stage === 0 && ie[0]!.oid === e.oid && unchangedSinceIndexed(ie[0]!, lstatSync(join(repo.root, p), { bigint: true }), indexed!.mtimeNs)) {
        continue;
      }
      if (blobOid(readFileSync(join(repo.root, p)), repo.objectFormat) !== e.oid) out.add(p);
    } catch {
      out.add(p);
    }
  }
  return out;
}
