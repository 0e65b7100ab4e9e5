/**
 * Agent turn flows: turn start (SPEC §6.1), turn end (§6.2), session start
 * and end (§6.7). Each runs under the session lock; the phase change of a
 * turn end happens even when saving the step failed.
 */
import type { HookContext } from './context.js';
import type { HookEvent, AgentAdapter } from '../agents/types.js';
import { liveBackgroundAgents, newSessionState, type SessionState } from '../session/state.js';
import { updateHeldState, updateState } from '../session/store.js';
import type { SessionLock } from '../session/lock.js';
import { sessionsForWorktree } from '../session/index.js';
import { transition, applyBookkeeping, IDLE_WARN_MS } from '../session/phase.js';
import { collapsePrompt } from '../checkpoint/prompts.js';
import { recordTaskTurn } from '../session/task.js';
import { isModelName } from '../redact/model-name.js';
import { layersForStore } from './context-layers.js';
import { stepSubject } from '../checkpoint/messages.js';
import { CLI_VERSION } from '../version.js';
import { writeShadowStep } from '../store/shadow.js';
import { ensureMetadataBranch } from '../store/branch.js';
import { readPrePrompt, writeScratch, prePromptName, removeScratch, type PrePrompt } from './scratch.js';
import { viewWorkTree, turnCandidates, filesTouched } from './worktree.js';
import { analyze, positionOf, promptsOf, redactedTranscript, noteStoredTranscript, refreshTranscript, shadowTranscript } from './transcript.js';
import { retryPending } from './pending.js';
import { finalizeTurn } from './finalize.js';
import { migrateIfMoved } from './migrate.js';
import { linkHooklessCommits } from './hookless-commits.js';
import { toMetaUsage } from './condense.js';
import { addUsage } from '../checkpoint/metadata.js';
import { fault } from './faults.js';
import { pruneSessions } from '../session/prune.js';
import { readRef } from '../git/refs.js';
import { mark } from '../timing.js';
import { randomHex } from '../random.js';
import { recoverInterruptedCommit } from './interrupted-commit.js';
import { takeDeferredEnd } from './deferred-session-end.js';

export function newTurnId(): string {
  return randomHex(6);
}

async function redactOne(s: string): Promise<string> {
  return (await import('../redact/index.js')).redactString(s);
}

/** Logs (once per hook) why an agent-named transcript path was not used (SPEC-2 §A.5). */
function refusedPath(ctx: HookContext): (why: string) => void {
  return (why) => ctx.log.warn('transcript path refused', { error: why });
}

function freshState(ctx: HookContext, event: HookEvent, adapter: AgentAdapter, transcriptPath: string): SessionState {
  const now = ctx.now().toISOString();
  const pos = positionOf(adapter, transcriptPath, { root: ctx.repo.root, sessionId: event.sessionId });
  const s = newSessionState({
    session_id: event.sessionId,
    started_at: now,
    base_commit: ctx.head ?? '',
    phase: 'idle',
    checkpoint_count: 0,
  });
  s.cli_version = CLI_VERSION;
  if (ctx.head) s.attribution_base_commit = ctx.head;
  s.worktree_path = ctx.repo.root;
  if (ctx.repo.worktreeId) s.worktree_id = ctx.repo.worktreeId;
  s.agent_type = adapter.displayName;
  s.transcript_path = transcriptPath;
  if (pos.position) s.checkpoint_transcript_start = pos.position;
  if (pos.lastIdentifier) s.transcript_identifier_at_start = pos.lastIdentifier;
  s.last_interaction_time = now;
  return s;
}

/**
 * Issue 16: the session's last known model, the fallback of checkpoints whose transcript range
 * names none. Hook stdin sets it at turn start, the turn's transcript at its end (and wins then).
 */
function rememberModel(s: SessionState, model: string | undefined): void {
  if (isModelName(model)) s.model = model;
}

/** Records of background subagents whose session ended over an hour ago go (SPEC-2 §B.5). */
function dropStaleBackgroundAgents(s: SessionState, now: Date): void {
  if (s.background_agents && liveBackgroundAgents(s, now).length === 0) delete s.background_agents;
}

/** Keep state in this worktree (§4.3: a moved worktree updates its path). */
function claimWorktree(ctx: HookContext, s: SessionState): void {
  s.worktree_path = ctx.repo.root;
  if (ctx.repo.worktreeId) s.worktree_id = ctx.repo.worktreeId;
  else delete s.worktree_id;
}

