/**
 * The session machine (src/session/machine.ts, SPEC-3 §F.2): one row per (phase, event, facts) →
 * (next phase, effects), taken from SPEC §5's phase table and the flow tables of §6 (cited per
 * group), then the bookkeeping each event owns, and properties over random event sequences.
 * Pure: no git, no files.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { step, STALE_ACTIVE_MS, type Effect, type Facts, type MachineEvent } from '../../src/session/machine.js';
import { transition, type PhaseEvent } from '../../src/session/phase.js';
import { newSessionState, parseState, stateToJson, stateShapes, type PendingCondensation, type Phase, type SessionState } from '../../src/session/state.js';

const T0 = '2025-03-01T10:00:00.000Z';
const NOW = new Date('2025-03-01T10:10:00.000Z');
const LONG_AGO = new Date(NOW.getTime() - 2 * STALE_ACTIVE_MS).toISOString();
const HEAD = 'b'.repeat(40);
const CP = 'a1b2c3d4e5f6';
const TURN = '0123456789ab';

function state(phase: Phase, extra: Partial<SessionState> = {}): SessionState {
  const s = newSessionState({ session_id: 'sess-1', started_at: T0, base_commit: 'a'.repeat(40), phase, last_interaction_time: T0 });
  if (phase === 'ended') s.ended_at = T0;
  return { ...s, ...extra };
}

/** An effect as a short word: its type and the argument that tells rows apart. */
function fx(e: Effect): string {
  switch (e.type) {
    case 'retryPending':
      return e.finalize ? 'retryPending+finalize' : 'retryPending';
    case 'recordStep':
      return `recordStep:${e.reason}`;
    case 'condense':
      return e.provisional ? 'condense:provisional' : 'condense';
    case 'warn':
      return `warn:${e.code}`;
    default:
      return e.type;
  }
}

function pendingEntry(attempts: number, id = CP): PendingCondensation {
  return {
    checkpoint_id: id,
    commit: 'b'.repeat(40),
    files: ['a.ts'],
    transcript_start: 0,
    transcript_end: 5,
    step_count: 1,
    turn_id: TURN,
    shadow_branch: '',
    attempts,
    last_error: 'x',
    first_failed_at: T0,
  } as PendingCondensation;
}

type Row = [section: string, from: Phase, event: MachineEvent, facts: Partial<Facts>, stateExtra: Partial<SessionState>, to: Phase, effects: string[]];

const TS: MachineEvent = { type: 'TurnStart', turnId: TURN };
const TE: MachineEvent = { type: 'TurnEnd' };
const GC: MachineEvent = { type: 'GitCommit', checkpointId: CP, files: ['a.ts'] };
const SS: MachineEvent = { type: 'SessionStart' };
const SE: MachineEvent = { type: 'SessionEnd' };
const NO_HEAD = { head: null };
const STALE = { last_interaction_time: LONG_AGO };
const TURN_START_WORK = ['retryPending+finalize', 'linkHookless', 'migrate', 'writePrePrompt', 'ensureRepoSetup'];
const TURN_END_WORK = ['retryPending', 'recordStep:turn-end', 'finalize', 'removePrePrompt'];

