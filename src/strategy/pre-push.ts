/**
 * SPEC §6.9 team sync on push: push `entire/checkpoints/v1` to the remote
 * being pushed, or to the checkpoint remote when one is set (SPEC-2 §E.5);
 * when the remote moved, fetch and merge as a tree union. Never blocks the
 * person's push (P4).
 */
import type { HookContext } from './context.js';
import { pushSessionsEnabled } from '../settings/settings.js';
import { gitArgv, isDryRunPush } from '../git/argv.js';
import { syncRefs } from '../sync/push.js';
import { checkpointPushTarget } from '../sync/target.js';
import { checkpointRemoteSetting } from '../sync/checkpoint-remote.js';
import { writeStderr } from '../stderr.js';

export async function prePush(ctx: HookContext, args: string[]): Promise<void> {
  const remote = args[0];
  if (!remote) return;
  if (!pushSessionsEnabled(ctx.settings.settings)) return;
  const argv = gitArgv();
  if (argv && isDryRunPush(argv.slice(2))) return;
  const args2 = argv ? argv.slice(2) : [];
  const sendsAll = args2.some((a) => a === '--all' || a === '--mirror' || a === '--branches');
  const sendsMetadata = args2.some((a) => /(^|[:+/])entire\/checkpoints\/v1$/.test(a));
  if (sendsAll || sendsMetadata) warnIfPrivate(ctx, remote);
  if (sendsAll) {
    // SPEC-2 §A.12: shadow branches hold the sessions' uncommitted work-tree snapshots, meant to stay local
    writeStderr('[entire] warning: this push sends every local branch, including Entire\'s shadow branches (entire/<commit>-<worktree>); push branches by name to keep them local\n');
  }
  // fails closed: a checkpoint remote that is set but unusable throws here, and nothing is pushed anywhere
  const target = await checkpointPushTarget(ctx, remote);
  // SPEC-3 §A.6: the refs either tool queued (git itself sends them on --mirror)
  if (!args2.includes('--mirror')) await drainQueue(ctx, target);
  // git pushes the branch to this very remote itself: our push first would make git's own update fail
  if ((sendsAll || sendsMetadata) && target === remote) return;
  await linkHooklessBeforePush(ctx);
  await syncRefs(ctx, target);
  // the notes index goes where the checkpoints go (never to the code remote when a checkpoint remote is set)
  await pushNotes(ctx, target);
}

/**
 * git itself sends `entire/checkpoints/v1` in this push (named, or `--all`/`--mirror`), and a
 * hook cannot stop it without failing the person's push: with a checkpoint remote set, say so.
 */
function warnIfPrivate(ctx: HookContext, remote: string): void {
  const cr = checkpointRemoteSetting(ctx.settings.settings);
  if (cr.kind === 'unset' || (cr.kind === 'remote' && cr.name === remote)) return;
  writeStderr(`[entire] warning: this push sends entire/checkpoints/v1 to ${remote}, but checkpoints are meant for the checkpoint remote only (checkpoint_remote)\n`);
}

/** SPEC-3 §A.6: push the queued checkpoint refs; whatever fails stays queued and is one warning. */
async function drainQueue(ctx: HookContext, target: string): Promise<void> {
  try {
    await (await import('../sync/push-queue-drain.js')).drainPushQueue(ctx, target);
  } catch (e) {
    ctx.log.warn('draining the checkpoint push queue failed', { error: e });
    writeStderr(`[entire] warning: checkpoint refs not pushed: ${e instanceof Error ? e.message.split('\n')[0]!.slice(0, 200) : 'unknown error'}; they stay queued\n`);
  }
}

/** SPEC-2 §D.3: commits made without hooks get their checkpoints before the push sends them. */
async function linkHooklessBeforePush(ctx: HookContext): Promise<void> {
  try {
    await (await import('./hookless-commits.js')).linkHooklessInWorktree(ctx);
  } catch (e) {
    ctx.log.warn('cannot link commits made without hooks', { error: e });
  }
}

/** SPEC-2 §D.1: the notes index goes where the metadata branch goes; a failure is one warning. */
async function pushNotes(ctx: HookContext, remote: string): Promise<void> {
  try {
    await (await import('../sync/notes-push.js')).syncNotes(ctx, remote);
  } catch (e) {
    ctx.log.warn('pushing commit notes failed', { error: e });
    writeStderr(`[entire] warning: ${e instanceof Error ? e.message.split('\n')[0]!.slice(0, 200) : 'pushing commit notes failed'}\n`);
  }
}
