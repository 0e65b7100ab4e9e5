/**
 * Work-tree snapshots for shadow branches: a tree of `base` with the given
 * paths taken from the work tree, built in a private GIT_INDEX_FILE so the
 * user's index is never read for writing nor locked (SPEC §2.9). Going
 * through git's index keeps clean filters (LFS), modes and symlinks right.
 */
import { randomBytes } from 'node:crypto';
import { lstatSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { runGit, splitZ } from './exec.js';
import type { Repo } from './repo.js';

export interface SnapshotOptions {
  /** Tree to start from. */
  baseTree: string;
  /** Repo-relative paths to take from the work tree (missing → removed). */
  paths: string[];
  /** Paths known not to be ignored (from git status); others are checked. */
  trustedPaths?: ReadonlySet<string>;
}

export async function snapshotTree(repo: Repo, opts: SnapshotOptions): Promise<string> {
  const indexFile = join(repo.gitDir, `entire-index-${process.pid}-${randomBytes(4).toString('hex')}`);
  const env = { GIT_INDEX_FILE: indexFile };
  try {
    await runGit(['read-tree', opts.baseTree], { cwd: repo.root, env });
    const paths = await storablePaths(repo, opts.paths, opts.trustedPaths, env);
    if (paths.length > 0) {
      await runGit(['update-index', '--add', '--remove', '-z', '--stdin'], {
        cwd: repo.root,
        env,
        input: paths.join('\0') + '\0',
      });
    }
    const r = await runGit(['write-tree'], { cwd: repo.root, env });
    return r.stdout.toString('utf8').trim();
  } finally {
    rmSync(indexFile, { force: true });
    rmSync(indexFile + '.lock', { force: true });
  }
}

/**
 * Drop what must never be stored: `.entire/`, directories and gitlinks, and
 * ignored files (a deleted path is kept so update-index removes it).
 */
async function storablePaths(
  repo: Repo,
  paths: string[],
  trusted: ReadonlySet<string> | undefined,
  env: Record<string, string>,
): Promise<string[]> {
  const out: string[] = [];
  const toCheck: string[] = [];
  for (const p of new Set(paths)) {
    if (p === '' || p.startsWith('.entire/') || p === '.entire' || p.startsWith('../') || p.startsWith('/')) continue;
    let isDir = false;
    let exists = true;
    try {
      isDir = lstatSync(join(repo.root, p)).isDirectory();
    } catch {
      exists = false;
    }
    if (isDir) continue;
    if (!exists || trusted?.has(p)) out.push(p);
    else toCheck.push(p);
  }
  if (toCheck.length > 0) {
    const r = await runGit(['check-ignore', '-z', '--stdin'], {
      cwd: repo.root,
      env,
      input: toCheck.join('\0') + '\0',
      allowFailure: true,
    });
    const ignored = new Set(r.code === 0 ? splitZ(r.stdout) : []);
    for (const p of toCheck) if (!ignored.has(p)) out.push(p);
  }
  return out;
}