const TABLE: Row[] = [
  // §5 TurnStart column + §6.1 (step 0 interrupted turn; 2 RP, Migrate; 3 pre-prompt; 4 TurnStart, hooks)
  ['§5/§6.1', 'idle', TS, {}, {}, 'active', TURN_START_WORK],
  ['§5/§6.1', 'active', TS, {}, {}, 'active', ['recordStep:interrupted-turn', 'finalize', ...TURN_START_WORK]],
  ['§5/§6.1', 'ended', TS, {}, {}, 'active', TURN_START_WORK],
  ['§5/§6.1', 'idle', TS, NO_HEAD, {}, 'active', ['writePrePrompt']],
  ['§5/§6.1', 'active', TS, NO_HEAD, {}, 'active', ['recordStep:interrupted-turn', 'finalize', 'writePrePrompt']],
  ['§5/§6.1', 'ended', TS, NO_HEAD, {}, 'active', ['writePrePrompt']],

  // §5 TurnEnd column + §6.2 (steps 2–3 the step, 4 TurnEnd even after failures, FinalizeTurn, pre-prompt deleted)
  ['§5/§6.2', 'idle', TE, {}, {}, 'idle', TURN_END_WORK],
  ['§5/§6.2', 'active', TE, {}, {}, 'idle', TURN_END_WORK],
  ['§5/§6.2', 'ended', TE, {}, {}, 'ended', TURN_END_WORK],
  ['§5/§6.2', 'idle', TE, NO_HEAD, {}, 'idle', ['warn:no-commits', 'removePrePrompt']],
  ['§5/§6.2', 'active', TE, NO_HEAD, {}, 'idle', ['warn:no-commits', 'removePrePrompt']],
  ['§5/§6.2', 'ended', TE, NO_HEAD, {}, 'ended', ['warn:no-commits', 'removePrePrompt']],

  // §5 GitCommit column + §6.5 (Condense if Q — provisional while ACTIVE — else Migrate; rebase guard)
  ['§5/§6.5', 'idle', GC, { qualifies: true }, {}, 'idle', ['retryPending', 'linkHookless', 'condense']],
  ['§5/§6.5', 'active', GC, { qualifies: true }, {}, 'active', ['retryPending', 'linkHookless', 'condense:provisional']],
  ['§5/§6.5', 'ended', GC, { qualifies: true }, {}, 'ended', ['retryPending', 'linkHookless', 'condense']],
  ['§5/§6.5', 'idle', GC, { qualifies: false }, {}, 'idle', ['migrate']],
  ['§5/§6.5', 'active', GC, { qualifies: false }, {}, 'active', ['migrate']],
  ['§5/§6.5', 'ended', GC, { qualifies: false }, {}, 'ended', ['migrate']],
  ['§5 rebase guard', 'idle', GC, { qualifies: true, rebaseInProgress: true }, {}, 'idle', []],
  ['§5 rebase guard', 'active', GC, { qualifies: true, rebaseInProgress: true }, {}, 'active', []],
  ['§5 rebase guard', 'ended', GC, { qualifies: false, rebaseInProgress: true }, {}, 'ended', []],

  // §6.5 step 3: the condensed session's bookkeeping; carry-forward when files remain
  ['§6.5.3', 'idle', { type: 'Condensed', checkpointId: CP, head: HEAD, remaining: ['b.ts'] }, {}, {}, 'idle', ['carryForward']],
  ['§6.5.3', 'active', { type: 'Condensed', checkpointId: CP, head: HEAD, remaining: [] }, {}, {}, 'active', []],
  ['§6.5.3', 'ended', { type: 'Condensed', checkpointId: CP, head: HEAD }, {}, {}, 'ended', []],
  ['SPEC-2 §D.3', 'active', { type: 'Condensed', checkpointId: CP, remaining: ['b.ts'] }, {}, {}, 'active', []],

  // §5 RP / §6.5 step 6: a checkpoint written after its commit, or its write failing (again)
  ['§5 RP', 'idle', { type: 'PendingWritten', checkpointId: CP }, {}, {}, 'idle', []],
  ['§5 RP', 'active', { type: 'PendingWritten', checkpointId: CP, turnId: TURN }, {}, {}, 'active', []],
  ['§5 RP', 'ended', { type: 'PendingWritten', checkpointId: CP }, {}, {}, 'ended', []],
  ['§6.5.3 P1', 'idle', { type: 'PendingFailed', entry: pendingEntry(1) }, {}, {}, 'idle', []],
  ['§6.5.3 P1', 'active', { type: 'PendingFailed', entry: pendingEntry(1) }, {}, {}, 'active', []],
  ['§6.5.3 P1', 'ended', { type: 'PendingFailed', entry: pendingEntry(1) }, {}, {}, 'ended', []],

  // §6.2 step 3 / §6.5 carry-forward / §6.8: a step written
  ['§6.2.3', 'idle', { type: 'StepWritten', filesTouched: ['a.ts'] }, {}, {}, 'idle', []],
  ['§6.2.3', 'active', { type: 'StepWritten' }, {}, {}, 'active', []],
  ['§6.2.3', 'ended', { type: 'StepWritten' }, {}, {}, 'ended', []],

  // §5 SessionStart column + §6.7 (warn if ACTIVE idle > 1 h; pruning)
  ['§5/§6.7', 'idle', SS, {}, {}, 'idle', ['prune']],
  ['§5/§6.7', 'idle', SS, {}, STALE, 'idle', ['prune']],
  ['§5/§6.7', 'active', SS, {}, {}, 'active', ['prune']],
  ['§5/§6.7', 'active', SS, {}, STALE, 'active', ['warn:stale-session', 'prune']],
  ['§5/§6.7', 'ended', SS, {}, {}, 'idle', ['prune']],

  // §5 SessionEnd column + §6.7 + SPEC-2 §C.0 (an open turn is recorded first; state only when the agent kills the hook)
  ['§5/§6.7', 'idle', SE, {}, {}, 'ended', ['retryPending', 'linkHookless']],
  ['§5/§6.7', 'idle', SE, {}, { turn_checkpoint_ids: [CP] }, 'ended', ['retryPending', 'linkHookless', 'finalize']],
  ['§5/§6.7', 'active', SE, {}, {}, 'ended', ['recordStep:open-turn-at-session-end', 'removePrePrompt', 'retryPending', 'linkHookless', 'finalize']],
  ['§5/§6.7', 'ended', SE, {}, {}, 'ended', ['retryPending', 'linkHookless']],
  ['SPEC-2 §C.0', 'active', SE, { stateOnly: true }, {}, 'ended', []],
  ['SPEC-2 §C.0', 'idle', SE, { stateOnly: true }, { turn_checkpoint_ids: [CP] }, 'ended', []],
  ['§6', 'active', SE, NO_HEAD, {}, 'ended', []],

  // SPEC-2 §C.2 compaction and §6.8 subagent hooks: agent events (§4.3), nothing else
  ['SPEC-2 §C.2', 'idle', { type: 'Compaction' }, {}, {}, 'idle', []],
  ['SPEC-2 §C.2', 'active', { type: 'Compaction' }, {}, {}, 'active', []],
  ['SPEC-2 §C.2', 'ended', { type: 'Compaction' }, {}, {}, 'ended', []],
  ['§6.8', 'idle', { type: 'SubagentActivity' }, {}, {}, 'idle', []],
  ['§6.8', 'active', { type: 'SubagentActivity' }, {}, {}, 'active', []],
  ['§6.8', 'ended', { type: 'SubagentActivity' }, {}, {}, 'ended', []],

  // §8.4 doctor --force: stale-active → TurnEnd; pending work retried
  ['§8.4', 'active', { type: 'Repair' }, {}, STALE, 'idle', ['removePrePrompt', 'retryPending+finalize']],
  ['§8.4', 'active', { type: 'Repair' }, {}, {}, 'active', ['retryPending']],
  ['§8.4', 'idle', { type: 'Repair' }, {}, STALE, 'idle', ['retryPending+finalize']],
  ['§8.4', 'ended', { type: 'Repair' }, {}, STALE, 'ended', ['retryPending+finalize']],
];

