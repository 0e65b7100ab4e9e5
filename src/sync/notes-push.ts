/**
 * SPEC-2 §D.1: pre-push sends `refs/notes/entire` with the metadata branch.
 * When the remote's notes moved, they are fetched into
 * `refs/entire/remotes/<remote>/notes/entire` and merged as a union of lines
 * per commit (git's `cat_sort_uniq`): a merge commit whose tree holds only
 * notes we accept (§A.1: the remote's tree is untrusted), then pushed again.
 * A failure is the caller's one warning; the person's push goes on.
 */
import type { HookContext } from '../strategy/context.js';
import { runGit } from '../git/exec.js';
import { readRef } from '../git/refs.js';
import { casWrite } from '../store/branch.js';
import { readCommit } from '../store/tree.js';
import { NOTES_REF, notePath, readAllNotes } from '../links/notes.js';
import { renderNote } from '../links/note-format.js';
import type { TreeChange } from '../git/fastimport.js';

const ROUNDS = 3;
const TIMEOUT_MS = 60_000;

function trackingRef(remote: string): string | null {
  return /^[A-Za-z0-9_][A-Za-z0-9._-]*$/.test(remote) && !remote.endsWith('.lock') && !remote.includes('..') ? `refs/entire/remotes/${remote}/notes/entire` : null;
}

function reason(stderr: string): string {
  const lines = stderr.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  return lines.find((l) => /^(fatal|error):/.test(l)) ?? lines[lines.length - 1] ?? '';
}

export async function syncNotes(ctx: HookContext, remote: string): Promise<void> {
  const local = await readRef(ctx.repo, NOTES_REF);
  if (!local) return;
  const tracking = trackingRef(remote);
  if (tracking && (await readRef(ctx.repo, tracking)) === local) return;
  const deadline = Date.now() + TIMEOUT_MS;
  for (let round = 0; round < ROUNDS; round++) {
    const push = await runGit(['push', '--no-verify', '--quiet', remote, `${NOTES_REF}:${NOTES_REF}`], {
      cwd: ctx.repo.root,
      allowFailure: true,
      timeoutMs: Math.max(1, deadline - Date.now()),
    });
    if (push.code === 0) {
      if (tracking) {
        const tip = await readRef(ctx.repo, NOTES_REF);
        if (tip) await runGit(['update-ref', tracking, tip], { cwd: ctx.repo.root, allowFailure: true });
      }
      ctx.log.info('pushed commit notes', {});
      return;
    }
    if (!/non-fast-forward|fetch first|stale info/i.test(push.stderr)) throw new Error(`push of commit notes failed: ${reason(push.stderr)}`);
    const dst = tracking ?? 'FETCH_HEAD';
    const f = await runGit(['fetch', '--quiet', '--no-tags', remote, tracking ? `+${NOTES_REF}:${tracking}` : NOTES_REF], {
      cwd: ctx.repo.root,
      allowFailure: true,
      timeoutMs: Math.max(1, deadline - Date.now()),
    });
    if (f.code !== 0) throw new Error(`fetch of commit notes failed: ${reason(f.stderr)}`);
    const theirs = (await runGit(['rev-parse', '--verify', '-q', `${dst}^{commit}`], { cwd: ctx.repo.root, allowFailure: true })).stdout.toString().trim();
    if (!theirs) throw new Error('cannot read the fetched commit notes');
    await mergeNotes(ctx, theirs);
  }
  throw new Error('could not push commit notes after merging; will try again on the next push');
}

async function isAncestor(ctx: HookContext, a: string, b: string): Promise<boolean> {
  return (await runGit(['merge-base', '--is-ancestor', a, b], { cwd: ctx.repo.root, allowFailure: true })).code === 0;
}

/** Merge the notes commit `theirs` into the local notes ref: per commit, the union of both notes' lines. */
export async function mergeNotes(ctx: HookContext, theirs: string): Promise<void> {
  await casWrite(ctx.repo, NOTES_REF, async (tip) => {
    if (tip === theirs || (tip && (await isAncestor(ctx, theirs, tip)))) return null;
    const other = await readCommit(ctx.repo, theirs);
    if (!other) throw new Error('cannot read the remote commit notes');
    const mine = tip ? await readCommit(ctx.repo, tip) : null;
    const union = mine ? await readAllNotes(ctx.repo, mine.tree) : new Map<string, string[]>();
    for (const [commit, ids] of await readAllNotes(ctx.repo, other.tree)) union.set(commit, [...(union.get(commit) ?? []), ...ids]);
    const changes: TreeChange[] = [...union].sort(([a], [b]) => (a < b ? -1 : 1)).map(([commit, ids]) => ({ op: 'put', path: notePath(commit), content: renderNote(ids) }));
    return { message: `Notes merged by 'entire'\n`, mergeParents: [theirs], deleteAll: true, changes };
  });
}