// --------------------------------------------------------------------- turn end work

interface StepOutcome {
  state: SessionState;
  wrote: boolean;
}

/**
 * SPEC §6.2 steps 2–3: compute F(s) and write a step when the turn changed it.
 * Throws only for unexpected failures; callers still apply TurnEnd.
 */
async function recordStep(ctx: HookContext, state: SessionState, adapter: AgentAdapter, pre: PrePrompt | null): Promise<StepOutcome> {
  if (!ctx.head) return { state, wrote: false };
  // tasks whose post-task only recorded them (an agent's child-session export is staged here, off the
  // agent's wait); before the turn's analysis, which reads the staged child exports' tokens
  if (adapter.subagentStepsAtTurnEnd) {
    await (await import('./subagent.js')).writeFinishedTasks(ctx, state, adapter);
    mark('stop: finished tasks written');
  }
  const path = state.transcript_path;
  const from = pre?.step_transcript_start ?? state.checkpoint_transcript_start ?? 0;
  const owner = { root: ctx.repo.root, sessionId: state.session_id };
  const turn = analyze(adapter, path, from, owner);
  mark('stop: turn analysed');
  const view = await viewWorkTree(ctx.repo);
  mark('stop: status');
  // SPEC-2 §B.5: what running background subagents edit counts too
  const background = state.background_agents?.length ? (await import('./background.js')).backgroundEditPaths(state, adapter, ctx.now()) : [];
  const editPaths = background.length > 0 ? [...(turn?.modifiedFiles ?? []), ...background] : (turn?.modifiedFiles ?? []);
  const candidates = turnCandidates({ root: ctx.repo.root, editPaths, before: pre ? pre.dirty_files : null, now: view });
  // SPEC-2 §D.3: the agent's own commits made without our hooks are linked first
  const linked = await linkHooklessCommits(ctx, state, candidates);
  const fs = filesTouched(linked.files_touched, candidates, view.differing);
  const turnPaths = [...candidates].filter((p) => view.differing.has(p));
  let next: SessionState = { ...linked };
  rememberModel(next, turn?.model);
  if (fs.length > 0) next.files_touched = fs;
  else delete next.files_touched;
  if (turnPaths.length === 0) {
    // the agent committed its work itself (linked above): the session follows HEAD now
    if (linked !== state) next = await migrateIfMoved(ctx, next);
    return { state: next, wrote: false };
  }
  // a base that moved under us is migrated first, so the step lands on HEAD's branch
  const migrated = await migrateIfMoved(ctx, next);
  const chunked = path ? await shadowTranscript(ctx.repo.root, state.session_id, adapter, path, ctx.repo.objectFormat).catch(() => null) : null;
  const transcript = !chunked && path ? await redactedTranscript(ctx.repo.root, state.session_id, adapter, path).catch(() => null) : null;
  mark('stop: transcript redacted');
  const prompts = chunked || transcript ? await promptsOf(adapter, path, owner) : [];
  mark('stop: prompts');
  // the chunked path leaves the redacted bytes in the cache: a second look is incremental (nothing new)
  const layerSource = transcript ?? (chunked && path ? await redactedTranscript(ctx.repo.root, state.session_id, adapter, path).catch(() => null) : null);
  const contextLayers = chunked || transcript ? layersForStore(ctx, { adapter, transcript: layerSource, format: adapter.transcriptFormat(path!), prompts, sessionId: state.session_id }) : null;
  fault('stop-before-step');
  const res = await writeShadowStep(ctx.repo, {
    baseCommit: migrated.base_commit || ctx.head,
    worktreeId: ctx.repo.worktreeId,
    sessionId: state.session_id,
    paths: turnPaths,
    statusPaths: view.status.map((e) => e.path),
    metadata:
      chunked || transcript
        ? { transcript, chunks: chunked?.chunks, format: adapter.transcriptFormat(path!), prompts, promptsRedacted: true, summary: turn?.summary || undefined, contextLayers }
        : null,
    subject: stepSubject(prompts[prompts.length - 1], adapter.displayName),
  });
  fault('stop-after-step');
  mark('stop: step written');
  // later hooks (finalize, condense) refer to these blobs instead of re-sending them
  chunked?.remember();
  if (transcript && path) {
    await noteStoredTranscript(ctx.repo.root, state.session_id, adapter, path, transcript, ctx.repo.objectFormat).catch(() => undefined);
  }
  if (res.changed) {
    migrated.checkpoint_count = (migrated.checkpoint_count ?? 0) + 1;
    const usage = toMetaUsage(turn?.tokenUsage);
    const sum = addUsage(migrated.token_usage as never, usage);
    if (sum) migrated.token_usage = sum as never;
  }
  return { state: migrated, wrote: res.changed };
}

