/**
 * SPEC §6.6 FinalizeTurn: every checkpoint condensed while the turn was
 * running gets the full, redacted transcript of the turn. An ID leaves the
 * pending list only once its update landed; failures are kept and retried.
 */
import { noteResumedWork } from './resumed-work.js';
import type { HookContext } from './context.js';
import type { SessionState } from '../session/state.js';
import { readCheckpoint, updateCommittedSession } from '../store/committed.js';
import { adapterFor, analyze, positionOf, promptsOf, redactedTranscript, type Owner } from './transcript.js';
import { toMetaUsage, condenseSession } from './condense.js';
import { describeError } from '../errors.js';
import { fault } from './faults.js';
import { layersForStore } from './context-layers.js';
import { modelName } from '../redact/model-name.js';
import type { TokenUsage } from '../checkpoint/metadata.js';

export const MAX_HOOK_ATTEMPTS = 10;

/**
 * Finalize `state.turn_checkpoint_ids`; returns the updated state (the caller
 * saves it). `fromDoctor` ignores the per-item attempt cap.
 */
export async function finalizeTurn(ctx: HookContext, state: SessionState, opts: { fromDoctor?: boolean } = {}): Promise<SessionState> {
  const ids = state.turn_checkpoint_ids ?? [];
  if (ids.length === 0) return state;
  const next: SessionState = { ...state, turn_checkpoint_ids: [...ids], finalize_failures: { ...(state.finalize_failures ?? {}) } };
  const adapter = await adapterFor(state);
  const path = state.transcript_path;
  let transcript;
  try {
    if (!path) throw new Error('the session has no transcript path');
    transcript = await redactedTranscript(ctx.repo.root, state.session_id, adapter, path);
  } catch (e) {
    // no fallback: an older copy is not the full turn
    for (const id of ids) recordFailure(next, id, e, ctx.now());
    ctx.log.warn('finalize deferred: transcript unreadable', { session_id: state.session_id, error: e });
    return tidy(next);
  }
  const owner = { root: ctx.repo.root, sessionId: state.session_id };
  const prompts = await promptsOf(adapter, path, owner);
  const here = positionOf(adapter, path, owner);
  const end = here.position;
  // the whole turn: every checkpoint of it gets the same layers
  const contextLayers = layersForStore(ctx, { adapter, transcript, format: adapter.transcriptFormat(path), prompts, sessionId: state.session_id });

  // start of each checkpoint's range, from its stored slot metadata
  const starts = new Map<string, number>();
  const unreadable = new Set<string>();
  for (const id of ids) {
    try {
      const view = await readCheckpoint(ctx.repo, id, { localOnly: true });
      const slot = view?.sessions.find((s) => s.metadata.session_id === state.session_id);
      if (slot) starts.set(id, slot.metadata.checkpoint_transcript_start ?? 0);
    } catch {
      unreadable.add(id); // handled by the update below
    }
  }
  const ordered = [...ids];
  for (let i = 0; i < ordered.length; i++) {
    const id = ordered[i]!;
    const failure = next.finalize_failures?.[id];
    if (!opts.fromDoctor && failure && failure.attempts >= MAX_HOOK_ATTEMPTS) continue;
    try {
      fault('finalize-before-update');
      if (!starts.has(id) && !unreadable.has(id)) {
        // its condensation never landed (the checkpoint, or this session's slot in
        // it, is missing): write it first from the pending entry
        const pending = (next.pending_condensations ?? []).find((p) => p.checkpoint_id === id);
        if (!pending) throw new Error(`checkpoint ${id} does not exist and no pending condensation can write it`);
        await condenseSession(ctx, {
          checkpointId: id,
          state: next,
          files: pending.files,
          transcriptStart: pending.transcript_start,
          stepCount: pending.step_count,
          turnId: pending.turn_id,
          shadowBranch: pending.shadow_branch,
        });
        next.pending_condensations = (next.pending_condensations ?? []).filter((p) => p.checkpoint_id !== id);
        starts.set(id, pending.transcript_start);
      }
      const start = starts.get(id) ?? 0;
      const nextStart = ordered.slice(i + 1).map((x) => starts.get(x)).find((x) => x !== undefined);
      const { usage, model } = rangeFacts(adapter, path!, start, nextStart ?? end, owner);
      await updateCommittedSession(ctx.repo, {
        checkpointId: id,
        sessionId: state.session_id,
        transcript,
        format: adapter.transcriptFormat(path!),
        prompts,
        promptsRedacted: true, // promptsOf: from the transcript cache, redacted
        contextLayers,
        tokenUsage: usage,
        model,
      });
      fault('finalize-after-update');
      next.turn_checkpoint_ids = (next.turn_checkpoint_ids ?? []).filter((x) => x !== id);
      delete next.finalize_failures![id];
      ctx.log.info('finalized checkpoint', { session_id: state.session_id, checkpoint_id: id });
      // a retry of a finalization that failed before: pending work resumed
      if (failure) noteResumedWork(ctx.repo.root, 'finalizations');
    } catch (e) {
      recordFailure(next, id, e, ctx.now());
      ctx.log.warn('finalize failed; will retry', { session_id: state.session_id, checkpoint_id: id, error: e });
    }
  }
  // only when the list was non-empty: the next checkpoint starts at this turn's end
  next.checkpoint_transcript_start = end;
  if (here.lastIdentifier) next.transcript_identifier_at_start = here.lastIdentifier;
  return tidy(next);
}

