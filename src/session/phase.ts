/**
 * The phase state machine (SPEC §5) as a pure function, plus the rebase
 * guard's fs check (kept separate: `transition` does no I/O).
 *
 * | from \ event | TurnStart                  | TurnEnd             | GitCommit                          | SessionStart          | SessionEnd                     |
 * |--------------|----------------------------|---------------------|------------------------------------|-----------------------|--------------------------------|
 * | idle         | →active; RP                | RP                  | Condense if Q, else Migrate        | stays                 | →ended (ended_at); RP          |
 * | active       | RP                         | →idle; FinalizeTurn | provisional Condense if Q, else Migrate | warn if idle > 1 h | →ended (ended_at); FinalizeTurn |
 * | ended        | →active, clear ended_at; RP| stays               | Condense if Q, else Migrate        | →idle, clear ended_at | stays                          |
 *
 * RetryPending always comes first. Agent events carry TouchInteraction
 * (SPEC §4.3); GitCommit only when it condenses. GitCommit never changes the
 * phase, and does nothing at all while a rebase/cherry-pick/revert runs.
 *
 * Superseded by src/session/machine.ts (SPEC-3 §F.2: one machine returning the next state and
 * its effects). `transition` and `applyBookkeeping` stay only until the flows are wired to
 * `step` (machine.ts lists the call sites); test/session/machine.test.ts keeps the phases of
 * both equal meanwhile. The rebase guard (`isRebaseInProgress`, `gitSubcommand`) stays here: it
 * reads the file system and feeds the machine's `rebaseInProgress` fact.
 */
import { isGitProgram } from '../git/argv.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Phase, SessionState } from './state.js';

export type PhaseEvent = 'TurnStart' | 'TurnEnd' | 'GitCommit' | 'SessionStart' | 'SessionEnd';

export type PhaseAction =
  /** Retry `pending_condensations`, then `turn_checkpoint_ids` (SPEC §5 RP). */
  | { type: 'RetryPending' }
  /** Condense into the commit's checkpoint (SPEC §6.5); provisional while ACTIVE (finalized at turn end). */
  | { type: 'Condense'; provisional: boolean }
  /** Move the shadow branch to the new HEAD (SPEC §6.10). */
  | { type: 'Migrate' }
  /** Finalize `turn_checkpoint_ids` with the full transcript (SPEC §6.6). */
  | { type: 'FinalizeTurn' }
  | { type: 'SetEndedAt' }
  | { type: 'ClearEndedAt' }
  /** SessionStart on a session ACTIVE without events for > 1 h. */
  | { type: 'WarnIdle' }
  /** Set `last_interaction_time` (SPEC §4.3). */
  | { type: 'TouchInteraction' };

export type PhaseActionType = PhaseAction['type'];

export interface TransitionContext {
  /** Q: the session qualifies for this commit (SPEC §6.3). GitCommit only. */
  qualifies?: boolean;
  /** A rebase, cherry-pick or revert is in progress (see isRebaseInProgress). GitCommit only. */
  rebaseInProgress?: boolean;
  /** Milliseconds since the last interaction (SessionStart's WarnIdle). */
  idleMs?: number;
}

export interface TransitionResult {
  phase: Phase;
  actions: PhaseAction[];
}

export const IDLE_WARN_MS = 60 * 60 * 1000;

const RP: PhaseAction = { type: 'RetryPending' };
const TOUCH: PhaseAction = { type: 'TouchInteraction' };

function gitCommit(phase: Phase, ctx: TransitionContext): TransitionResult {
  if (ctx.rebaseInProgress) return { phase, actions: [] };
  if (ctx.qualifies) {
    return { phase, actions: [{ type: 'Condense', provisional: phase === 'active' }, TOUCH] };
  }
  return { phase, actions: [{ type: 'Migrate' }] };
}

