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
 * - a rejected ref (the remote holds a teammate's later commit) stays queued:
 *   it is never forced (replaying its local-only commits onto the remote tip
 *   is not done yet);
 * - bounded: ≤ 2 min in all and stop after 5 failed refs; failures are one
 *   warning line, never an error: the person's push goes on.
 */
import type { HookContext } from '../strategy/context.js';
import { runGit } from '../git/exec.js';
import { readRef } from '../git/refs.js';
import { writeStderr } from '../stderr.js';
import { readPushQueue, rewritePushQueue } from './push-queue.js';
import { gitReason } from './push.js';

export const DRAIN_CHUNK = 200;
export const DRAIN_DEADLINE_MS = 120_000;
export const DRAIN_MAX_FAILED = 5;

export interface DrainResult {
  pushed: number;
  dropped: number;
  failed: number;
  /** Refs still queued after the drain. */
  queued: number;
}

/** Porcelain flags of a ref that is on the remote at the hash we sent: fast-forward, new, up to date. */
const LANDED_FLAGS = new Set([' ', '*', '=']);

/** `<flag>\t<from>:<to>\t<summary>` lines of `git push --porcelain`, by destination ref. */
function porcelainFlags(stdout: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of stdout.split('\n')) {
    const m = /^(.)\t([^\t]*):([^\t]+)\t/.exec(line);
    if (m) out.set(m[3]!, m[1]!);
  }
  return out;
}

export async function drainPushQueue(ctx: HookContext, target: string, opts: { deadlineMs?: number } = {}): Promise<DrainResult> {
  const deadline = Date.now() + Math.min(opts.deadlineMs ?? DRAIN_DEADLINE_MS, DRAIN_DEADLINE_MS);
  const q = readPushQueue(ctx.repo.commonDir);
  const res: DrainResult = { pushed: 0, dropped: 0, failed: 0, queued: q.refs.length };
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
    const flags = porcelainFlags(r.stdout.toString('utf8'));
    for (const [ref, oid] of chunk) {
      const f = flags.get(ref);
      if (f !== undefined && LANDED_FLAGS.has(f)) confirmed.set(ref, oid);
      else res.failed++;
    }
    if (r.code !== 0 && !reason) reason = gitReason(r.stderr.toString() + '\n' + r.stdout.toString('utf8')).slice(0, 200);
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
  ctx.log.info('drained the checkpoint push queue', { target, ...res });
  if (res.queued > 0) {
    writeStderr(
      `[entire] warning: ${res.queued} checkpoint ref${res.queued === 1 ? '' : 's'} not pushed to ${target}${reason ? ` (${reason})` : ''}; ` +
        'they stay queued for the next push\n',
    );
  }
  return res;
}
