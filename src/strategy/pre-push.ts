/**
 * SPEC §6.9 team sync on push: push `entire/checkpoints/v1` to the remote
 * being pushed; when the remote moved, fetch and merge as a tree union.
 * Never blocks the person's push (P4).
 */
import type { HookContext } from './context.js';
import { pushSessionsEnabled } from '../settings/settings.js';
import { gitArgv, isDryRunPush } from '../git/argv.js';
import { syncMetadataBranch } from '../sync/push.js';
import { writeStderr } from '../stderr.js';

export async function prePush(ctx: HookContext, args: string[]): Promise<void> {
  const remote = args[0];
  if (!remote) return;
  if (!pushSessionsEnabled(ctx.settings.settings)) return;
  const argv = gitArgv();
  if (argv && isDryRunPush(argv.slice(2))) return;
  // the person pushes the metadata branch (or everything) themselves: pushing it
  // first here would make git's own update of that ref fail
  const args2 = argv ? argv.slice(2) : [];
  if (args2.some((a) => a === '--all' || a === '--mirror' || a === '--branches')) {
    // SPEC-2 §A.12: shadow branches hold the sessions' uncommitted work-tree snapshots, meant to stay local
    writeStderr('[entire] warning: this push sends every local branch, including Entire\'s shadow branches (entire/<commit>-<worktree>); push branches by name to keep them local\n');
    return;
  }
  if (args2.some((a) => /(^|[:+/])entire\/checkpoints\/v1$/.test(a))) return;
  await linkHooklessBeforePush(ctx);
  await syncMetadataBranch(ctx, remote);
  await pushNotes(ctx, remote);
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
