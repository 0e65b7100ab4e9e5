/**
 * SPEC-3 §A.6: pre-push drains the checkpoint push queue (push-queue.ts),
 * whichever tool (ours or Go's) queued the refs.
 *
 * - a queued ref missing locally is dropped;
 * - the rest go in chunks of ≤ 200 as one `git push --no-verify --porcelain
 *   <target> <oid>:<ref> …` each, never `+`, never forced: the source is the
 *   hash read just before the push, so git's porcelain line confirms that very
 *   hash (the spec's `<ref>:<ref>` could send a tip that moved meanwhile);
 * - a ref leaves the queue only when the push of the hash it still has was
 *   confirmed (checked again under the queue lock at rewrite time);
 * - a ref rejected because the remote's copy moved (a teammate's later
 *   commit) is fetched and our local-only changes replayed onto the remote
 *   tip as one commit (git's three-way tree merge from the merge base), then
 *   pushed again as a fast-forward; a conflict, unrelated histories or any
 *   failure leaves it queued. Never forced;
 * - bounded: ≤ 2 min in all and stop after 5 failed refs; failures are one
 *   warning line, never an error: the person's push goes on.
 */
import type { Repo } from '../git/repo.js';
import type { Logger } from '../log.js';
import { runGit } from '../git/exec.js';
import { readRef } from '../git/refs.js';
import { writeStderr } from '../stderr.js';
import { readPushQueue, rewritePushQueue } from './push-queue.js';
import { gitReason } from './push.js';
import { updateRefs } from '../git/refs.js';

/** What the drain needs of a hook's context (sync/ sits below the hook flows). */
export interface DrainContext {
  repo: Repo;
  log: Logger;
}

export const DRAIN_CHUNK = 200;
export const DRAIN_DEADLINE_MS = 120_000;
export const DRAIN_MAX_FAILED = 5;

export interface DrainResult {
  pushed: number;
  dropped: number;
  /** Rejected refs whose local changes were replayed onto the remote tip and pushed. */
  replayed: number;
  failed: number;
  /** Refs still queued after the drain. */
  queued: number;
}

/** Porcelain flags of a ref that is on the remote at the hash we sent: fast-forward, new, up to date. */
const LANDED_FLAGS = new Set([' ', '*', '=']);

/** `<flag>\t<from>:<to>\t<summary>` lines of `git push --porcelain`, by destination ref. */
function porcelain(stdout: string): Map<string, { flag: string; summary: string }> {
  const out = new Map<string, { flag: string; summary: string }>();
  for (const line of stdout.split('\n')) {
    const m = /^(.)\t([^\t]*):([^\t]+)\t(.*)$/.exec(line);
    if (m) out.set(m[3]!, { flag: m[1]!, summary: m[4]! });
  }
  return out;
}

/** The remote's copy moved on (worth a replay), as opposed to a refusal (a hook, permissions). */
function remoteMoved(summary: string): boolean {
  return /fetch first|non-fast-forward/.test(summary);
}

/**
 * Replay our local-only changes of `ref` (at `ours`) onto the remote's tip
 * and push the result as a fast-forward. Returns the hash that landed, or
 * null (left queued). The remote's commits are someone else's data: they are
 * only merged as trees by git and pushed back where they came from.
 */
async function replayOntoRemote(ctx: DrainContext, target: string, ref: string, ours: string, timeoutMs: () => number): Promise<string | null> {
  const git = (args: string[], input?: string) => runGit(args, { cwd: ctx.repo.root, allowFailure: true, timeoutMs: timeoutMs(), ...(input !== undefined ? { input } : {}) });
  const ls = await git(['ls-remote', '--', target, ref]);
  const theirs = ls.code === 0 ? /^([0-9a-f]{40,64})\t/m.exec(ls.stdout.toString('utf8'))?.[1] : undefined;
  if (!theirs) return null;
  const f = await git(['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--', target, ref]);
  if (f.code !== 0) return null;
  const t = await git(['cat-file', '-t', theirs]);
  if (t.code !== 0 || t.stdout.toString('utf8').trim() !== 'commit') return null;
  // the remote already holds everything we have: nothing of ours is missing there
  if ((await git(['merge-base', '--is-ancestor', ours, theirs])).code === 0) return ours;
  const merged = await git(['merge-tree', '--write-tree', '--no-messages', theirs, ours]);
  // exit 1: conflict; other codes: unrelated histories or an error
  if (merged.code !== 0) return null;
  const tree = merged.stdout.toString('utf8').split('\n')[0]!.trim();
  if (!/^[0-9a-f]{40,64}$/.test(tree)) return null;
  const msg = await git(['show', '-s', '--format=%B', ours]);
  if (msg.code !== 0) return null;
  const c = await git(['commit-tree', tree, '-p', theirs], msg.stdout.toString('utf8').replace(/\n+$/, ''));
  const replayed = c.code === 0 ? c.stdout.toString('utf8').trim() : '';
  if (!/^[0-9a-f]{40,64}$/.test(replayed)) return null;
  if ((await updateRefs(ctx.repo, [{ ref, newOid: replayed, oldOid: ours }])) !== 'ok') return null;
  const p = await git(['push', '--no-verify', '--porcelain', target, `${replayed}:${ref}`]);
  const landed = porcelain(p.stdout.toString('utf8')).get(ref);
  return landed && LANDED_FLAGS.has(landed.flag) ? replayed : null;
}

