/**
 * SPEC-2 §D.1/§E.4, the notes index in the repository's own git config:
 * `notes.rewriteRef` lists `refs/notes/entire` (git then copies our notes on
 * amend and rebase), and each remote fetches the notes into
 * `refs/entire/remotes/<r>/notes/entire` (a pattern refspec: an exact one
 * for a ref the remote lacks would make every fetch fail). `enable` adds
 * them if absent, never touching other notes settings; `disable --uninstall`
 * removes exactly these values.
 */
import type { Repo } from '../git/repo.js';
import { runGit } from '../git/exec.js';
import { NOTES_REF } from '../links/notes.js';

export function notesFetchRefspec(remote: string): string {
  return `+${NOTES_REF}*:refs/entire/remotes/${remote}/notes/entire*`;
}

async function localValues(repo: Repo, key: string): Promise<string[]> {
  const r = await runGit(['config', '--local', '--get-all', key], { cwd: repo.root, allowFailure: true });
  return r.code === 0 ? r.stdout.toString('utf8').split('\n').filter((l) => l !== '') : [];
}

async function remotes(repo: Repo): Promise<string[]> {
  const r = await runGit(['remote'], { cwd: repo.root, allowFailure: true });
  return r.code === 0 ? r.stdout.toString('utf8').split('\n').filter((l) => /^[A-Za-z0-9._-]+$/.test(l)) : [];
}

/** Adds what is missing; returns whether anything was added. */
export async function ensureNotesConfig(repo: Repo): Promise<boolean> {
  let added = false;
  if (!(await localValues(repo, 'notes.rewriteRef')).includes(NOTES_REF)) {
    await runGit(['config', '--local', '--add', 'notes.rewriteRef', NOTES_REF], { cwd: repo.root });
    added = true;
  }
  for (const r of await remotes(repo)) {
    const spec = notesFetchRefspec(r);
    if ((await localValues(repo, `remote.${r}.fetch`)).includes(spec)) continue;
    await runGit(['config', '--local', '--add', `remote.${r}.fetch`, spec], { cwd: repo.root });
    added = true;
  }
  return added;
}

function regexQuote(s: string): string {
  return '^' + s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '$';
}

/** Removes exactly the values ensureNotesConfig adds. */
export async function removeNotesConfig(repo: Repo): Promise<void> {
  if ((await localValues(repo, 'notes.rewriteRef')).includes(NOTES_REF)) {
    await runGit(['config', '--local', '--unset-all', 'notes.rewriteRef', regexQuote(NOTES_REF)], { cwd: repo.root, allowFailure: true });
  }
  for (const r of await remotes(repo)) {
    const spec = notesFetchRefspec(r);
    if (!(await localValues(repo, `remote.${r}.fetch`)).includes(spec)) continue;
    await runGit(['config', '--local', '--unset-all', `remote.${r}.fetch`, regexQuote(spec)], { cwd: repo.root, allowFailure: true });
  }
}
