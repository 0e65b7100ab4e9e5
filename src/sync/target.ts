/**
 * Which remote receives the checkpoint data of a push (SPEC-2 §E.5): the
 * remote being pushed, or the checkpoint remote whenever one is set, for a
 * push to any remote. A checkpoint remote that is set but not a configured
 * remote fails closed: the error becomes the hook's one warning and no
 * checkpoint object goes anywhere (the code remote least of all).
 */
import type { HookContext } from '../strategy/context.js';
import { configGet } from '../git/repo.js';
import { checkpointRemoteSetting } from './checkpoint-remote.js';

export async function checkpointPushTarget(ctx: HookContext, pushed: string): Promise<string> {
  const s = checkpointRemoteSetting(ctx.settings.settings);
  if (s.kind === 'unset') return pushed;
  if (s.kind === 'invalid') {
    throw new Error(`checkpoint_remote must name a git remote (got ${JSON.stringify(s.raw)}); session logs not pushed`);
  }
  if ((await configGet(ctx.repo, `remote.${s.name}.url`)) === null) {
    throw new Error(`checkpoint remote ${s.name} is not configured (git remote add ${s.name} <url>); session logs not pushed`);
  }
  return s.name;
}
