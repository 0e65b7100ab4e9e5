/**
 * The first-parent history of a revision, newest first: what commands walk to find a branch's
 * linked commits. git spawns here (a command's path, never a hook's).
 */
import type { Repo } from './repo.js';
import { runGit } from './exec.js';

/** First-parent commits from `rev` (newest first): sha, first parent (null for a root) and full message. */
export async function firstParentCommits(repo: Repo, rev: string, max: number): Promise<{ sha: string; parent: string | null; message: string }[]> {
  const r = await runGit(['log', '--first-parent', `-n${max}`, '-z', '--format=%H %P%n%B', rev, '--'], { cwd: repo.root, allowFailure: true });
  if (r.code !== 0) return [];
  const out: { sha: string; parent: string | null; message: string }[] = [];
  for (const rec of r.stdout.toString('utf8').split('\0')) {
    const nl = rec.indexOf('\n');
    const [sha = '', parent] = (nl < 0 ? rec : rec.slice(0, nl)).trim().split(' ');
    if (!/^[0-9a-f]{40,64}$/.test(sha)) continue;
    out.push({ sha, parent: parent && /^[0-9a-f]{40,64}$/.test(parent) ? parent : null, message: nl < 0 ? '' : rec.slice(nl + 1) });
  }
  return out;
}
