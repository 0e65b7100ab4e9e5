/**
 * `entire enable --checkpoint-remote <name|url>` (SPEC-2 §E.5): resolve the
 * argument (trusted: the person typed it) to a git remote name, adding a
 * remote for a URL no configured remote has. Only the name goes into the
 * settings file: settings live in the work tree, which is untrusted, so a
 * committed value can name a remote but never bring a URL of its own.
 */
import type { Repo } from '../git/repo.js';
import { runGit } from '../git/exec.js';
import { EntireError } from '../errors.js';
import { DEFAULT_CHECKPOINT_REMOTE, isRemoteName } from '../sync/checkpoint-remote.js';
import { listRemotes, refspecsFor } from './fetch-refspecs.js';

async function urlOf(repo: Repo, remote: string): Promise<string | null> {
  const r = await runGit(['config', '--get', `remote.${remote}.url`], { cwd: repo.root, allowFailure: true });
  return r.code === 0 ? r.stdout.toString('utf8').trim() : null;
}

/** The remote name to store; adds the remote `entire-checkpoints` (fetching only checkpoint refs) for a new URL. */
export async function resolveCheckpointRemote(repo: Repo, arg: string): Promise<{ name: string; added: boolean }> {
  if (arg.startsWith('-') || arg.trim() === '') throw new EntireError('INVALID_USAGE', '--checkpoint-remote needs a remote name or URL');
  const remotes = await listRemotes(repo);
  if (remotes.includes(arg)) return { name: arg, added: false };
  if (isRemoteName(arg) && !/[:/\\]/.test(arg)) {
    throw new EntireError('INVALID_INPUT', `no git remote named ${arg} (add it with: git remote add ${arg} <url>, or pass a URL)`);
  }
  for (const r of remotes) if ((await urlOf(repo, r)) === arg) return { name: r, added: false };
  const name = DEFAULT_CHECKPOINT_REMOTE;
  if (remotes.includes(name)) {
    throw new EntireError('INVALID_INPUT', `a remote named ${name} already exists with another URL; pass its name or change it with git remote set-url`);
  }
  await runGit(['config', `remote.${name}.url`, arg], { cwd: repo.root });
  // this remote is for checkpoints only: fetching it brings no code branches
  for (const spec of refspecsFor(name)) await runGit(['config', '--add', `remote.${name}.fetch`, spec], { cwd: repo.root });
  return { name, added: true };
}
