/**
 * SPEC §6.9 with SPEC-2 §E.2/§E.3: push the sync refs (sync-refs.ts) to a
 * remote alongside the person's push, until they land.
 *
 * Each round first asks the remote where the refs are (`git ls-remote`): a
 * remote-tracking ref is never trusted to skip a push (the remote may have
 * been replaced with `git remote set-url`, or the branch deleted there). A
 * remote copy we do not contain is fetched and union-merged (never a force
 * push), then pushed as a fast-forward. A push that loses a race to another
 * pusher waits a jittered, doubling backoff and goes round again until the
 * deadline, so concurrent pushers all land on this push rather than the next.
 * Failures are one warning (the caller's); the person's push never fails.
 */
import type { HookContext } from '../strategy/context.js';
import { runGit, type GitResult } from '../git/exec.js';
import { readRef, updateRefs } from '../git/refs.js';
import { fault } from '../faults.js';
import { writeStderr } from '../stderr.js';
import { isAncestor } from './merge-into.js';
import { SYNC_REFS, type SyncRef } from './sync-refs.js';
import { isUrlLike } from './checkpoint-remote.js';

/** SPEC-2 §E.2: give up after this long (the person's push waits for us). */
export const PUSH_DEADLINE_MS = 60_000;
const FIRST_BACKOFF_MS = 200;
const MAX_BACKOFF_MS = 5_000;

/** git's reason for a failure: its first `fatal:`/`error:` line (the last line may be advice). */
export function gitReason(stderr: string): string {
  const lines = stderr.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  return lines.find((l) => /^(fatal|error):/.test(l)) ?? lines.find((l) => l.startsWith('!')) ?? lines[lines.length - 1] ?? '';
}

/** Lost a race with another pusher (worth another round), as opposed to a refusal. */
function lostRace(stderr: string): boolean {
  return /non-fast-forward|fetch first|stale info|cannot lock ref|failed to update ref|incorrect old value|but expected/i.test(stderr);
}

/** The n-th wait: 200 ms doubling, ±50 %, at most 5 s (SPEC-2 §E.2). */
export function backoffMs(round: number, random: () => number = Math.random): number {
  const base = Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** round);
  return Math.min(MAX_BACKOFF_MS, Math.round(base * (0.5 + random())));
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export interface SyncOptions {
  refs?: readonly SyncRef[];
  deadlineMs?: number;
}

/** Where each ref is on the remote (null: absent), by one `git ls-remote`; throws when the remote cannot be read. */
async function remoteTips(ctx: HookContext, remote: string, refs: readonly SyncRef[], timeoutMs: number): Promise<Map<string, string | null>> {
  const r = await runGit(['ls-remote', '--', remote, ...refs.map((s) => s.ref)], { cwd: ctx.repo.root, allowFailure: true, timeoutMs });
  if (r.code !== 0) throw new Error(`cannot reach ${remote}: ${gitReason(r.stderr.toString())}`);
  const out = new Map<string, string | null>(refs.map((s) => [s.ref, null]));
  for (const line of r.stdout.toString('utf8').split('\n')) {
    const [oid, name] = line.split('\t');
    if (oid && name && out.has(name) && /^[0-9a-f]{40,64}$/.test(oid)) out.set(name, oid);
  }
  return out;
}

/**
 * Bring the remote's copy of `s` (at `theirs`) into the local ref: fetch it
 * (into the tracking ref for a named remote) and union-merge it.
 */
async function fetchAndMerge(ctx: HookContext, remote: string, s: SyncRef, theirs: string, timeoutMs: number): Promise<void> {
  const named = !isUrlLike(remote);
  const dst = named ? s.tracking(remote) : null;
  const spec = dst ? `+${s.ref}:${dst}` : s.ref;
  const f = await runGit(['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', remote, spec], { cwd: ctx.repo.root, allowFailure: true, timeoutMs });
  if (f.code !== 0) throw new Error(`fetch of ${s.label} failed: ${gitReason(f.stderr.toString())}`);
  // the fetched commit is someone else's data: merge.ts accepts only the checkpoint layout (SPEC-2 §A.7)
  const fetched = dst ? await readRef(ctx.repo, dst) : theirs;
  if (!fetched) throw new Error(`cannot read the fetched ${s.label}`);
  fault('pre-push-after-fetch');
  await s.merge(ctx, fetched);
  fault('pre-push-after-merge');
}

