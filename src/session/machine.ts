/**
 * The session machine (SPEC §5, SPEC-3 §F.2): `step(state, event, facts) → { state, effects }`.
 *
 * The one place that decides a session's phase and its bookkeeping (`phase`, `ended_at`,
 * `last_interaction_time`, `turn_id`, `first_prompt`, `turn_checkpoint_ids` of a condensed commit,
 * the §6.5 step 3 fields, `checkpoint_count`, stale `background_agents`). Pure: no I/O, no clock
 * (the time is a fact), no randomness (the new turn id is a fact), and the input state is never
 * changed: a new state is returned. The work a transition requires comes back as `effects`, plain
 * data, in the order the runner carries them out. An effect says everything it needs: the runner
 * must not re-derive it from `phase` (the returned state is already the next one, e.g. ACTIVE while
 * TurnStart's `retryPending` still finalizes the previous turn's checkpoints).
 *
 * Failures of an effect never undo the step (SPEC §5: "TurnEnd applies even if saving the step
 * failed"); the outcome of work that changes bookkeeping comes back as an event of its own
 * (`Condensed`, `StepWritten`).
 *
 * Compared with the Go tool (session/phase.go `Transition` + `ApplyTransition`,
 * strategy/session_state.go `TransitionAndLog`): no ACTIVE_COMMITTED (read as ACTIVE, §4.2), one
 * qualification rule for every phase, and the effects carry their arguments.
 *
 * ---------------------------------------------------------------------------------------------
 * Call sites that set phase or bookkeeping by hand today (issue 26 step 3), and the event each one
 * becomes. Wire them one by one; each wired site deletes its `transition`/`applyBookkeeping` call.
 *
 *  1. src/strategy/turn.ts turnStart, interrupted turn (`applyBookkeeping(state, transition('active',
 *     'TurnEnd'))` after recordStep, then finalizeTurn) → part of `TurnStart` (its first effects
 *     are recordStep{interrupted-turn} and finalize).
 *  2. src/strategy/turn.ts turnStart step 4 (`applyBookkeeping(…'TurnStart')`, `state.phase =
 *     'active'`, `state.turn_id = newTurnId()`, `last_interaction_time`, `first_prompt`,
 *     dropStaleBackgroundAgents) → `TurnStart` {turnId, prompt}.
 *  3. src/strategy/turn.ts freshState (`phase: 'idle'`, `last_interaction_time`) → stays the
 *     runner's creation of a state (newSessionState); the event that follows sets the rest.
 *  4. src/strategy/turn.ts turnEnd (`last_interaction_time`, `applyBookkeeping(…'TurnEnd')`,
 *     `if (wasActive) state.phase = 'idle'`) → `TurnEnd`.
 *  5. src/strategy/turn.ts sessionStart (`transition(…'SessionStart', {idleMs})`, WarnIdle log,
 *     applyBookkeeping, `last_interaction_time`, dropStaleBackgroundAgents) → `SessionStart`.
 *  6. src/strategy/turn.ts sessionEnd (`applyBookkeeping(…'SessionEnd')`, `last_interaction_time`)
 *     → `SessionEnd` {stateOnly}.
 *  7. src/strategy/post-commit.ts condenseOne (`transition(…'GitCommit', {qualifies: true})` +
 *     applyBookkeeping) → `GitCommit` {checkpointId, files} with facts.qualifies.
 *  8. src/strategy/post-commit.ts condenseOne step 3 (`last_checkpoint_id`,
 *     `checkpoint_transcript_start`, `transcript_identifier_at_start`, token_usage and
 *     prompt_attributions cleared, `files_touched` = remaining, base and attribution base = HEAD,
 *     `turn_checkpoint_ids` += id if ACTIVE, `checkpoint_count` = 0, the pending entry on failure)
 *     → `Condensed` {checkpointId, head, position, lastIdentifier, remaining, pending}; the
 *     carry-forward's success (`checkpoint_count = 1`) → `StepWritten`.
 *  9. src/strategy/post-commit.ts step 4 (other sessions: migrateIfMoved) → `GitCommit` with
 *     facts.qualifies false (effect migrate).
 * 10. src/strategy/hookless-commits.ts linkHooklessCommits (`last_checkpoint_id`,
 *     `turn_checkpoint_ids` += id if ACTIVE, transcript start, `checkpoint_count = 0`, token_usage,
 *     files_touched) → `Condensed` without `head` (the base does not move).
 * 11. src/strategy/stale-intent.ts (two sites: `turn_checkpoint_ids` += intent id if ACTIVE; the
 *     pending entry of an intent whose checkpoint could not be written) → `PendingWritten`
 *     {checkpointId} / `PendingFailed` {entry}.
 * 12. src/strategy/pending.ts retryPendingCondensations (`turn_checkpoint_ids` += id when ACTIVE
 *     and the entry is of the running turn; the entry dropped, or kept with attempts + 1) →
 *     `PendingWritten` {checkpointId, turnId} / `PendingFailed` {entry}.
 * 13. src/strategy/subagent.ts apply (`checkpoint_count + 1`, files_touched, base_commit,
 *     `last_interaction_time`) → `StepWritten` {filesTouched} + `SubagentActivity`.
 * 14. src/strategy/turn.ts recordStep (`checkpoint_count + 1`, files_touched) → `StepWritten`.
 * 15. src/commands/doctor.ts doRepairSession (`applyBookkeeping(s, transition('active',
 *     'TurnEnd'))`, `s.phase = 'idle'`, removeScratch pre-prompt, then retry and finalize) →
 *     `Repair`.
 * 16. an agent's `compaction: 'noop'` verb (its verbs.ts) → `Compaction` (optional: only touches
 *     `last_interaction_time`).
 * Untouched (read-only uses of phase): prepare-commit-msg, status, reset, clean, context, index,
 * prune, state.ts.
 */