const run = (from: Phase, event: MachineEvent, facts: Partial<Facts> = {}, extra: Partial<SessionState> = {}) =>
  step(state(from, extra), event, { now: NOW, head: HEAD, ...facts });

describe('session machine table (SPEC §5, §6, §8.4; SPEC-2 §C, §D.3)', () => {
  it('has a row for every phase × event', () => {
    const cells = new Set(TABLE.map(([, from, ev]) => `${from}/${ev.type}`));
    expect(cells.size).toBe(3 * 12);
  });

  it.each(TABLE)('%s: %s × %j %j %j → %s %j', (_section, from, event, facts, extra, to, effects) => {
    const r = run(from, event, facts, extra);
    expect(r.state.phase).toBe(to);
    expect(r.effects.map(fx)).toEqual(effects);
  });
});

describe('the bookkeeping each event owns', () => {
  it('TurnStart: new turn id, first prompt only when empty, ended_at and Go fully_condensed cleared, interaction time set', () => {
    const s = run('ended', { type: 'TurnStart', turnId: TURN, prompt: 'fix it' }, {}, { extra: { fully_condensed: true, other: 1 } }).state;
    expect(s).toMatchObject({ phase: 'active', turn_id: TURN, first_prompt: 'fix it', last_interaction_time: NOW.toISOString() });
    expect(s.ended_at).toBeUndefined();
    expect(s.extra).toEqual({ other: 1 });
    expect(run('idle', { type: 'TurnStart', turnId: TURN, prompt: 'second' }, {}, { first_prompt: 'first' }).state.first_prompt).toBe('first');
  });

  it('TurnStart drops background subagents of a session that ended over an hour ago (SPEC-2 §B.5), keeps live ones', () => {
    const bg = [{ agent_id: 'a1', tool_use_id: 't1', started_at: T0, cursor: 0 }];
    expect(run('ended', TS, {}, { ended_at: LONG_AGO, background_agents: bg }).state.background_agents).toBeUndefined();
    expect(run('ended', TS, {}, { ended_at: T0, background_agents: bg }).state.background_agents).toEqual(bg);
  });

  it('SessionEnd sets ended_at once; a repeated SessionEnd keeps the first', () => {
    const once = run('active', SE).state;
    expect(once.ended_at).toBe(NOW.toISOString());
    const again = step(once, SE, { now: new Date(NOW.getTime() + 60_000), head: HEAD }).state;
    expect(again.ended_at).toBe(NOW.toISOString());
    expect(again.last_interaction_time).toBe(new Date(NOW.getTime() + 60_000).toISOString());
  });

  it('SessionStart on an ENDED session clears ended_at (a resumed session)', () => {
    const s = run('ended', SS).state;
    expect(s.phase).toBe('idle');
    expect(s.ended_at).toBeUndefined();
  });

  it('§4.3: agent events set last_interaction_time; a non-condensing commit, the rebase guard and doctor do not', () => {
    for (const ev of [TS, TE, SS, SE, { type: 'Compaction' }, { type: 'SubagentActivity' }] as MachineEvent[]) {
      expect(run('idle', ev).state.last_interaction_time).toBe(NOW.toISOString());
    }
    expect(run('idle', GC, { qualifies: true }).state.last_interaction_time).toBe(NOW.toISOString());
    expect(run('idle', GC, { qualifies: false }).state.last_interaction_time).toBe(T0);
    expect(run('idle', GC, { qualifies: true, rebaseInProgress: true }).state.last_interaction_time).toBe(T0);
    expect(run('active', { type: 'Repair' }, {}, STALE).state.last_interaction_time).toBe(LONG_AGO);
  });

  it('GitCommit condenses exactly the commit files into the intent id', () => {
    const r = run('active', GC, { qualifies: true });
    expect(r.effects[2]).toEqual({ type: 'condense', checkpointId: CP, files: ['a.ts'], provisional: true });
    expect(run('idle', { type: 'GitCommit' }, { qualifies: true }).effects.map(fx)).toEqual(['migrate']);
  });

  it('§6.5 step 3: Condensed moves the base, resets the range and counters, keeps the remaining files, records mid-turn ids', () => {
    const before = state('active', {
      checkpoint_count: 3,
      checkpoint_transcript_start: 10,
      token_usage: { input_tokens: 1, cache_creation_tokens: 0, cache_read_tokens: 0, output_tokens: 2, api_call_count: 1 },
      prompt_attributions: [{ x: 1 }],
      files_touched: ['a.ts', 'b.ts'],
      turn_checkpoint_ids: ['000000000000'],
    });
    const r = step(
      before,
      { type: 'Condensed', checkpointId: CP, head: HEAD, position: 42, lastIdentifier: 'u9', remaining: ['b.ts'] },
      { now: NOW, head: HEAD },
    );
    expect(r.state).toMatchObject({
      last_checkpoint_id: CP,
      checkpoint_count: 0,
      checkpoint_transcript_start: 42,
      transcript_identifier_at_start: 'u9',
      files_touched: ['b.ts'],
      base_commit: HEAD,
      attribution_base_commit: HEAD,
      turn_checkpoint_ids: ['000000000000', CP],
    });
    expect(r.state.token_usage).toBeUndefined();
    expect(r.state.prompt_attributions).toBeUndefined();
    expect(r.effects).toEqual([{ type: 'carryForward', files: ['b.ts'] }]);
    // the carry-forward's step makes checkpoint_count 1
    expect(step(r.state, { type: 'StepWritten' }, { now: NOW }).state.checkpoint_count).toBe(1);
    // idle: no finalization pending; nothing remaining: files_touched goes
    const idle = run('idle', { type: 'Condensed', checkpointId: CP, head: HEAD, remaining: [] }, {}, { files_touched: ['a.ts'] }).state;
    expect(idle.turn_checkpoint_ids).toBeUndefined();
    expect(idle.files_touched).toBeUndefined();
  });

  it('Condensed with a failed write keeps one pending entry per id (P1), and without head leaves the base', () => {
    const entry = (n: number) => pendingEntry(n);
    const s = run('idle', { type: 'Condensed', checkpointId: CP, pending: entry(1) }, {}, { pending_condensations: [entry(0)] }).state;
    expect(s.pending_condensations).toEqual([entry(1)]);
    expect(s.base_commit).toBe('a'.repeat(40));
  });

  it('PendingWritten drops the entry and joins the running turn only; PendingFailed replaces the entry of its id', () => {
    const other = pendingEntry(0, 'ffffffffffff');
    const pending = [pendingEntry(0), other];
    const mine = run('active', { type: 'PendingWritten', checkpointId: CP, turnId: TURN }, {}, { turn_id: TURN, pending_condensations: pending }).state;
    expect(mine.pending_condensations).toEqual([other]);
    expect(mine.turn_checkpoint_ids).toEqual([CP]);
    expect(
      run('active', { type: 'PendingWritten', checkpointId: CP, turnId: 'ffffffffffff' }, {}, { turn_id: TURN }).state.turn_checkpoint_ids,
    ).toBeUndefined();
    expect(run('idle', { type: 'PendingWritten', checkpointId: CP }, {}, { pending_condensations: [pendingEntry(0)] }).state).not.toHaveProperty(
      'pending_condensations',
    );
    expect(run('idle', { type: 'PendingWritten', checkpointId: CP }).state.turn_checkpoint_ids).toBeUndefined();
    expect(run('idle', { type: 'PendingFailed', entry: pendingEntry(2) }, {}, { pending_condensations: pending }).state.pending_condensations).toEqual([
      other,
      pendingEntry(2),
    ]);
  });

  it('StepWritten counts the step and sets F(s)', () => {
    const s = run('active', { type: 'StepWritten', filesTouched: ['x.ts'] }, {}, { checkpoint_count: 2 }).state;
    expect(s.checkpoint_count).toBe(3);
    expect(s.files_touched).toEqual(['x.ts']);
  });

  it('never changes the state it is given', () => {
    const before = state('active', { turn_checkpoint_ids: ['000000000000'], extra: { fully_condensed: true }, files_touched: ['a.ts'] });
    const copy = structuredClone(before);
    deepFreeze(before);
    for (const [, , ev, facts] of TABLE) step(before, ev, { now: NOW, head: HEAD, ...facts });
    expect(before).toEqual(copy);
  });
});

