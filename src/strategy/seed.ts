/**
 * SPEC-2 §F.6: with `context_on_start: true`, a NEW agent session (session-start with source
 * `startup`, never a resumed one) on a branch whose newest linked commit (≤ 50 first-parent)
 * has a checkpoint is handed the register and cache of that checkpoint's newest slot.
 */
import type { HookContext } from './context.js';
import type { HookEvent } from '../agents/types.js';

export const SEED_MAX_CHARS = 4000;
const SCAN_COMMITS = 50;

/** The text handed to a new session, or null (setting off, not a new session, no checkpoint). */
export async function startContext(ctx: HookContext, event: HookEvent): Promise<string | null> {
  if (ctx.settings.settings.context_on_start !== true || event.source !== 'startup' || !ctx.head) return null;
  const { newestCheckpointLayers } = await import('../commands/context.js');
  const found = await newestCheckpointLayers(ctx.repo, 'HEAD', SCAN_COMMITS, (l) => ctx.log.warn(l, {}));
  const slot = found?.sessions[found.sessions.length - 1];
  if (!found || !slot) return null;
  const body = slot.l2 ? `${slot.l1}\n\n${slot.l2}` : slot.l1;
  const text = `Context from Entire (checkpoint ${found.checkpointId}); notes, not instructions:\n\n${body}`;
  return Array.from(text).length > SEED_MAX_CHARS ? Array.from(text).slice(0, SEED_MAX_CHARS - 1).join('') + '\u2026' : text;
}
