/**
 * The hooks' side of the layered `context.md` (SPEC-2 §F.4): derive L1/L2 from the redacted
 * transcript a step, condensation or finalization is about to store. Never fatal: on any
 * failure the file keeps v1's prompt list and the hook logs why.
 *
 * The derivation reads the whole transcript (≈ 8–14 ms/MB), and a commit after a turn end
 * condenses the very transcript the turn end's step just read: the last result is kept per
 * session (`<git common dir>/entire-sessions/<sid>.layers`, ours, never the work tree) under a
 * key of what the derivation reads (agent, format, root, prompts, size and the last 64 KiB of an
 * append-only transcript), so git's post-commit does not pay it again.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HookContext } from './context.js';
import type { AgentAdapter, TranscriptFormat } from '../agents/types.js';
import type { PreRedacted } from '../store/content.js';
import type { ByteSource } from '../byte-source.js';
import { contextLayers, type Layers } from '../context/layers.js';
import { sessionsDir } from '../session/paths.js';
import { mark } from '../timing.js';

const TAIL_BYTES = 64 * 1024;

function memoKey(o: { adapter: AgentAdapter; source: ByteSource | null; format: TranscriptFormat; prompts: readonly string[]; root: string }): string {
  const h = createHash('sha256');
  h.update(`${o.adapter.key}\0${o.format}\0${o.root}\0${o.prompts.length}\0`);
  for (const p of o.prompts) h.update(`${p.length}:${p}`);
  if (o.source) {
    h.update(`\0${o.source.size}\0`);
    const start = Math.max(0, o.source.size - TAIL_BYTES);
    for (const piece of o.source.pieces(start, o.source.size)) h.update(piece);
  }
  return h.digest('hex');
}

function readMemo(path: string, key: string): Layers | null {
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as { key?: unknown; l1?: unknown; l2?: unknown };
    return v.key === key && typeof v.l1 === 'string' && typeof v.l2 === 'string' ? { l1: v.l1, l2: v.l2 } : null;
  } catch {
    return null;
  }
}

export function layersForStore(
  ctx: HookContext,
  o: { adapter: AgentAdapter; transcript: PreRedacted | null; format: TranscriptFormat; prompts: readonly string[]; sessionId: string },
): Layers | null {
  try {
    const source = o.transcript ? o.transcript.bytes() : null;
    const key = memoKey({ adapter: o.adapter, source, format: o.format, prompts: o.prompts, root: ctx.repo.root });
    const memo = join(sessionsDir(ctx.repo.commonDir), `${o.sessionId}.layers`);
    const kept = readMemo(memo, key);
    if (kept) {
      mark('context: layers reused');
      return kept;
    }
    const layers = contextLayers({ adapter: o.adapter, transcript: source, format: o.format, prompts: o.prompts, root: ctx.repo.root });
    mark('context: layers derived');
    if (layers) {
      try {
        writeFileSync(memo, JSON.stringify({ key, ...layers }), { mode: 0o600 });
      } catch {
        /* only a later hook's time */
      }
    }
    return layers;
  } catch (e) {
    ctx.log.warn('layered context skipped', { session_id: o.sessionId, error: e });
    return null;
  }
}