import { liveBackgroundAgents, type PendingCondensation, type Phase, type SessionState } from './state.js';

/** No agent event for this long while ACTIVE: SessionStart warns, doctor ends the turn (SPEC §5, §8.4). */
export const STALE_ACTIVE_MS = 60 * 60 * 1000;

export type MachineEvent =
  /** §6.1: a prompt was submitted. `turnId`: the new turn's id (12 hex); `prompt`: the first prompt, already redacted and collapsed. */
  | { type: 'TurnStart'; turnId: string; prompt?: string }
  /** §6.2: the agent finished its turn. */
  | { type: 'TurnEnd' }
  /** §6.5: a commit was made; facts.qualifies says whether this session condenses into `checkpointId` with `files` (C(s)). */
  | { type: 'GitCommit'; checkpointId?: string; files?: readonly string[] }
  /**
   * §6.5 step 3 (and SPEC-2 §D.3, §6.5.6): a checkpoint of this session was written, or recorded as
   * `pending` when the write failed. `head`: the commit the session now stands on (absent: the
   * base does not move, e.g. a commit made without hooks behind HEAD, a recovered intent).
   * `remaining`: F(s) paths still differing from HEAD (absent: files_touched unchanged).
   */
  | {
      type: 'Condensed';
      checkpointId: string;
      head?: string;
      position?: number;
      lastIdentifier?: string;
      remaining?: readonly string[];
      pending?: PendingCondensation;
    }
  /**
   * A checkpoint written after its commit (§5 RP's retry of a pending condensation, §6.5 step 6's
   * recovered intent): its pending entry goes, and a checkpoint of the running turn joins
   * `turn_checkpoint_ids` (`turnId`: the turn it belongs to; absent = the running one).
   */
  | { type: 'PendingWritten'; checkpointId: string; turnId?: string }
  /** A checkpoint write failed (again): its pending entry is recorded, replacing an older one of the same id (P1). */
  | { type: 'PendingFailed'; entry: PendingCondensation }
  /** A step was written on the shadow branch (§6.2 step 3, §6.5 carry-forward, §6.8). `filesTouched`: the new F(s). */
  | { type: 'StepWritten'; filesTouched?: readonly string[] }
  /** §6.7 session-start on an existing state. */
  | { type: 'SessionStart' }
  /** §6.7 session-end. */
  | { type: 'SessionEnd' }
  /** SPEC-2 §C.2: the agent compacted its context. */
  | { type: 'Compaction' }
  /** §6.8: a subagent hook (pre-task, post-task, post-todo). */
  | { type: 'SubagentActivity' }
  /** §8.4 doctor --force: repair one session (stale-active → TurnEnd; pending work retried). */
  | { type: 'Repair' };

export type MachineEventType = MachineEvent['type'];