describe('agrees with phase.ts transition() on every phase of SPEC §5 (the old table stays until the flows are wired)', () => {
  const EVENTS: Record<PhaseEvent, MachineEvent> = { TurnStart: TS, TurnEnd: TE, GitCommit: GC, SessionStart: SS, SessionEnd: SE };
  it.each(['idle', 'active', 'ended'] as const)('%s', (from) => {
    for (const [name, ev] of Object.entries(EVENTS) as [PhaseEvent, MachineEvent][]) {
      for (const qualifies of [true, false]) {
        expect(run(from, ev, { qualifies }).state.phase, `${from} × ${name}`).toBe(transition(from, name, { qualifies }).phase);
      }
    }
  });
});

// ------------------------------------------------------------------------- properties

const eventArb: fc.Arbitrary<MachineEvent> = fc.oneof(
  fc.record({
    type: fc.constant('TurnStart' as const),
    turnId: fc.constantFrom(TURN, 'ffffffffffff'),
    prompt: fc.option(fc.constant('p'), { nil: undefined }),
  }),
  fc.constant(TE),
  fc.record({
    type: fc.constant('GitCommit' as const),
    checkpointId: fc.option(fc.constantFrom(CP, 'ffffffffffff'), { nil: undefined }),
    files: fc.constant(['a.ts']),
  }),
  fc.record({
    type: fc.constant('Condensed' as const),
    checkpointId: fc.constantFrom(CP, 'ffffffffffff'),
    head: fc.option(fc.constant(HEAD), { nil: undefined }),
    position: fc.option(fc.nat(100), { nil: undefined }),
    remaining: fc.option(fc.subarray(['a.ts', 'b.ts']), { nil: undefined }),
  }),
  fc.record({
    type: fc.constant('PendingWritten' as const),
    checkpointId: fc.constantFrom(CP, 'ffffffffffff'),
    turnId: fc.option(fc.constant(TURN), { nil: undefined }),
  }),
  fc.record({ type: fc.constant('PendingFailed' as const), entry: fc.constantFrom(pendingEntry(1), pendingEntry(2, 'ffffffffffff')) }),
  fc.record({ type: fc.constant('StepWritten' as const), filesTouched: fc.option(fc.subarray(['a.ts', 'b.ts']), { nil: undefined }) }),
  fc.constant(SS),
  fc.constant(SE),
  fc.constant<MachineEvent>({ type: 'Compaction' }),
  fc.constant<MachineEvent>({ type: 'SubagentActivity' }),
  fc.constant<MachineEvent>({ type: 'Repair' }),
);
const factsArb = fc.record({
  minutes: fc.integer({ min: 0, max: 180 }),
  head: fc.constantFrom<string | null>(HEAD, null),
  qualifies: fc.boolean(),
  rebaseInProgress: fc.boolean(),
  stateOnly: fc.boolean(),
});

