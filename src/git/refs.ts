/** Ref reads and compare-and-swap updates (SPEC §2.9, P7). */
import { EntireError } from '../errors.js';
import { runGit, runGitSync, splitZ } from './exec.js';
import { updateRefsInProcess } from './ref-files.js';
import { zeroOid, type Repo } from './repo.js';

/** The commit a ref points at, or null. Served by the long-lived cat-file (no spawn). */
export async function readRef(repo: Repo, ref: string): Promise<string | null> {
  const o = await repo.objects.read(`${ref}^{commit}`);
  return o ? o.oid : null;
}

export interface RefUpdate {
  ref: string;
  /** New value; null deletes. */
  newOid: string | null;
  /** Expected current value; null = must not exist; undefined = don't check. */
  oldOid?: string | null;
  /**
   * false: a reflog that exists grows, but none is started for this ref.
   */
  startReflog?: boolean;
}

export type CasOutcome = 'ok' | 'race';

/**
 * Apply updates in one atomic `update-ref --stdin` transaction. Returns
 * `race` when an expected old value no longer holds; throws for any other
 * failure (e.g. a stale `.lock` file), which retrying would not fix.
 */
export async function updateRefs(repo: Repo, updates: RefUpdate[], message = 'entire'): Promise<CasOutcome> {
  if (updates.length === 0) return 'ok';
  const zero = zeroOid(repo.objectFormat);
  const lines = updates.map((u) => {
    if (u.newOid === null) {
      const old = u.oldOid === undefined ? '' : ` ${u.oldOid ?? zero}`;
      return `delete ${u.ref}${old}`;
    }
    const old = u.oldOid === undefined ? '' : ` ${u.oldOid ?? zero}`;
    return `update ${u.ref} ${u.newOid}${old}`;
  });
  const local = updateRefsInProcess(repo, updates, message);
  if (local !== undefined) return local;
  // synchronous: cheaper than a first asynchronous spawn on hook paths (see runGitSync)
  // git starts no reflog with logAllRefUpdates off, and still appends to one that exists
  const noNewLogs = updates.every((u) => u.newOid === null || u.startReflog === false);
  const r = runGitSync([...(noNewLogs ? ['-c', 'core.logAllRefUpdates=false'] : []), 'update-ref', '-m', message, '--stdin'], {
    cwd: repo.root,
    input: lines.join('\n') + '\n',
    allowFailure: true,
  });
  if (r.code === 0) return 'ok';
  if (/but expected|reference already exists|unable to resolve reference|does not exist|is at .* but/i.test(r.stderr)) return 'race';
  throw new EntireError('GIT_FAILED', `cannot update ${updates.map((u) => u.ref).join(', ')}: ${r.stderr.trim().split('\n')[0] ?? ''}`);
}

/** Delete a ref without checking its value (cleanup of temporary refs). */
export async function deleteRefQuietly(repo: Repo, ref: string): Promise<void> {
  await runGit(['update-ref', '-d', ref], { cwd: repo.root, allowFailure: true });
}

/** Refs under a prefix with their commits (`for-each-ref`). */
export async function listRefs(repo: Repo, prefix: string): Promise<{ ref: string; oid: string }[]> {
  const r = await runGit(['for-each-ref', '--format=%(objectname) %(refname)', prefix], { cwd: repo.root, allowFailure: true });
  if (r.code !== 0) return [];
  return r.stdout
    .toString('utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const i = l.indexOf(' ');
      return { oid: l.slice(0, i), ref: l.slice(i + 1) };
    });
}

export { splitZ };

/** Sleep 10–100 ms (the CAS retry jitter of SPEC §2.9). */
export function jitter(): Promise<void> {
  return new Promise((r) => setTimeout(r, 10 + Math.floor(Math.random() * 90)));
}

export const CAS_RETRIES = 10;
