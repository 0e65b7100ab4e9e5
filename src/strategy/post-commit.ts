/**
 * post-commit (SPEC §6.5): write the checkpoint the intent promised, carry
 * uncommitted work forward, move the other sessions to the new HEAD and drop
 * the old shadow branch. A write that fails becomes pending work and is
 * retried, so every trailer resolves (P1) and nothing is lost (P3).
 */
import type { HookContext } from './context.js';
import type { SessionState } from '../session/state.js';
import type { AgentAdapter } from '../agents/types.js';
import { loadState, updateState, writePendingSideFile } from '../session/store.js';
import { transition, applyBookkeeping } from '../session/phase.js';
import { gitArgv } from '../git/argv.js';
import { changedBetween, differingFromCommit } from './head-diff.js';
import { readCommit } from '../store/tree.js';
import { prepareShadowStep } from '../store/shadow.js';
import { shadowBranchName } from '../checkpoint/shadow.js';
import { CARRY_FORWARD_SUBJECT } from '../checkpoint/messages.js';
import { checkpointIdsInFinalBlock } from '../checkpoint/trailers.js';
import { readIntent, removeIntent, type CommitIntent } from './intent.js';
import { viewWorkTree } from './worktree.js';
import { adapterFor, positionOf, promptsOf, redactedTranscript, readableTranscript } from './transcript.js';
import { condenseSession, pendingEntry } from './condense.js';
import { retryPendingCondensations } from './pending.js';
import { migrateIfMoved } from './migrate.js';
import { deleteShadowIfUnreferenced } from './shadow-gc.js';
import { fault } from './faults.js';
import { mark } from '../timing.js';
import { EntireError } from '../errors.js';
import { writeNotice, writeStderr } from '../stderr.js';
import { INTENT_MAX_AGE_MS, isSequencing, liveSessions } from './commit-message.js';
import { prepareNote } from '../links/note-writer.js';
import { linkHooklessCommits } from './hookless-commits.js';
import { noteSquashedIds, squashRecordPath } from '../links/squash.js';
import { existsSync } from 'node:fs';


function validIntent(ctx: HookContext, intent: CommitIntent, head: { message: string; parents: string[] }, beforeParents: string[] | null): boolean {
  if (!intent.id) return false;
  const age = ctx.now().getTime() - Date.parse(intent.created_at);
  if (!(age >= 0 && age < INTENT_MAX_AGE_MS)) return false;
  if (intent.worktree && intent.worktree !== ctx.repo.root) return false;
  if (!checkpointIdsInFinalBlock(head.message).includes(intent.id)) return false;
  if (intent.mode === 'new') return head.parents[0] === intent.head_before;
  if (ctx.head === intent.head_before || beforeParents === null) return false;
  return beforeParents.join(' ') === head.parents.join(' ');
}