// --------------------------------------------------------------------- turn start

export async function turnStart(ctx: HookContext, event: HookEvent, adapter: AgentAdapter): Promise<void> {
  const transcriptPath = adapter.resolveTranscriptPath(ctx.repo.root, event.sessionId, event.transcriptPath, refusedPath(ctx));
  await recoverInterruptedCommit(ctx);
  // SPEC-2 §B.5: a background subagent's completion is recorded before this turn's snapshot
  if (event.completes) await (await import('./background.js')).completeBackgroundAgent(ctx, event, adapter, transcriptPath);
  const view = ctx.head ? await viewWorkTree(ctx.repo) : null;
  let pre: PrePrompt | null = null;
  await updateState(ctx.repo.commonDir, event.sessionId, async (loaded) => {
    let state = loaded ?? freshState(ctx, event, adapter, transcriptPath);
    claimWorktree(ctx, state);
    state.transcript_path = transcriptPath;
    state.agent_type = state.agent_type || adapter.displayName;
    // 0. interrupted turn: record it and finalize its checkpoints as a Stop would
    if (loaded && state.phase === 'active') {
      const pre = readPrePrompt(ctx.repo.root, state.session_id);
      try {
        state = (await recordStep(ctx, state, adapter, pre)).state;
      } catch (e) {
        ctx.log.warn('could not record the interrupted turn', { session_id: state.session_id, error: e });
      }
      applyBookkeeping(state, transition('active', 'TurnEnd'), ctx.now());
      state = await finalizeTurn(ctx, state);
      fault('turn-start-after-interrupted-turn');
    }
    // 2. RetryPending, then Migrate (commits made without hooks are linked before their base moves on)
    state = await retryPending(ctx, state);
    state = await linkHooklessCommits(ctx, state);
    state = await migrateIfMoved(ctx, state);
    // 3. pre-prompt snapshot
    const pos = positionOf(adapter, transcriptPath, { root: ctx.repo.root, sessionId: state.session_id });
    pre = {
      session_id: state.session_id,
      timestamp: ctx.now().toISOString(),
      untracked_files: view?.untracked ?? [],
      step_transcript_start: pos.position,
      last_transcript_identifier: pos.lastIdentifier,
      dirty_files: view?.signatures ?? {},
    };
    // 4. TurnStart
    applyBookkeeping(state, transition(state.phase, 'TurnStart'), ctx.now());
    state.phase = 'active';
    state.turn_id = newTurnId();
    state.last_interaction_time = ctx.now().toISOString();
    if (!state.first_prompt && event.prompt) state.first_prompt = collapsePrompt(await redactOne(event.prompt), 100);
    rememberModel(state, event.model);
    const task = recordTaskTurn(state, process.env);
    if (task.refused !== undefined) ctx.log.warn('ENTIRE_TASK_ID ignored (not 1-128 of [A-Za-z0-9._:-])', { session_id: state.session_id, error: `value ${JSON.stringify(task.refused)}` });
    dropStaleBackgroundAgents(state, ctx.now());
    return state;
  });
  fault('turn-start-after-save');
  // the snapshot replaces the interrupted turn's only once that turn is saved:
  // written earlier, a crash before the save would hide the turn's changes
  if (pre) writeScratch(ctx.repo.root, prePromptName(event.sessionId), pre);
  fault('turn-start-after-pre-prompt');
  if (ctx.head) {
    await ensureMetadataBranch(ctx.repo).catch((e) => ctx.log.warn('cannot create the metadata branch', { error: e }));
    await reinstallHooksIfMissing(ctx);
  }
}

/**
 * SPEC §6.1 step 4: put back git hooks that lost our marker (e.g. a tool rewrote them), and
 * rewrite ours that are stale: of the older inlined style (so an upgrade of the package reaches
 * them from the next agent turn on) or recording a package that is gone.
 */
