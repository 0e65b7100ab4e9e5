/**
 * SPEC §5 RetryPending: pending condensations first (a trailer must resolve,
 * P1), then leftover finalizations, before anything else a hook does.
 */
import { noteResumedWork } from './resumed-work.js';
import type { HookContext } from './context.js';
import type { SessionState } from '../session/state.js';
import { condenseSession } from './condense.js';
import { noteCommit } from '../links/note-writer.js';
import { finalizeTurn, MAX_HOOK_ATTEMPTS } from './finalize.js';
import { readCheckpoint } from '../store/committed.js';
import { describeError } from '../errors.js';

/**
 * Whether checkpoint `id` holds a slot of session `sid`. A checkpoint of
 * several sessions exists as soon as the first slot is written, so its
 * existence says nothing about the others (their pending work must still run).
 */
export async function hasSessionSlot(ctx: HookContext, id: string, sid: string): Promise<boolean> {
  const view = await readCheckpoint(ctx.repo, id, { localOnly: true }).catch(() => null);
  return view !== null && view.sessions.some((s) => s.metadata.session_id === sid);
}

export async function retryPendingCondensations(ctx: HookContext, state: SessionState, opts: { fromDoctor?: boolean } = {}): Promise<SessionState> {
  const pending = state.pending_condensations ?? [];
  if (pending.length === 0) return state;
  const next: SessionState = { ...state, pending_condensations: [] };
  for (const p of pending) {
    if (!opts.fromDoctor && p.attempts >= MAX_HOOK_ATTEMPTS) {
      next.pending_condensations!.push(p);
      continue;
    }
    try {
      if (!(await hasSessionSlot(ctx, p.checkpoint_id, state.session_id))) {
        await condenseSession(ctx, {
          checkpointId: p.checkpoint_id,
          state,
          files: p.files,
          transcriptStart: p.transcript_start,
          transcriptEnd: p.transcript_end,
          stepCount: p.step_count,
          turnId: p.turn_id,
          shadowBranch: p.shadow_branch,
        });
      }
      ctx.log.info('wrote pending checkpoint', { session_id: state.session_id, checkpoint_id: p.checkpoint_id });
      if (p.commit) await noteCommit(ctx, p.commit, [p.checkpoint_id]);
      noteResumedWork(ctx.repo.root, 'condensations');
      // a mid-turn commit of the running turn still needs its full transcript
      if (state.phase === 'active' && p.turn_id && p.turn_id === state.turn_id) {
        const ids = next.turn_checkpoint_ids ?? [];
        if (!ids.includes(p.checkpoint_id)) next.turn_checkpoint_ids = [...ids, p.checkpoint_id];
      }
    } catch (e) {
      next.pending_condensations!.push({ ...p, attempts: p.attempts + 1, last_error: describeError(e).slice(0, 500) });
      ctx.log.warn('pending checkpoint still not written', { session_id: state.session_id, checkpoint_id: p.checkpoint_id, error: e });
    }
  }
  if (next.pending_condensations!.length === 0) delete next.pending_condensations;
  return next;
}

/** RetryPending: condensations, then finalizations left from an earlier turn. */
export async function retryPending(ctx: HookContext, state: SessionState, opts: { fromDoctor?: boolean; finalize?: boolean } = {}): Promise<SessionState> {
  let s = await retryPendingCondensations(ctx, state, opts);
  if (opts.finalize !== false && s.phase !== 'active' && (s.turn_checkpoint_ids ?? []).length > 0) s = await finalizeTurn(ctx, s, opts);
  return s;
}