export interface Facts {
  /** The hook's time. */
  now: Date;
  /** HEAD's commit, null before the first commit (§6: hooks without HEAD skip the git work). Default: a commit exists. */
  head?: string | null;
  /** GitCommit: the session qualifies (C(s) ≠ ∅, §6.3/§6.5 step 1). */
  qualifies?: boolean;
  /** GitCommit: a rebase, cherry-pick or revert runs (§5's rebase guard; see phase.ts isRebaseInProgress). */
  rebaseInProgress?: boolean;
  /** SessionEnd: the agent kills this hook within seconds (some agents do): change the state only, leave work pending (SPEC-2 §C.0). */
  stateOnly?: boolean;
}

export type Effect =
  /** §5 RP: retry `pending_condensations`; then, if `finalize`, finalize `turn_checkpoint_ids` left from an earlier turn. */
  | { type: 'retryPending'; finalize: boolean }
  /** SPEC-2 §D.3: link commits made without our hooks since the base (before any migrate). */
  | { type: 'linkHookless' }
  /** §6.10: move the session to HEAD if its base differs (checked again by the runner: an earlier effect may have moved it). */
  | { type: 'migrate' }
  /** §6.2 steps 2–3: compute F(s) and write a step if the turn changed it (reports StepWritten). */
  | { type: 'recordStep'; reason: 'turn-end' | 'interrupted-turn' | 'open-turn-at-session-end' }
  /** §6.1 step 3: snapshot the work tree to `.entire/tmp/pre-prompt-<sid>.json`. */
  | { type: 'writePrePrompt' }
  /** §6.2 step 4: the turn's snapshot goes. */
  | { type: 'removePrePrompt' }
  /** §6.5 step 2: write this session's slot of `checkpointId` (provisional while ACTIVE: finalized at turn end); reports Condensed. */
  | { type: 'condense'; checkpointId: string; files: readonly string[]; provisional: boolean }
  /** §6.5 step 3: carry the uncommitted `files` forward as a step on HEAD's shadow branch (reports StepWritten). */
  | { type: 'carryForward'; files: readonly string[] }
  /** §6.6 FinalizeTurn: rewrite `turn_checkpoint_ids` with the full transcript. */
  | { type: 'finalize' }
  /** §6.7: session-start runs pruning (§4.3). */
  | { type: 'prune' }
  /** §6.1 step 4: ensure the metadata branch and reinstall git hooks lacking the marker. */
  | { type: 'ensureRepoSetup' }
  /** A line for the log (`stale-session`) or the user (`no-commits`: §6.2's "skipping checkpoint"). */
  | { type: 'warn'; code: 'stale-session' | 'no-commits' };

export type EffectType = Effect['type'];

export interface StepResult {
  state: SessionState;
  effects: Effect[];
}

/** Milliseconds since the session's last agent event (its start if none); Infinity if unreadable. */
export function idleMs(state: Pick<SessionState, 'last_interaction_time' | 'started_at'>, now: Date): number {
  const t = Date.parse(state.last_interaction_time || state.started_at);
  return Number.isNaN(t) ? Number.POSITIVE_INFINITY : now.getTime() - t;
}

/** ACTIVE with no agent event for over an hour (SPEC §5 SessionStart warning, §8.4 `stale-active`). */
export function isStaleActive(state: SessionState, now: Date): boolean {
  return state.phase === 'active' && idleMs(state, now) > STALE_ACTIVE_MS;
}

// ------------------------------------------------------------------------- bookkeeping helpers

function touched(s: SessionState, now: Date): SessionState {
  return { ...s, last_interaction_time: now.toISOString() };
}

function withPhase(s: SessionState, phase: Phase, now: Date): SessionState {
  const next: SessionState = { ...s, phase };
  if (phase === 'ended') {
    if (s.phase !== 'ended' || !s.ended_at) next.ended_at = now.toISOString();
  } else if (s.phase === 'ended' || next.ended_at !== undefined) {
    delete next.ended_at;
    // the Go tool's flag of a fully condensed ENDED session goes on reactivation, as in Go
    if (s.extra && 'fully_condensed' in s.extra) {
      const { fully_condensed: _drop, ...rest } = s.extra;
      next.extra = rest;
    }
  }
  return next;
}

/**
 * Background subagent records of a session that ended over an hour ago go (SPEC-2 §B.5). Judged on
 * the state *before* the step: once TurnStart/SessionStart has cleared `ended_at`, every record
 * looks live (today's turn.ts drops them after applyBookkeeping, so it never drops any).
 */