/**
 * Usage and model of [from, to), from the analyses from `from` and from `to` (no other pass).
 * The model is the range's last one when [to, end) names none; otherwise the two analyses
 * cannot tell, and undefined keeps what the condensation stored.
 */
function rangeFacts(
  adapter: Awaited<ReturnType<typeof adapterFor>>,
  path: string,
  from: number,
  to: number,
  owner: Owner,
): { usage?: TokenUsage; model?: string } {
  const a = analyze(adapter, path, from, owner);
  if (!a) return {};
  const model = modelName(a.model);
  if (to >= a.position) return { usage: toMetaUsage(a.tokenUsage), model };
  // usage of [from, to): whole-from minus from-to
  const b = analyze(adapter, path, to, owner);
  if (!b) return { usage: toMetaUsage(a.tokenUsage) };
  const u = a.tokenUsage;
  const v = b.tokenUsage;
  return { model: b.model === undefined ? model : undefined, usage: rangeUsage(u, v) };
}

function rangeUsage(u: TokenUsage, v: TokenUsage): TokenUsage | undefined {
  return toMetaUsage({
    input_tokens: u.input_tokens - v.input_tokens,
    cache_creation_tokens: u.cache_creation_tokens - v.cache_creation_tokens,
    cache_read_tokens: u.cache_read_tokens - v.cache_read_tokens,
    output_tokens: u.output_tokens - v.output_tokens,
    api_call_count: u.api_call_count - v.api_call_count,
  });
}

function recordFailure(s: SessionState, id: string, e: unknown, now: Date): void {
  const f = s.finalize_failures ?? (s.finalize_failures = {});
  const prev = f[id];
  f[id] = {
    attempts: (prev?.attempts ?? 0) + 1,
    last_error: describeError(e).slice(0, 500),
    first_failed_at: prev?.first_failed_at ?? now.toISOString(),
  };
}

function tidy(s: SessionState): SessionState {
  if (s.turn_checkpoint_ids && s.turn_checkpoint_ids.length === 0) delete s.turn_checkpoint_ids;
  if (s.finalize_failures && Object.keys(s.finalize_failures).length === 0) delete s.finalize_failures;
  if (s.pending_condensations && s.pending_condensations.length === 0) delete s.pending_condensations;
  return s;
}