async function reinstallHooksIfMissing(ctx: HookContext): Promise<void> {
  try {
    const { hooksToReinstall } = await import('../install/git-hooks.js');
    if (hooksToReinstall({ hooksDir: ctx.repo.hooksDir, root: ctx.repo.root }).length === 0) return;
    const { installHooksForRepo } = await import('../install/enable.js');
    await installHooksForRepo(ctx.repo);
    ctx.log.info('reinstalled git hooks', {});
  } catch (e) {
    ctx.log.warn('cannot reinstall git hooks', { error: e });
  }
}

// --------------------------------------------------------------------- turn end

export interface TurnEndResult {
  skippedNoCommits: boolean;
  flushWaitMs: number;
  flushOutcome?: string;
}

/**
 * The turn end itself. `held`: the session lock, already held (a turn-end
 * worker that was handed it, src/strategy/turn-end-worker.ts); the giver
 * recovered any interrupted commit before locking. Without it the flush wait
 * runs outside the lock and the lock is taken here.
 */
export async function turnEnd(ctx: HookContext, event: HookEvent, adapter: AgentAdapter, startedAt: number, held?: SessionLock): Promise<TurnEndResult> {
  const transcriptPath = adapter.resolveTranscriptPath(ctx.repo.root, event.sessionId, event.transcriptPath, refusedPath(ctx));
  // an agent whose transcript Entire fetches (SPEC-2 §C.2): fetch the turn first
  await refreshTranscript(adapter, { root: ctx.repo.root, sessionId: event.sessionId }, transcriptPath, ctx.log);
  mark('stop: transcript refreshed');
  // 1. wait for the agent to flush the transcript
  const flush = transcriptPath
    ? await adapter
        .waitForTranscriptFlush(transcriptPath, { startedAt, ...(event.response !== undefined ? { response: event.response } : {}) })
        .catch(() => undefined)
    : undefined;
  mark('stop: flushed');
  if (!held) await recoverInterruptedCommit(ctx);
  let skipped = false;
  const update = async (loaded: SessionState | null): Promise<SessionState> => {
    let state = loaded ?? freshState(ctx, event, adapter, transcriptPath);
    if (!loaded) {
      // no turn start was ever saved (its hook did not run, or was killed): the
      // turn's edits are somewhere in the transcript, so the step reads all of it
      delete state.checkpoint_transcript_start;
      delete state.transcript_identifier_at_start;
    }
    claimWorktree(ctx, state);
    state.transcript_path = transcriptPath;
    state.last_interaction_time = ctx.now().toISOString();
    const pre = readPrePrompt(ctx.repo.root, state.session_id);
    if (!ctx.head) {
      skipped = true;
    } else {
      try {
        state = await retryPending(ctx, state, { finalize: false });
        state = (await recordStep(ctx, state, adapter, pre)).state;
      } catch (e) {
        ctx.log.error('saving the step failed', { session_id: state.session_id, error: e });
      }
    }
    // 4. TurnEnd always applies, even after failures
    const wasActive = state.phase === 'active';
    applyBookkeeping(state, transition(state.phase, 'TurnEnd'), ctx.now());
    if (wasActive) state.phase = 'idle';
    if (ctx.head) state = await finalizeTurn(ctx, state);
    fault('stop-before-save');
    return state;
  };
  if (held) {
    try {
      await updateHeldState(ctx.repo.commonDir, event.sessionId, update);
    } finally {
      held.release();
    }
  } else {
    await updateState(ctx.repo.commonDir, event.sessionId, update);
  }
  fault('stop-after-save');
  removeScratch(ctx.repo.root, prePromptName(event.sessionId));
  await mergeSmallPacksQuietly(ctx);
  return { skippedNoCommits: skipped, flushWaitMs: flush?.waitedMs ?? 0, ...(flush ? { flushOutcome: flush.outcome } : {}) };
}

/** Off the commit path: fold the small packs our writes left into one (src/git/pack-merge.ts). */
async function mergeSmallPacksQuietly(ctx: HookContext): Promise<void> {
  try {
    const { canWriteLoose } = await import('../git/odb.js');
    if (!canWriteLoose(ctx.repo)) return;
    const { mergeSmallPacks } = await import('../git/pack-merge.js');
    const r = mergeSmallPacks(ctx.repo);
    if (r.merged > 0) ctx.log.debug(`merged ${r.merged} small packs (${r.objects} objects)`);
  } catch (e) {
    ctx.log.warn('merging small packs failed', { error: e });
  }
}