function withoutStaleBackground(next: SessionState, before: SessionState, now: Date): SessionState {
  if (!next.background_agents || liveBackgroundAgents(before, now).length > 0) return next;
  const { background_agents: _drop, ...rest } = next;
  return rest as SessionState;
}

function withFiles(s: SessionState, files: readonly string[] | undefined): SessionState {
  if (files === undefined) return s;
  const next: SessionState = { ...s };
  if (files.length > 0) next.files_touched = [...files];
  else delete next.files_touched;
  return next;
}

const hasHead = (facts: Facts): boolean => facts.head !== null;

// ------------------------------------------------------------------------- events

function turnStart(s: SessionState, ev: Extract<MachineEvent, { type: 'TurnStart' }>, facts: Facts): StepResult {
  const effects: Effect[] = [];
  // §6.1 step 0: the previous turn never reached its end: record it and finalize it as §6.2 would
  if (s.phase === 'active') effects.push({ type: 'recordStep', reason: 'interrupted-turn' }, { type: 'finalize' });
  if (hasHead(facts)) effects.push({ type: 'retryPending', finalize: true }, { type: 'linkHookless' }, { type: 'migrate' });
  effects.push({ type: 'writePrePrompt' });
  if (hasHead(facts)) effects.push({ type: 'ensureRepoSetup' });
  let next = touched(withPhase(s, 'active', facts.now), facts.now);
  next.turn_id = ev.turnId;
  if (!next.first_prompt && ev.prompt) next.first_prompt = ev.prompt;
  next = withoutStaleBackground(next, s, facts.now);
  return { state: next, effects };
}

function turnEnd(s: SessionState, facts: Facts): StepResult {
  // §6.2: the step, then TurnEnd (even after failures), FinalizeTurn; without commits only the phase
  const effects: Effect[] = hasHead(facts)
    ? [{ type: 'retryPending', finalize: false }, { type: 'recordStep', reason: 'turn-end' }, { type: 'finalize' }, { type: 'removePrePrompt' }]
    : [{ type: 'warn', code: 'no-commits' }, { type: 'removePrePrompt' }];
  const phase: Phase = s.phase === 'active' ? 'idle' : s.phase;
  return { state: touched(withPhase(s, phase, facts.now), facts.now), effects };
}

function gitCommit(s: SessionState, ev: Extract<MachineEvent, { type: 'GitCommit' }>, facts: Facts): StepResult {
  // §5: GitCommit never changes the phase, and does nothing during a rebase/cherry-pick/revert
  if (facts.rebaseInProgress) return { state: s, effects: [] };
  if (facts.qualifies && ev.checkpointId) {
    return {
      state: touched(s, facts.now),
      effects: [
        { type: 'retryPending', finalize: false },
        { type: 'linkHookless' },
        { type: 'condense', checkpointId: ev.checkpointId, files: [...(ev.files ?? [])], provisional: s.phase === 'active' },
      ],
    };
  }
  // §6.5 step 4: a session that does not condense follows HEAD
  return { state: s, effects: [{ type: 'migrate' }] };
}

function condensed(s: SessionState, ev: Extract<MachineEvent, { type: 'Condensed' }>): StepResult {
  let next: SessionState = { ...s, last_checkpoint_id: ev.checkpointId, checkpoint_count: 0 };
  if (ev.position) next.checkpoint_transcript_start = ev.position;
  if (ev.lastIdentifier) next.transcript_identifier_at_start = ev.lastIdentifier;
  delete next.token_usage;
  if (ev.head !== undefined) {
    delete next.prompt_attributions;
    next.base_commit = ev.head;
    next.attribution_base_commit = ev.head;
  }
  next = withFiles(next, ev.remaining);
  // a commit made mid-turn gets the full turn at turn end (§6.5 step 3, §6.6)
  if (s.phase === 'active') next = withTurnCheckpoint(next, ev.checkpointId);
  if (ev.pending) next = withPending(next, ev.checkpointId, ev.pending);
  const effects: Effect[] = ev.head !== undefined && ev.remaining && ev.remaining.length > 0 ? [{ type: 'carryForward', files: [...ev.remaining] }] : [];
  return { state: next, effects };
}

