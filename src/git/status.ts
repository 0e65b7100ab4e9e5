/** Work-tree status and diffs as path lists (always `-z`, never the index lock). */
import { runGit, splitZ } from './exec.js';
import type { Repo } from './repo.js';
import { EMPTY_TREE } from './repo.js';
import { canonMode, readIndexEntries } from './index-file.js';
import { join } from 'node:path';

export interface StatusEntry {
  path: string;
  /** Two-letter porcelain code (`??` untracked, ` M`, `A `, `D `, …). */
  code: string;
}

/**
 * `git status --porcelain -z -uall --no-renames`, minus `.entire/`. Paths are
 * repo-relative. Ignored files are never listed.
 */
export async function workTreeStatus(repo: Repo, only?: readonly string[]): Promise<StatusEntry[]> {
  if (only && only.length === 0) return [];
  if (only && only.length > 500) only = undefined; // a long argv costs more than a full status
  // with `only`, git looks at those paths alone: cost independent of the work tree's size
  const scope = only ? ['--', ...only] : [];
  const r = await runGit(
    ['--no-optional-locks', '--literal-pathspecs', 'status', '--porcelain=v1', '-z', '-uall', '--no-renames', '--ignore-submodules=all', ...scope],
    { cwd: repo.root },
  );
  const out: StatusEntry[] = [];
  for (const item of splitZ(r.stdout)) {
    if (item.length < 4) continue;
    const path = item.slice(3);
    if (path === '.entire' || path.startsWith('.entire/')) continue;
    out.push({ code: item.slice(0, 2), path });
  }
  return out;
}

/**
 * Paths staged for the commit being made, against `base` (SPEC §6.3 P). Uses
 * the index git handed to the hook (for `commit -a`/`commit <paths>` a
 * temporary one), read-only, without taking the index lock.
 */
export async function stagedPaths(repo: Repo, base: string, only?: readonly string[]): Promise<string[]> {
  const env: Record<string, string | undefined> = {};
  if (repo.hookIndexFile) env['GIT_INDEX_FILE'] = repo.hookIndexFile;
  if (only && only.length === 0) return [];
  if (only && only.length <= 500) {
    const local = stagedAmongLocal(repo, base, only);
    if (local) return local;
  }
  // only the session's candidates can qualify: git then compares just those paths
  const scope = only && only.length <= 500 ? only : [];
  const r = await runGit(['--no-optional-locks', '--literal-pathspecs', 'diff', '--cached', '--name-only', '-z', '--no-renames', base, '--', ...scope], {
    cwd: repo.root,
    env,
  });
  return splitZ(r.stdout);
}

/**
 * `stagedPaths` for a few paths without a git process: each path's index
 * entry against its entry in `base`'s tree, compared as `diff --cached`
 * does (object id and canonical mode). undefined when only git can tell.
 */
export function stagedAmongLocal(repo: Repo, base: string, only: readonly string[]): string[] | undefined {
  const hashBytes = repo.objectFormat === 'sha256' ? 32 : 20;
  const entries = readIndexEntries(repo.hookIndexFile ?? join(repo.gitDir, 'index'), new Set(only), hashBytes);
  if (!entries) return undefined;
  const emptyTree = base === EMPTY_TREE[repo.objectFormat];
  const out: string[] = [];
  for (const path of new Set(only)) {
    const staged = entries.get(path);
    if (staged?.some((e) => e.intentToAdd)) return undefined;
    const inBase = emptyTree ? null : repo.objects.treeEntry(base, path);
    if (inBase === undefined) return undefined;
    if (inBase !== null && canonMode(inBase.mode) === 0o040000) return undefined; // a directory: pathspec semantics
    let changed: boolean;
    if (!staged || staged.length === 0) changed = inBase !== null;
    else if (staged.length > 1 || staged[0]!.stage !== 0) changed = true; // unmerged
    else changed = inBase === null || inBase.oid !== staged[0]!.oid || canonMode(inBase.mode) !== staged[0]!.mode;
    if (changed) out.push(path);
  }
  // git lists paths in index order (byte order)
  return out.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}
