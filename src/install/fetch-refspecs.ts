/**
 * SPEC-2 §E.4: the fetch refspecs `entire enable` adds so that a plain
 * `git fetch`/`git pull` brings teammates' checkpoints into remote-tracking
 * refs, which readers union with the local branch (SPEC-2 §E.1). They are
 * patterns on purpose: an exact refspec naming a ref the remote lacks makes
 * every fetch of that remote fail (`fatal: couldn't find remote ref`).
 * `disable --uninstall` removes exactly these values, nothing else.
 *
 * Other synced refs (the notes index of SPEC-2 §D.1) add their pattern to
 * `refspecsFor`.
 */
import type { Repo } from '../git/repo.js';
import { runGit } from '../git/exec.js';
import { isRemoteName } from '../sync/checkpoint-remote.js';

/** The refspecs for `remote`: `+refs/heads/entire/checkpoints/*:refs/remotes/<remote>/entire/checkpoints/*`. */
export function refspecsFor(remote: string): string[] {
  return [`+refs/heads/entire/checkpoints/*:refs/remotes/${remote}/entire/checkpoints/*`];
}

/** The configured remotes (names git would accept as ours to touch). */
export async function listRemotes(repo: Repo): Promise<string[]> {
  const r = await runGit(['remote'], { cwd: repo.root, allowFailure: true });
  if (r.code !== 0) return [];
  return r.stdout.toString('utf8').split('\n').filter((n) => n !== '' && isRemoteName(n));
}

async function fetchValues(repo: Repo, remote: string): Promise<string[]> {
  const r = await runGit(['config', '--get-all', `remote.${remote}.fetch`], { cwd: repo.root, allowFailure: true });
  return r.code === 0 ? r.stdout.toString('utf8').split('\n').filter((l) => l !== '') : [];
}

/** Add our refspecs to each of `remotes` where absent; returns the remotes changed. */
export async function ensureFetchRefspecs(repo: Repo, remotes: string[]): Promise<string[]> {
  const changed: string[] = [];
  for (const remote of remotes) {
    const have = new Set(await fetchValues(repo, remote));
    for (const spec of refspecsFor(remote)) {
      if (have.has(spec)) continue;
      await runGit(['config', '--add', `remote.${remote}.fetch`, spec], { cwd: repo.root });
      if (!changed.includes(remote)) changed.push(remote);
    }
  }
  return changed;
}

/** Remove exactly our refspecs from every remote. */
export async function removeFetchRefspecs(repo: Repo): Promise<void> {
  for (const remote of await listRemotes(repo)) {
    const have = await fetchValues(repo, remote);
    for (const spec of refspecsFor(remote)) {
      if (!have.includes(spec)) continue;
      // a value regex matching exactly this value (git 2.30's --fixed-value is not everywhere yet)
      const exact = '^' + spec.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '$';
      await runGit(['config', '--unset-all', `remote.${remote}.fetch`, exact], { cwd: repo.root, allowFailure: true });
    }
  }
}