function withPending(s: SessionState, checkpointId: string, entry?: PendingCondensation): SessionState {
  const list = (s.pending_condensations ?? []).filter((p) => p.checkpoint_id !== checkpointId);
  if (entry) list.push(entry);
  const next: SessionState = { ...s };
  if (list.length > 0) next.pending_condensations = list;
  else delete next.pending_condensations;
  return next;
}

function withTurnCheckpoint(s: SessionState, checkpointId: string): SessionState {
  const ids = s.turn_checkpoint_ids ?? [];
  return ids.includes(checkpointId) ? s : { ...s, turn_checkpoint_ids: [...ids, checkpointId] };
}

function pendingWritten(s: SessionState, ev: Extract<MachineEvent, { type: 'PendingWritten' }>): StepResult {
  let next = withPending(s, ev.checkpointId);
  if (s.phase === 'active' && (ev.turnId === undefined || ev.turnId === s.turn_id)) next = withTurnCheckpoint(next, ev.checkpointId);
  return { state: next, effects: [] };
}

function stepWritten(s: SessionState, ev: Extract<MachineEvent, { type: 'StepWritten' }>): StepResult {
  const next = withFiles({ ...s, checkpoint_count: (s.checkpoint_count ?? 0) + 1 }, ev.filesTouched);
  return { state: next, effects: [] };
}

function sessionStart(s: SessionState, facts: Facts): StepResult {
  const effects: Effect[] = [];
  if (isStaleActive(s, facts.now)) effects.push({ type: 'warn', code: 'stale-session' });
  effects.push({ type: 'prune' });
  // §5: ENDED → IDLE (a resumed session); IDLE and ACTIVE stay (SPEC-2 §C.3: phase and turn unchanged)
  const phase: Phase = s.phase === 'ended' ? 'idle' : s.phase;
  return { state: withoutStaleBackground(touched(withPhase(s, phase, facts.now), facts.now), s, facts.now), effects };
}

function sessionEnd(s: SessionState, facts: Facts): StepResult {
  const effects: Effect[] = [];
  const work = hasHead(facts) && !facts.stateOnly;
  const wasActive = s.phase === 'active';
  // SPEC-2 §C.0: a session ending with its turn open first records that turn, as a turn start would
  if (wasActive && work) effects.push({ type: 'recordStep', reason: 'open-turn-at-session-end' }, { type: 'removePrePrompt' });
  if (work) {
    effects.push({ type: 'retryPending', finalize: false }, { type: 'linkHookless' });
    if (wasActive || (s.turn_checkpoint_ids ?? []).length > 0) effects.push({ type: 'finalize' });
  }
  return { state: touched(withPhase(s, 'ended', facts.now), facts.now), effects };
}

function repair(s: SessionState, facts: Facts): StepResult {
  // §8.4: `stale-active` → TurnEnd (doctor is no agent event: last_interaction_time stays)
  if (isStaleActive(s, facts.now)) {
    return { state: withPhase(s, 'idle', facts.now), effects: [{ type: 'removePrePrompt' }, { type: 'retryPending', finalize: true }] };
  }
  // a live turn keeps its checkpoints for its own turn end; pending writes are retried either way
  return { state: s, effects: [{ type: 'retryPending', finalize: s.phase !== 'active' }] };
}

/** SPEC §5 + §6: the next state and the effects to carry out, in order. Pure; `state` is not changed. */
export function step(state: SessionState, event: MachineEvent, facts: Facts): StepResult {
  switch (event.type) {
    case 'TurnStart':
      return turnStart(state, event, facts);
    case 'TurnEnd':
      return turnEnd(state, facts);
    case 'GitCommit':
      return gitCommit(state, event, facts);
    case 'Condensed':
      return condensed(state, event);
    case 'PendingWritten':
      return pendingWritten(state, event);
    case 'PendingFailed':
      return { state: withPending(state, event.entry.checkpoint_id, event.entry), effects: [] };
    case 'StepWritten':
      return stepWritten(state, event);
    case 'SessionStart':
      return sessionStart(state, facts);
    case 'SessionEnd':
      return sessionEnd(state, facts);
    case 'Compaction':
    case 'SubagentActivity':
      // §4.3: every agent hook event sets last_interaction_time; nothing else changes
      return { state: touched(state, facts.now), effects: [] };
    case 'Repair':
      return repair(state, facts);
  }
}