export async function postCommit(ctx: HookContext): Promise<void> {
  if (!ctx.head) return;
  const argv = gitArgv();
  if (isSequencing(ctx, argv)) return;
  const head = await readCommit(ctx.repo, ctx.head);
  if (!head) return;
  mark('post-commit: head read');
  const intent = readIntent(ctx.repo.gitDir);
  const before = intent?.head_before ? await readCommit(ctx.repo, intent.head_before) : null;
  const headBefore = intent?.head_before || head.parents[0] || '';
  const condensed = new Set<string>();
  // one listing for the whole hook: later steps work from these states
  const listed = headBefore && headBefore !== ctx.head ? liveSessions(ctx).map((w) => w.state) : [];
  const after = new Map<string, SessionState>(listed.map((st) => [st.session_id, st]));

  if (intent && validIntent(ctx, intent, head, before ? before.parents : null)) {
    const id = intent.id!;
    // what may remain uncommitted: the intent's sessions' files (status of those paths only)
    const watched = new Set<string>();
    for (const st of listed) if (st.session_id in intent.sessions) for (const f of st.files_touched ?? []) watched.add(f);
    for (const files of Object.values(intent.sessions)) for (const f of files) watched.add(f);
    const scope = listed.length > 0 ? [...watched] : undefined;
    const intentFiles = [...new Set(Object.values(intent.sessions).flat())];
    // a handful of paths: compared through the object reader, without spawning git
    const [changed, differing] = await Promise.all([
      changedBetween(ctx.repo, head.parents[0] ?? null, ctx.head, intentFiles),
      scope
        ? differingFromCommit(ctx.repo, ctx.head, scope)
        : watched.size > 0
          ? viewWorkTree(ctx.repo).then((v) => v.differing)
          : Promise.resolve(new Set<string>()),
    ]);
    const targets = Object.entries(intent.sessions)
      .map(([sid, files]) => [sid, files.filter((f) => changed.has(f)).sort()] as const)
      .filter(([, files]) => files.length > 0);
    mark('post-commit: changed paths and differing files');
    // the common case, one session and nothing else on the old shadow branch:
    // its deletion rides in the checkpoint's ref transaction (SPEC §6.5 step 5)
    const oldShadow = shadowBranchName(headBefore, ctx.repo.worktreeId);
    const soleOwner =
      targets.length === 1 &&
      listed.length > 0 &&
      headBefore !== ctx.head &&
      oldShadow !== shadowBranchName(ctx.head, ctx.repo.worktreeId) &&
      listed.every((st) => st.session_id === targets[0]![0] || st.base_commit !== headBefore) &&
      !listed.some((st) => (st.pending_condensations ?? []).some((p) => p.shadow_branch === oldShadow));
    for (const [sid, files] of targets) {
      condensed.add(sid);
      const saved = await condenseOne(ctx, sid, id, files, new Set(differing), scope ? watched : null, soleOwner ? `refs/heads/${oldShadow}` : undefined);
      if (saved) after.set(sid, saved);
    }
  } else if (intent) {
    ctx.log.debug('post-commit: intent does not match this commit', {});
  }
  mark('post-commit: condensed');
  fault('post-commit-before-intent-delete');
  if (intent) removeIntent(ctx.repo.gitDir);
  fault('post-commit-after-intent-delete');

  mark('post-commit: intent removed');
  // SPEC-2 §D.4: a `merge --squash` commit keeps the squashed commits' ids (recorded only then)
  if (existsSync(squashRecordPath(ctx.repo.gitDir))) await noteSquashedIds(ctx, head);
  // 4. other sessions based on the previous HEAD follow HEAD
  if (headBefore && headBefore !== ctx.head) {
    // SPEC-2 §D.3: a session whose base is further back saw commits made without hooks
    for (const st of listed) {
      if (condensed.has(st.session_id) || !st.base_commit || st.base_commit === headBefore || st.base_commit === ctx.head) continue;
      try {
        const saved = await updateState(ctx.repo.commonDir, st.session_id, async (s) => (s ? await linkHooklessCommits(ctx, s) : null), { waitMs: 2000 });
        if (saved) after.set(st.session_id, saved);
      } catch (e) {
        ctx.log.warn('cannot link commits made without hooks', { session_id: st.session_id, error: e });
      }
    }
    for (const st of listed) {
      if (condensed.has(st.session_id) || st.base_commit !== headBefore) continue;
      try {
        const saved = await updateState(ctx.repo.commonDir, st.session_id, async (s) => (s ? await migrateIfMoved(ctx, s) : null), { waitMs: 2000 });
        if (saved) after.set(st.session_id, saved);
      } catch (e) {
        ctx.log.warn('could not move a session to the new HEAD', { session_id: st.session_id, error: e });
      }
    }
    mark('post-commit: others followed');
    // 5. the old shadow branch goes only when nothing names it
    fault('post-commit-before-shadow-delete');
    await deleteShadowIfUnreferenced(ctx, shadowBranchName(headBefore, ctx.repo.worktreeId), [...after.values()], { listed: true }).catch((e) =>
      ctx.log.warn('shadow cleanup failed', { error: e }),
    );
  }
}