/** SPEC-2 §E.3: the remote has no copy while our tracking ref says it had one: drop the ref (CAS) and say so. */
async function dropStaleTracking(ctx: HookContext, remote: string, s: SyncRef): Promise<void> {
  if (isUrlLike(remote)) return;
  const ref = s.tracking(remote);
  const was = await readRef(ctx.repo, ref);
  if (!was) return;
  await updateRefs(ctx.repo, [{ ref, newOid: null, oldOid: was }]);
  writeStderr(`[entire] ${remote} has no ${s.label}; pushing it again\n`);
}

/** After a push landed: the tracking ref says what the remote now holds (git does too when its fetch refspec covers it). */
async function recordPushed(ctx: HookContext, remote: string, s: SyncRef, oid: string): Promise<void> {
  if (isUrlLike(remote)) return;
  const ref = s.tracking(remote);
  const was = await readRef(ctx.repo, ref);
  if (was !== oid) await updateRefs(ctx.repo, [{ ref, newOid: oid, oldOid: was }]).catch(() => undefined);
}

/**
 * Push the sync refs to `remote` until they are there (or the deadline).
 * Returns the refs pushed; throws one error for the caller's one warning.
 */
export async function syncRefs(ctx: HookContext, remote: string, opts: SyncOptions = {}): Promise<string[]> {
  const deadline = Date.now() + (opts.deadlineMs ?? deadlineFromEnv());
  const left = (): number => Math.max(1, deadline - Date.now());
  const all = opts.refs ?? SYNC_REFS;
  const present: SyncRef[] = [];
  for (const s of all) if (await readRef(ctx.repo, s.ref)) present.push(s);
  if (present.length === 0) return [];
  const pushed: string[] = [];
  let announced = false;
  let pending = present;
  for (let round = 0; ; round++) {
    const tips = await remoteTips(ctx, remote, pending, left());
    const toPush: SyncRef[] = [];
    for (const s of pending) {
      const theirs = tips.get(s.ref) ?? null;
      if (theirs === null) await dropStaleTracking(ctx, remote, s);
      else if (theirs !== (await readRef(ctx.repo, s.ref)) && !(await isAncestor(ctx, theirs, s.ref))) {
        // the remote holds what we lack (a teammate's push, or a rewritten branch): union, never force
        await fetchAndMerge(ctx, remote, s, theirs, left());
      }
      const mine = await readRef(ctx.repo, s.ref);
      if (mine && mine === theirs) {
        await recordPushed(ctx, remote, s, mine);
        pushed.push(s.ref);
      } else if (mine) toPush.push(s);
    }
    if (toPush.length === 0) return pushed;
    if (!announced) {
      writeStderr(`[entire] Pushing session logs to ${remote}...\n`);
      announced = true;
    }
    fault('pre-push-before-push');
    const tipsNow = await Promise.all(toPush.map(async (s) => [s, await readRef(ctx.repo, s.ref)] as const));
    const push: GitResult = await runGit(
      ['push', '--no-verify', '--porcelain', remote, ...tipsNow.map(([s, oid]) => `${oid}:${s.ref}`)],
      { cwd: ctx.repo.root, allowFailure: true, timeoutMs: left() },
    );
    const out = push.stdout.toString('utf8');
    const landed = push.code === 0 ? toPush : toPush.filter((s) => new RegExp(`^[ +*=]\\t[^\\t]*:${escapeRe(s.ref)}\\t`, 'm').test(out));
    for (const s of landed) {
      await recordPushed(ctx, remote, s, tipsNow.find(([x]) => x === s)![1]!);
      pushed.push(s.ref);
    }
    pending = toPush.filter((s) => !landed.includes(s));
    if (pending.length === 0) {
      ctx.log.info(`pushed session logs (round ${round + 1})`);
      return pushed;
    }
    const why = push.stderr.toString() + '\n' + out;
    if (!lostRace(why)) throw new Error(`push of session logs failed: ${gitReason(why)}`);
    const wait = backoffMs(round);
    if (Date.now() + wait >= deadline) throw new Error('could not push session logs before the deadline; will try again on the next push');
    await sleep(wait);
  }
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `ENTIRE_PUSH_DEADLINE_MS` shortens the deadline (tests of an unreachable remote); never lengthens it. */
function deadlineFromEnv(): number {
  const v = Number(process.env['ENTIRE_PUSH_DEADLINE_MS']);
  return Number.isFinite(v) && v > 0 ? Math.min(v, PUSH_DEADLINE_MS) : PUSH_DEADLINE_MS;
}
