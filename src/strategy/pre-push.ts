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
  // fails closed: a checkpoint remote that is set but unusable throws here, and nothing is pushed anywhere
  const target = await checkpointPushTarget(ctx, remote);
  await syncRefs(ctx, target);
}