/** SPEC §5: the next phase and the actions to run, in order. Pure. */
export function transition(phase: Phase, event: PhaseEvent, ctx: TransitionContext = {}): TransitionResult {
  if (event === 'GitCommit') return gitCommit(phase, ctx);
  switch (phase) {
    case 'idle':
      switch (event) {
        case 'TurnStart':
          return { phase: 'active', actions: [RP, TOUCH] };
        case 'TurnEnd':
          return { phase: 'idle', actions: [RP, TOUCH] };
        case 'SessionStart':
          return { phase: 'idle', actions: [TOUCH] };
        case 'SessionEnd':
          return { phase: 'ended', actions: [RP, { type: 'SetEndedAt' }, TOUCH] };
      }
      break;
    case 'active':
      switch (event) {
        case 'TurnStart':
          return { phase: 'active', actions: [RP, TOUCH] };
        case 'TurnEnd':
          return { phase: 'idle', actions: [{ type: 'FinalizeTurn' }, TOUCH] };
        case 'SessionStart':
          return {
            phase: 'active',
            actions: (ctx.idleMs ?? 0) > IDLE_WARN_MS ? [{ type: 'WarnIdle' }, TOUCH] : [TOUCH],
          };
        case 'SessionEnd':
          return { phase: 'ended', actions: [{ type: 'FinalizeTurn' }, { type: 'SetEndedAt' }, TOUCH] };
      }
      break;
    case 'ended':
      switch (event) {
        case 'TurnStart':
          return { phase: 'active', actions: [RP, { type: 'ClearEndedAt' }, TOUCH] };
        case 'TurnEnd':
          return { phase: 'ended', actions: [TOUCH] };
        case 'SessionStart':
          return { phase: 'idle', actions: [{ type: 'ClearEndedAt' }, TOUCH] };
        case 'SessionEnd':
          return { phase: 'ended', actions: [TOUCH] };
      }
      break;
  }
  // Unreachable for valid inputs; an unknown phase behaves as idle (SPEC §4.2).
  return transition('idle', event, ctx);
}

/**
 * Apply the bookkeeping actions (phase, SetEndedAt, ClearEndedAt,
 * TouchInteraction) to a state in place; the work actions (RetryPending,
 * Condense, Migrate, FinalizeTurn, WarnIdle) are the caller's. ClearEndedAt
 * also drops the Go tool's `fully_condensed` flag, as Go does on reactivation.
 */
export function applyBookkeeping(state: SessionState, result: TransitionResult, now: Date = new Date()): SessionState {
  const ts = now.toISOString();
  state.phase = result.phase;
  for (const a of result.actions) {
    switch (a.type) {
      case 'SetEndedAt':
        state.ended_at = ts;
        break;
      case 'ClearEndedAt':
        delete state.ended_at;
        if (state.extra && 'fully_condensed' in state.extra) delete state.extra['fully_condensed'];
        break;
      case 'TouchInteraction':
        state.last_interaction_time = ts;
        break;
      default:
        break;
    }
  }
  return state;
}

const SEQUENCER_SUBCOMMANDS = new Set(['rebase', 'cherry-pick', 'revert']);
/** git global options that take a separate value argument. */
const OPTS_WITH_VALUE = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--super-prefix', '--exec-path', '--config-env', '--attr-source']);

/** git's subcommand from its argv (argv[0] may be `git` or a path to it). */
export function gitSubcommand(argv: readonly string[]): string | null {
  let i = 0;
  if (argv.length > 0 && isGitProgram(argv[0]!)) i = 1;
  for (; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') return argv[i + 1] ?? null;
    if (!a.startsWith('-')) return a;
    if (OPTS_WITH_VALUE.has(a)) i++;
  }
  return null;
}

/**
 * The rebase guard (SPEC §5): `rebase-merge/`, `rebase-apply/`,
 * `sequencer/`, `CHERRY_PICK_HEAD` or `REVERT_HEAD` in the per-worktree git
 * dir, or git's argv subcommand is rebase/cherry-pick/revert.
 */
export function isRebaseInProgress(gitDir: string, gitArgv?: readonly string[] | null): boolean {
  if (gitArgv) {
    const sub = gitSubcommand(gitArgv);
    if (sub !== null && SEQUENCER_SUBCOMMANDS.has(sub)) return true;
  }
  for (const name of ['rebase-merge', 'rebase-apply', 'sequencer', 'CHERRY_PICK_HEAD', 'REVERT_HEAD']) {
    if (existsSync(join(gitDir, name))) return true;
  }
  return false;
}
