/** Work-tree status and diffs as path lists (always `-z`, never the index lock). */
import { runGit, splitZ } from './exec.js';
import type { Repo } from './repo.js';

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
  // only the session's candidates can qualify: git then compares just those paths
  const scope = only && only.length <= 500 ? only : [];
  const r = await runGit(['--no-optional-locks', '--literal-pathspecs', 'diff', '--cached', '--name-only', '-z', '--no-renames', base, '--', ...scope], {
    cwd: repo.root,
    env,
  });
  return splitZ(r.stdout);
}
