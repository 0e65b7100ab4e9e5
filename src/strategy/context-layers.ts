/**
 * The hooks' side of the layered `context.md` (SPEC-2 §F.4): derive L1/L2 from the redacted
 * transcript a step, condensation or finalization is about to store. Never fatal: on any
 * failure the file keeps v1's prompt list and the hook logs why.
 */
import type { HookContext } from './context.js';
import type { AgentAdapter, TranscriptFormat } from '../agents/types.js';
import type { PreRedacted } from '../store/content.js';
import { contextLayers, type Layers } from '../context/layers.js';
import { mark } from '../timing.js';

export function layersForStore(
  ctx: HookContext,
  o: { adapter: AgentAdapter; transcript: PreRedacted | null; format: TranscriptFormat; prompts: readonly string[]; sessionId: string },
): Layers | null {
  try {
    const layers = contextLayers({ adapter: o.adapter, transcript: o.transcript ? o.transcript.bytes() : null, format: o.format, prompts: o.prompts, root: ctx.repo.root });
    mark('context: layers derived');
    return layers;
  } catch (e) {
    ctx.log.warn('layered context skipped', { session_id: o.sessionId, error: e });
    return null;
  }
}