describe('properties over any event sequence', () => {
  it('the state stays valid per the schema, ended_at iff ENDED, and ENDED is left only by TurnStart or SessionStart', () => {
    fc.assert(
      fc.property(fc.constantFrom<Phase>('idle', 'active', 'ended'), fc.array(fc.tuple(eventArb, factsArb), { maxLength: 25 }), (phase, events) => {
        let s = state(phase);
        let t = NOW.getTime();
        for (const [ev, f] of events) {
          t += f.minutes * 60_000;
          const { minutes: _m, ...facts } = f;
          const r = step(s, ev, { ...facts, now: new Date(t) });
          if (s.phase === 'ended' && ev.type !== 'TurnStart' && ev.type !== 'SessionStart') expect(r.state.phase).toBe('ended');
          if (ev.type === 'GitCommit') expect(r.state.phase).toBe(s.phase);
          expect(r.state.phase === 'ended').toBe(r.state.ended_at !== undefined);
          const json = stateToJson(r.state);
          expect(stateShapes.State(json)).toBe(true);
          expect(parseState(JSON.parse(JSON.stringify(json))).state.phase).toBe(r.state.phase);
          // RetryPending comes before any condense or finalize of the same step
          const types = r.effects.map((e) => e.type);
          const rp = types.indexOf('retryPending');
          if (rp >= 0) expect(types.slice(0, rp).filter((x) => x === 'condense')).toEqual([]);
          s = r.state;
        }
      }),
      { numRuns: 300 },
    );
  });

  it('turn_checkpoint_ids grow only by a written checkpoint of an ACTIVE session', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(eventArb, factsArb), { maxLength: 25 }), (events) => {
        let s = state('idle');
        for (const [ev, f] of events) {
          const { minutes: _m, ...facts } = f;
          const r = step(s, ev, { ...facts, now: NOW });
          const added = (r.state.turn_checkpoint_ids ?? []).filter((id) => !(s.turn_checkpoint_ids ?? []).includes(id));
          if (added.length > 0) {
            expect(['Condensed', 'PendingWritten']).toContain(ev.type);
            expect(s.phase).toBe('active');
          }
          s = r.state;
        }
      }),
    );
  });
});

function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object') {
    Object.freeze(o);
    for (const v of Object.values(o)) deepFreeze(v);
  }
  return o;
}
