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
 *
 * When the layers are derived, a line-local agent's fold resumes from its saved state
 * (`.entire/tmp/context/<sid>.json`, src/context/incremental.ts): a later turn end folds only the
 * lines the turn added. The state is redacted (it holds what the redacted transcript says) and
 * is read back only through src/context/fold-state.ts.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HookContext } from './context.js';
import type { AgentAdapter, TranscriptFormat } from '../agents/types.js';
import type { PreRedacted } from '../store/content.js';
import type { ByteSource } from '../byte-source.js';
import type { Layers } from '../context/layers.js';
import { foldTranscript } from '../context/incremental.js';
import { MAX_CHECKPOINT_BYTES, parseCheckpoint, type Checkpoint } from '../context/fold-state.js';
import { cacheKeyName } from '../redact/incremental.js';
import { confinedDirOrNull, readFileNoFollow, writeFileIn } from '../trust/confined.js';
import { sessionsDir } from '../session/paths.js';
import { mark } from '../timing.js';

const TAIL_BYTES = 64 * 1024;
/** Where the fold states live, below the work tree root (SPEC-2 §F.4: `.entire/tmp/`). */
export const FOLD_STATE_DIR = '.entire/tmp/context';

export function foldStateName(sessionId: string): string {
  return `${cacheKeyName(sessionId)}.json`;
}

/** The saved fold state, or null (missing, unsafe path, too large, or not valid). */
function readFoldState(root: string, sessionId: string): Checkpoint | null {
  const dir = confinedDirOrNull(root, FOLD_STATE_DIR, { create: false });
  if (dir === null) return null;
  const buf = readFileNoFollow(join(dir, foldStateName(sessionId)), MAX_CHECKPOINT_BYTES);
  return buf ? parseCheckpoint(buf.toString('utf8')) : null;
}

function writeFoldState(root: string, sessionId: string, cp: Checkpoint): void {
  writeFileIn(confinedDirOrNull(root, FOLD_STATE_DIR, { mode: 0o700 })!, foldStateName(sessionId), JSON.stringify(cp));
}

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
    const root = ctx.repo.root;
    let saved: Checkpoint | null = null;
    try {
      saved = o.adapter.contextLineLocal && source ? readFoldState(root, o.sessionId) : null;
    } catch {
      /* an unsafe .entire/tmp: fold from scratch */
    }
    const fold = foldTranscript({ adapter: o.adapter, transcript: source, format: o.format, prompts: o.prompts, root, saved });
    const layers = fold.layers;
    mark(fold.resumedAt > 0 ? 'context: layers derived (resumed)' : 'context: layers derived');
    // nothing new since the saved state: it stands
    if (fold.checkpoint && !(fold.resumedAt > 0 && fold.checkpoint.offset === fold.resumedAt)) {
      try {
        writeFoldState(root, o.sessionId, fold.checkpoint);
      } catch (e) {
        ctx.log.warn('context fold state not saved', { session_id: o.sessionId, error: e });
      }
    }
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