export async function drainPushQueue(ctx: DrainContext, target: string, opts: { deadlineMs?: number } = {}): Promise<DrainResult> {
  const deadline = Date.now() + Math.min(opts.deadlineMs ?? DRAIN_DEADLINE_MS, DRAIN_DEADLINE_MS);
  const q = readPushQueue(ctx.repo.commonDir);
  const res: DrainResult = { pushed: 0, dropped: 0, replayed: 0, failed: 0, queued: q.refs.length };
  if (q.refs.length === 0) return res;
  const dropped = new Set<string>();
  const toPush: [string, string][] = [];
  for (const ref of q.refs) {
    const oid = await readRef(ctx.repo, ref);
    if (oid) toPush.push([ref, oid]);
    else dropped.add(ref);
  }
  res.dropped = dropped.size;
  const confirmed = new Map<string, string>();
  let reason = '';
  if (toPush.length > 0) writeStderr(`[entire] Pushing ${toPush.length} queued checkpoint ref${toPush.length === 1 ? '' : 's'} to ${target}...\n`);
  for (let i = 0; i < toPush.length; i += DRAIN_CHUNK) {
    const left = deadline - Date.now();
    if (left <= 0) {
      reason = 'out of time';
      break;
    }
    const chunk = toPush.slice(i, i + DRAIN_CHUNK);
    const r = await runGit(['push', '--no-verify', '--porcelain', target, ...chunk.map(([ref, oid]) => `${oid}:${ref}`)], {
      cwd: ctx.repo.root,
      allowFailure: true,
      timeoutMs: left,
    });
    const lines = porcelain(r.stdout.toString('utf8'));
    for (const [ref, oid] of chunk) {
      const l = lines.get(ref);
      if (l !== undefined && LANDED_FLAGS.has(l.flag)) {
        confirmed.set(ref, oid);
        continue;
      }
      const replayed = l && l.flag === '!' && remoteMoved(l.summary) && deadline > Date.now() && res.failed < DRAIN_MAX_FAILED
        ? await replayOntoRemote(ctx, target, ref, oid, () => Math.max(1, deadline - Date.now())).catch(() => null)
        : null;
      if (replayed) {
        confirmed.set(ref, replayed);
        res.replayed++;
      } else res.failed++;
    }
    if (r.code !== 0 && !reason && res.failed > 0) reason = gitReason(r.stderr.toString() + '\n' + r.stdout.toString('utf8')).slice(0, 200);
    if (res.failed >= DRAIN_MAX_FAILED) break;
  }
  res.pushed = confirmed.size;
  // leaves the queue: pushed at the hash the ref still has, or still missing locally
  res.queued = await rewritePushQueue(ctx.repo.commonDir, async (ref) => {
    const now = await readRef(ctx.repo, ref);
    if (dropped.has(ref)) return now === null;
    const sent = confirmed.get(ref);
    return sent !== undefined && now === sent;
  });
  ctx.log.info('drained the checkpoint push queue', { details: { target, ...res } });
  if (res.queued > 0) {
    writeStderr(
      `[entire] warning: ${res.queued} checkpoint ref${res.queued === 1 ? '' : 's'} not pushed to ${target}${reason ? ` (${reason})` : ''}; ` +
        'they stay queued for the next push\n',
    );
  }
  return res;
}
