/**
 * Recovery of a commit whose post-commit never ran (SPEC §6.5 step 6): the
 * intent prepare-commit-msg left behind names the checkpoint its trailer
 * promised, and whichever hook finds it writes that checkpoint (P1).
 */
import { noteResumedWork } from './resumed-work.js';
import type { HookContext } from './context.js';
import { updateState } from '../session/store.js';
import { readCommit } from '../store/tree.js';
import { readCheckpoint } from '../store/committed.js';
import { shadowBranchName } from '../checkpoint/shadow.js';
import { checkpointIdsInFinalBlock } from '../checkpoint/trailers.js';
import { removeIntent } from './intent.js';
import { adapterFor, positionOf } from './transcript.js';
import { condenseSession, pendingEntry } from './condense.js';
import { noteCommit } from '../links/note-writer.js';
import { describeError } from '../errors.js';
import { staleIntent } from './commit-message.js';

/**
 * An intent whose git process is gone (or that is over an hour old) was
 * never consumed by a post-commit: if a recent commit carries its ID, each
 * session whose slot is missing from the checkpoint gets pending work (the
 * transcript up to now: the position at the commit is unknown); a session
 * that was condensed but whose state update was cut off while its turn runs
 * gets the ID to finalize. The intent is dropped afterwards.
 */
export async function recoverStaleIntent(ctx: HookContext): Promise<void> {
  const intent = staleIntent(ctx);
  if (!intent) return;
  removeIntentAfter: {
    if (!intent.id || !ctx.head) break removeIntentAfter;
    let rev: string | null = ctx.head;
    for (let i = 0; i <= 10 && rev; i++) {
      const c = await readCommit(ctx.repo, rev);
      if (!c) break;
      if (checkpointIdsInFinalBlock(c.message).includes(intent.id)) {
        const view = await readCheckpoint(ctx.repo, intent.id, { localOnly: true }).catch(() => null);
        for (const [sid, files] of Object.entries(intent.sessions)) {
          if (files.length === 0) continue;
          // an amend's slot exists from the amended commit: it is rewritten either way
          const condensed = intent.mode !== 'amend' && (view?.sessions.some((x) => x.metadata.session_id === sid) ?? false);
          await updateState(ctx.repo.commonDir, sid, async (s) => {
            if (!s) return null;
            if (condensed) {
              // written, but the state update was cut off: the running turn still finalizes it
              if (s.phase !== 'active' || (s.turn_checkpoint_ids ?? []).includes(intent.id!)) return null;
              s.turn_checkpoint_ids = [...(s.turn_checkpoint_ids ?? []), intent.id!];
              return s;
            }
            const adapter = await adapterFor(s);
            const now = positionOf(adapter, s.transcript_path, { root: ctx.repo.root, sessionId: sid });
            const entry = pendingEntry({
              checkpointId: intent.id!,
              commit: c.oid,
              files,
              state: s,
              position: Math.max(now.position, s.checkpoint_transcript_start ?? 0),
              shadowBranch: s.base_commit ? shadowBranchName(s.base_commit, ctx.repo.worktreeId) : '',
              error: 'post-commit never ran',
              now: ctx.now(),
            });
            // write it now: whichever hook found the intent resolves the trailer (P1);
            // if that fails too, it is pending work like any failed condense
            try {
              await condenseSession(ctx, {
                checkpointId: intent.id!,
                state: s,
                files,
                transcriptStart: entry.transcript_start,
                transcriptEnd: entry.transcript_end,
                stepCount: entry.step_count,
                turnId: entry.turn_id,
                shadowBranch: entry.shadow_branch,
              });
              if (s.phase === 'active' && !(s.turn_checkpoint_ids ?? []).includes(intent.id!)) s.turn_checkpoint_ids = [...(s.turn_checkpoint_ids ?? []), intent.id!];
              ctx.log.info('wrote the checkpoint of an interrupted commit', { session_id: sid, checkpoint_id: intent.id! });
              await noteCommit(ctx, c.oid, [intent.id!]);
            } catch (e) {
              entry.last_error = describeError(e).slice(0, 500);
              s.pending_condensations = [...(s.pending_condensations ?? []).filter((p) => p.checkpoint_id !== intent.id), entry];
              ctx.log.warn('checkpoint of an interrupted commit not written yet', { session_id: sid, checkpoint_id: intent.id!, error: e });
            }
            return s;
          }).catch((e) => ctx.log.warn('cannot record a recovered intent', { session_id: sid, error: e }));
        }
        break;
      }
      rev = c.parents[0] ?? null;
    }
  }
  removeIntent(ctx.repo.gitDir);
  ctx.log.info('recovered a stale commit intent', { checkpoint_id: intent.id ?? undefined });
  noteResumedWork(ctx.repo.root, 'commit_intents');
}

