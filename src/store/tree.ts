/** Reading directories and files of a commit's tree through cat-file. */
import type { Repo } from '../git/repo.js';
import { parseTree, type TreeEntry, isTreeMode, parseCommit, type CommitInfo } from '../git/objects.js';

export async function readCommit(repo: Repo, rev: string): Promise<(CommitInfo & { oid: string }) | null> {
  const o = await repo.objects.read(rev);
  if (!o || o.type !== 'commit') return null;
  // null as well for a commit that is not well formed (src/git/commit-format.ts)
  const info = parseCommit(o.data, repo.objectFormat);
  return info ? { ...info, oid: o.oid } : null;
}

/** Entries of the tree at `<commit>:<path>` (path `''` = root); null if absent or not a tree. */
export async function readDir(repo: Repo, commit: string, path: string): Promise<TreeEntry[] | null> {
  const o = await repo.objects.read(path === '' ? `${commit}^{tree}` : `${commit}:${path}`);
  if (!o || o.type !== 'tree') return null;
  return parseTree(o.data, repo.objectFormat);
}

export async function readTreeByOid(repo: Repo, oid: string): Promise<TreeEntry[] | null> {
  const o = await repo.objects.read(oid);
  if (!o || o.type !== 'tree') return null;
  return parseTree(o.data, repo.objectFormat);
}

export async function readBlob(repo: Repo, commit: string, path: string): Promise<Buffer | null> {
  const o = await repo.objects.read(`${commit}:${path}`);
  return o && o.type === 'blob' ? o.data : null;
}

export function subdirs(entries: TreeEntry[]): TreeEntry[] {
  return entries.filter((e) => isTreeMode(e.mode));
}

export function files(entries: TreeEntry[]): TreeEntry[] {
  return entries.filter((e) => !isTreeMode(e.mode));
}

/**
 * The entries at `paths` in `commit` (null when absent), reading each parent
 * directory's tree once.
 */
export async function entriesAt(repo: Repo, commit: string, paths: readonly string[]): Promise<Map<string, TreeEntry | null>> {
  const out = new Map<string, TreeEntry | null>();
  // in-process lookups find each entry without decoding whole trees
  const unique = new Set(paths);
  for (const p of unique) {
    const e = repo.objects.treeEntry(commit, p);
    if (e === undefined) break;
    out.set(p, e === null ? null : { mode: e.mode.toString(8), name: p.slice(p.lastIndexOf('/') + 1), oid: e.oid });
  }
  if (out.size === unique.size) return out;
  out.clear();
  const dirs = new Map<string, Promise<TreeEntry[] | null>>();
  await Promise.all(
    paths.map(async (p) => {
      const slash = p.lastIndexOf('/');
      const dir = slash < 0 ? '' : p.slice(0, slash);
      const name = slash < 0 ? p : p.slice(slash + 1);
      let list = dirs.get(dir);
      if (!list) {
        list = readDir(repo, commit, dir);
        dirs.set(dir, list);
      }
      out.set(p, (await list)?.find((e) => e.name === name) ?? null);
    }),
  );
  return out;
}
