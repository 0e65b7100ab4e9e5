/**
 * SPEC §6.5 step 6: a commit whose post-commit was cut off (killed, crashed)
 * left its intent behind; the next agent hook turns it into the checkpoint
 * (or the finalization) it still owes, before its own work. A module of its
 * own so the turn-end hook the agent waits on runs it without loading the
 * turn flows.
 */
import { existsSync } from 'node:fs';
import type { HookContext } from './context.js';
import { intentPath } from './intent.js';

export async function recoverInterruptedCommit(ctx: HookContext): Promise<void> {
  if (!ctx.head || !existsSync(intentPath(ctx.repo.gitDir))) return;
  try {
    await (await import('./stale-intent.js')).recoverStaleIntent(ctx);
  } catch (e) {
    ctx.log.warn('cannot recover a stale commit intent', { error: e });
  }
}