async function condenseOne(
  ctx: HookContext,
  sid: string,
  id: string,
  files: string[],
  differing: Set<string>,
  scope: ReadonlySet<string> | null,
  dropShadowRef?: string,
): Promise<SessionState | null> {
  const head = ctx.head!;
  try {
    return await updateState(
      ctx.repo.commonDir,
      sid,
      async (loaded) => {
        if (!loaded) return null;
        let state = await retryPendingCondensations(ctx, loaded);
        // SPEC-2 §D.3: commits made without hooks since the session's base, before this one
        state = await linkHooklessCommits(ctx, state, files, (await readCommit(ctx.repo, head))?.parents[0] ?? null);
        const oldShadow = state.base_commit ? shadowBranchName(state.base_commit, ctx.repo.worktreeId) : '';
        const adapter = await adapterFor(state);
        // a transcript Entire fetches (an agent's export) is as old as the last turn end here; it is
        // not fetched inside git's commit (seconds: hooks never hold git up): the turn end finalizes
        // this checkpoint with the whole turn, as for any mid-turn commit
        const pos = positionOf(adapter, state.transcript_path, { root: ctx.repo.root, sessionId: sid });
        const r = transition(state.phase, 'GitCommit', { qualifies: true });
        applyBookkeeping(state, r, ctx.now());
        // what stays uncommitted: status of the files the listing did not ask about (the state changed since)
        const unknown = scope ? (state.files_touched ?? []).filter((p) => !scope.has(p)) : [];
        if (unknown.length > 0) for (const p of await differingFromCommit(ctx.repo, head, unknown)) differing.add(p);
        const remaining = (state.files_touched ?? []).filter((p) => differing.has(p)).sort();
        // The carry-forward step is built first and moved onto its branch after the checkpoint:
        // its objects go out in the checkpoint's pack (one pack, not two: file creations are
        // the slow part of this hook). It depends on HEAD, the files and the transcript only.
        const carry = remaining.length > 0 ? await prepareCarryForward(ctx, sid, adapter, state, remaining) : null;
        // the note (SPEC-2 §D.1) too: its objects go out in the checkpoint's pack, and its ref
        // moves in the checkpoint's ref transaction (both or neither)
        const note = await prepareNote(ctx, head, [id]);
        try {
          fault('post-commit-before-condense');
          // a pending retry above may still need the old branch: then keep it
          const drop = dropShadowRef && !(state.pending_condensations ?? []).length ? dropShadowRef : undefined;
          await condenseSession(ctx, { checkpointId: id, state, files, dropShadowRef: drop, alsoMove: note.ride ? [note.ride] : [] });
          fault('post-commit-after-condense');
          await note.commit();
          writeNotice(`[entire] Condensed session ${sid.slice(0, 8)}: ${id} (${state.checkpoint_count ?? 0} checkpoints)\n`);
        } catch (e) {
          const entry = pendingEntry({ checkpointId: id, commit: head, files, state, position: pos.position, shadowBranch: oldShadow, error: e, now: ctx.now() });
          state.pending_condensations = [...(state.pending_condensations ?? []).filter((p) => p.checkpoint_id !== id), entry];
          writeStderr(`[entire] Warning: checkpoint ${id} not written yet; will retry\n`);
          ctx.log.error('condense failed; recorded as pending', { session_id: sid, checkpoint_id: id, error: e });
        }
        // 3. bookkeeping, success or not
        state = { ...state };
        state.last_checkpoint_id = id;
        if (pos.position) state.checkpoint_transcript_start = pos.position;
        if (pos.lastIdentifier) state.transcript_identifier_at_start = pos.lastIdentifier;
        delete state.token_usage;
        delete state.prompt_attributions;
        if (remaining.length > 0) state.files_touched = remaining;
        else delete state.files_touched;
        state.base_commit = head;
        state.attribution_base_commit = head;
        if (state.phase === 'active') {
          // provisional: the Stop hook rewrites it with the full turn
          const ids = state.turn_checkpoint_ids ?? [];
          if (!ids.includes(id)) state.turn_checkpoint_ids = [...ids, id];
        }
        state.checkpoint_count = 0;
        if (carry) {
          fault('post-commit-before-carry-forward');
          mark('post-commit: carry-forward');
          try {
            const res = await carry.commit();
            state.checkpoint_count = res.commit ? 1 : 0;
            mark('post-commit: carried forward');
          } catch (e) {
            ctx.log.warn('carry-forward failed', { session_id: sid, error: e });
          }
        }
        fault('post-commit-before-state-save');
        return state;
      },
      { waitMs: 5000 },
    );
  } catch (e) {
    if (e instanceof EntireError && e.code === 'LOCK_TIMEOUT') {
      // the state is busy: leave a lock-free side file the next locked update merges.
      // The state read without the lock (writes are atomic renames) gives the
      // transcript range, step count and turn the checkpoint needs: a stub range
      // of [0, 0) would write an empty transcript, and no turn id no finalization
      const stub = { session_id: sid, checkpoint_count: 0, checkpoint_transcript_start: 0, turn_id: '' } as unknown as SessionState;
      let peek: SessionState | null = null;
      try {
        peek = loadState(ctx.repo.commonDir, sid)?.state ?? null;
      } catch {
        /* corrupt: the stub */
      }
      const pos = peek ? positionOf(await adapterFor(peek), peek.transcript_path, { root: ctx.repo.root, sessionId: sid }).position : 0;
      const shadowBranch = peek?.base_commit ? shadowBranchName(peek.base_commit, ctx.repo.worktreeId) : '';
      writePendingSideFile(ctx.repo.commonDir, sid, pendingEntry({ checkpointId: id, commit: head, files, state: peek ?? stub, position: pos, shadowBranch, error: e, now: ctx.now() }));
      writeStderr(`[entire] Warning: checkpoint ${id} not written yet; will retry\n`);
      ctx.log.error('session busy at post-commit; recorded a pending side file', { session_id: sid, checkpoint_id: id, error: e });
      return null;
    }
    throw e;
  }
}


/**
 * SPEC §6.5 step 4, built ahead: the step carrying the session's uncommitted
 * files onto the new HEAD's shadow branch, its objects held for the
 * checkpoint's pack. A failure here loses no work (the files stay in the
 * work tree and the next step takes them): it is logged, and there is no step.
 */
async function prepareCarryForward(
  ctx: HookContext,
  sid: string,
  adapter: AgentAdapter,
  state: SessionState,
  remaining: string[],
): Promise<{ commit(): Promise<{ commit: string | null }> } | null> {
  try {
    const path = state.transcript_path;
    const transcript = path && readableTranscript(adapter, path, ctx.repo.root) ? await redactedTranscript(ctx.repo.root, sid, adapter, path) : null;
    return await prepareShadowStep(ctx.repo, {
      baseCommit: ctx.head!,
      worktreeId: ctx.repo.worktreeId,
      sessionId: sid,
      paths: remaining,
      statusPaths: remaining, // F(s) comes from git status: never ignored files
      metadata: transcript
        ? { transcript, format: adapter.transcriptFormat(path!), prompts: await promptsOf(adapter, path!, { root: ctx.repo.root, sessionId: sid }), promptsRedacted: true }
        : null,
      subject: CARRY_FORWARD_SUBJECT,
    });
  } catch (e) {
    ctx.log.warn('carry-forward failed', { session_id: sid, error: e });
    return null;
  }
}
