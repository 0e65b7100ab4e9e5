/**
 * SPEC §6.9: push the metadata branch alongside the person's push, merging
 * with the remote's when it moved. Failures are one warning line; the
 * person's push is never blocked.
 */
import type { HookContext } from '../strategy/context.js';
import { runGit } from '../git/exec.js';
import { readRef, updateRefs } from '../git/refs.js';
import { METADATA_REF } from '../checkpoint/shadow.js';
import { MERGE_MESSAGE } from '../checkpoint/messages.js';
import { casWrite } from '../store/branch.js';
import { readCommit } from '../store/tree.js';
import { unionChanges } from './merge.js';
import { fault } from '../faults.js';
import { writeStderr } from '../stderr.js';

const PUSH_TIMEOUT_MS = 120_000;
const ROUNDS = 3;

/** git's reason for a failure: its first `fatal:`/`error:` line (the last line may be advice). */
function gitReason(stderr: string): string {
  const lines = stderr.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  return lines.find((l) => /^(fatal|error):/.test(l)) ?? lines[lines.length - 1] ?? '';
}

function isUrl(remote: string): boolean {
  return /[:/]/.test(remote);
}

async function isAncestor(ctx: HookContext, a: string, b: string): Promise<boolean> {
  const r = await runGit(['merge-base', '--is-ancestor', a, b], { cwd: ctx.repo.root, allowFailure: true });
  return r.code === 0;
}

export async function syncMetadataBranch(ctx: HookContext, remote: string): Promise<void> {
  const deadline = Date.now() + PUSH_TIMEOUT_MS;
  const local = await readRef(ctx.repo, METADATA_REF);
  if (!local) return;
  const tracking = isUrl(remote) ? null : `refs/remotes/${remote}/entire/checkpoints/v1`;
  if (tracking && (await readRef(ctx.repo, tracking)) === local) return;
  writeStderr(`[entire] Pushing session logs to ${remote}...\n`);
  for (let round = 0; round < ROUNDS; round++) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) break;
    fault('pre-push-before-push');
    const push = await runGit(['push', '--no-verify', '--quiet', remote, `${METADATA_REF}:${METADATA_REF}`], {
      cwd: ctx.repo.root,
      allowFailure: true,
      timeoutMs: remaining,
    });
    if (push.code === 0) {
      ctx.log.info('pushed session logs', {});
      return;
    }
    if (!/rejected|non-fast-forward|fetch first|stale info/i.test(push.stderr)) {
      throw new Error(`push of session logs failed: ${gitReason(push.stderr)}`);
    }
    // the remote moved: fetch it and merge
    const dst = tracking ?? 'FETCH_HEAD';
    const fetchArgs = tracking ? ['fetch', '--quiet', '--no-tags', remote, `+${METADATA_REF}:${tracking}`] : ['fetch', '--quiet', '--no-tags', remote, METADATA_REF];
    const f = await runGit(fetchArgs, { cwd: ctx.repo.root, allowFailure: true, timeoutMs: Math.max(1, deadline - Date.now()) });
    if (f.code !== 0) throw new Error(`fetch of session logs failed: ${gitReason(f.stderr)}`);
    const theirs = (await runGit(['rev-parse', '--verify', '-q', `${dst}^{commit}`], { cwd: ctx.repo.root, allowFailure: true })).stdout.toString().trim();
    if (!theirs) throw new Error('cannot read the fetched session logs');
    fault('pre-push-after-fetch');
    await mergeInto(ctx, theirs);
    fault('pre-push-after-merge');
  }
  throw new Error('could not push session logs after merging; will try again on the next push');
}

/** Fast-forward to, or merge with, `theirs` (CAS on the local branch). */
/**
 * Fast-forward to, or merge with, `theirs` (CAS on the local branch). The
 * remote tree is someone else's data (SPEC-2 §A.7): a fast-forward happens
 * only when the union with it is exactly it; otherwise a merge commit
 * keeps what we accept and drops the rest, so nothing unaccepted is ever
 * committed or pushed on.
 */
export async function mergeInto(ctx: HookContext, theirs: string): Promise<void> {
  let dropped: string[] = [];
  let fastForward = false;
  await casWrite(ctx.repo, METADATA_REF, async (tip) => {
    fastForward = false;
    if (!tip || tip === theirs || (await isAncestor(ctx, theirs, tip))) return null;
    const mine = await readCommit(ctx.repo, tip);
    const other = await readCommit(ctx.repo, theirs);
    if (!mine || !other) throw new Error('cannot read session log commits');
    const union = await unionChanges(ctx.repo, mine.tree, other.tree);
    dropped = union.dropped;
    if (union.ffSafe && (await isAncestor(ctx, tip, theirs))) {
      fastForward = true; // handled below by a plain ref move
      return null;
    }
    return { message: MERGE_MESSAGE, mergeParents: [theirs], changes: union.changes };
  });
  if (dropped.length > 0) {
    ctx.log.warn('dropped remote checkpoint data outside the checkpoint layout', {
      error: `${dropped.length} path(s): ${dropped.slice(0, 20).join(', ')}${dropped.length > 20 ? ', …' : ''}`,
    });
  }
  if (!fastForward) return;
  const tip = await readRef(ctx.repo, METADATA_REF);
  if (tip && tip !== theirs && (await isAncestor(ctx, tip, theirs))) {
    await updateRefs(ctx.repo, [{ ref: METADATA_REF, newOid: theirs, oldOid: tip }]);
  }
}