// --------------------------------------------------------------------- session start / end

export async function sessionStart(ctx: HookContext, event: HookEvent, adapter: AgentAdapter): Promise<string> {
  let others = 0;
  for (const w of sessionsForWorktree(ctx.repo.commonDir, ctx.repo.root, ctx.repo.worktreeId).sessions) {
    if (w.state.session_id !== event.sessionId && w.state.phase !== 'ended') others++;
  }
  await updateState(ctx.repo.commonDir, event.sessionId, (loaded) => {
    // SPEC-2 §B.2: resuming a session this repository has no state for (e.g. restored by
    // `entire resume`) starts one at HEAD, from where its transcript is now
    if (!loaded && event.source === 'resume' && ctx.head) {
      const path = adapter.resolveTranscriptPath(ctx.repo.root, event.sessionId, event.transcriptPath, refusedPath(ctx));
      return freshState(ctx, event, adapter, path);
    }
    if (!loaded) return null;
    const idleMs = loaded.last_interaction_time ? ctx.now().getTime() - Date.parse(loaded.last_interaction_time) : 0;
    const r = transition(loaded.phase, 'SessionStart', { idleMs });
    if (r.actions.some((a) => a.type === 'WarnIdle') || (loaded.phase === 'active' && idleMs > IDLE_WARN_MS)) {
      ctx.log.warn('session was active without events for over an hour', { session_id: loaded.session_id });
    }
    applyBookkeeping(loaded, r, ctx.now());
    loaded.last_interaction_time = ctx.now().toISOString();
    rememberModel(loaded, event.model);
    dropStaleBackgroundAgents(loaded, ctx.now());
    return loaded;
  });
  try {
    await pruneSessions(ctx.repo.commonDir, ctx.now(), {
      isShadowBranchPresent: async (name: string) => (await readRef(ctx.repo, `refs/heads/${name}`)) !== null,
    });
  } catch (e) {
    ctx.log.warn('pruning failed', { error: e });
  }
  let msg = '\n\nPowered by Entire:\n  This conversation will be linked to your next commit.';
  if (others > 0) {
    msg += `\n  ${others} other active conversation(s) in this workspace will also be included.\n  Use 'entire status' for more information.`;
  }
  return msg;
}

/**
 * Session end. `held`: the session lock, already taken (a session end the turn-end worker
 * runs for a session that ended while it worked, deferred-session-end.ts); released here.
 */
export async function sessionEnd(ctx: HookContext, event: HookEvent, adapter?: AgentAdapter, held?: SessionLock): Promise<void> {
  // an agent that kills this hook within seconds gets the state change only (pending work stays
  // pending); a worker has no such limit
  const stateOnly = adapter?.sessionEndStateOnly === true && !held;
  const update = async (loaded: SessionState | null): Promise<SessionState | null> => {
    // this end is done now, whoever ran it
    takeDeferredEnd(ctx.repo.commonDir, event.sessionId);
    if (!loaded) return null;
    let state = loaded;
    const wasActive = state.phase === 'active';
    // SPEC-2 §C.0: a session that ends with its turn still open (no turn end since the last
    // turn start: `agent -p`, a killed turn) first gets that turn's step, as a turn start would
    if (wasActive && ctx.head && adapter && !stateOnly) {
      try {
        state = (await recordStep(ctx, state, adapter, readPrePrompt(ctx.repo.root, state.session_id))).state;
        removeScratch(ctx.repo.root, prePromptName(state.session_id));
      } catch (e) {
        ctx.log.warn('could not record the open turn at session end', { session_id: state.session_id, error: e });
      }
    }
    applyBookkeeping(state, transition(state.phase, 'SessionEnd'), ctx.now());
    state.last_interaction_time = ctx.now().toISOString();
    if (ctx.head && !stateOnly) {
      state = await retryPending(ctx, state, { finalize: false });
      state = await linkHooklessCommits(ctx, state);
      if (wasActive || (state.turn_checkpoint_ids ?? []).length > 0) state = await finalizeTurn(ctx, state);
    }
    return state;
  };
  if (held) {
    try {
      await updateHeldState(ctx.repo.commonDir, event.sessionId, update);
    } finally {
      held.release();
    }
  } else await updateState(ctx.repo.commonDir, event.sessionId, update);
  if (!stateOnly) await mergeSmallPacksQuietly(ctx);
}

