/**
 * The state file format, derived from one table (src/session/schema.ts), is stable under a
 * read/write cycle: for generated state documents (every known key, wrong types now and then,
 * legacy keys, unknown keys at every level), what we write after reading is read back to the same
 * state and written again byte for byte, with the known keys in SPEC §4.2 order before the
 * unknown ones. A document we refuse is refused with CORRUPT_STATE, never half-read.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { encodeState, parseState, pendingCondensationJson, decodePendingCondensation, STATE_KEYS } from '../../src/session/state.js';
import { isEntireError } from '../../src/errors.js';

/** Mostly `good`, now and then any JSON value (so the refusals are exercised too). */
const mostly = <T>(good: fc.Arbitrary<T>): fc.Arbitrary<unknown> => fc.oneof({ arbitrary: good, weight: 40 }, { arbitrary: anyJson, weight: 1 });
const leaf = fc.oneof(fc.constant(null), fc.boolean(), fc.string({ maxLength: 6 }), fc.integer({ min: -3, max: 20 }), fc.constant(1.5));
const anyJson: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 4 }), tie('value'), { maxKeys: 3 }),
  ),
})).value;
const str = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.constant(''),
  fc.constant(null),
  fc.constantFrom('aaaaaaaaaaaa', 'active', 'ended', 'active_committed', 'task-1', 'gpt-5', 'bad/id', 'ß"<\u2028'),
);
const int = fc.oneof(fc.integer({ min: -3, max: 40 }), fc.constant(0), fc.constant(null));
const strs = fc.oneof(fc.array(fc.string({ maxLength: 4 }), { maxLength: 3 }), fc.constant(null));
const unknownKeys = { zz_unknown: anyJson, 'x y': anyJson };
const tokens: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  t: fc.oneof(
    { depthSize: 'small' },
    {
      arbitrary: fc.record(
        {
          input_tokens: int,
          cache_creation_tokens: int,
          cache_read_tokens: int,
          output_tokens: int,
          api_call_count: int,
          subagent_tokens: fc.oneof(fc.constant(null), tie('t')),
          ...unknownKeys,
        },
        { requiredKeys: [] },
      ),
      weight: 30,
    },
    { arbitrary: anyJson, weight: 1 },
  ),
})).t;
const pending = mostly(
  fc.record(
    {
      checkpoint_id: fc.oneof(fc.string({ maxLength: 12 }), fc.constant('cccccccccccc')),
      commit: str,
      files: strs,
      transcript_start: int,
      transcript_end: int,
      step_count: int,
      turn_id: str,
      shadow_branch: str,
      attempts: int,
      last_error: str,
      first_failed_at: str,
      ...unknownKeys,
    },
    { requiredKeys: [] },
  ),
);
const failure = fc.record({ attempts: int, last_error: str, first_failed_at: str, ...unknownKeys }, { requiredKeys: [] });
const background = fc.record(
  {
    agent_id: fc.constantFrom('agent-1', 'bad/id', '', 'a_b-9'),
    tool_use_id: fc.constantFrom('toolu_1', 'x y'),
    started_at: str,
    cursor: int,
    zz_unknown: anyJson,
  },
  { requiredKeys: [] },
);
const TEXT_KEYS = [
  'session_id',
  'cli_version',
  'base_commit',
  'attribution_base_commit',
  'worktree_path',
  'worktree_id',
  'started_at',
  'ended_at',
  'phase',
  'turn_id',
  'last_interaction_time',
  'last_checkpoint_id',
  'agent_type',
  'transcript_identifier_at_start',
  'transcript_path',
  'first_prompt',
  'task_id',
  'model',
];
const INT_KEYS = ['checkpoint_count', 'checkpoint_transcript_start', 'condensed_transcript_lines', 'transcript_lines_at_start', 'task_attempts'];
const stateDoc = fc.record(
  {
    ...Object.fromEntries(TEXT_KEYS.map((k) => [k, mostly(str)])),
    ...Object.fromEntries(INT_KEYS.map((k) => [k, mostly(int)])),
    turn_checkpoint_ids: strs,
    untracked_files_at_start: strs,
    files_touched: strs,
    token_usage: tokens,
    prompt_attributions: fc.oneof(fc.array(anyJson, { maxLength: 2 }), fc.constant(null)),
    pending_prompt_attribution: anyJson,
    pending_condensations: fc.oneof(fc.array(pending, { maxLength: 2 }), fc.constant(null)),
    finalize_failures: fc.oneof(fc.dictionary(fc.string({ maxLength: 3 }), failure, { maxKeys: 3 }), fc.constant(null)),
    background_agents: fc.oneof(fc.array(background, { maxLength: 3 }), fc.constant(null)),
    ...unknownKeys,
  },
  { requiredKeys: [] },
);

/** Through JSON text, as every document we read comes from a file. */
const viaJson = (v: unknown): unknown => JSON.parse(JSON.stringify(v) ?? 'null');

describe('state file round trip (one schema)', () => {
  it('encode(parse(x)) reads back to the same state and writes the same bytes', () => {
    let read = 0;
    let refused = 0;
    fc.assert(
      fc.property(stateDoc, fc.option(fc.constant('from-file-name')), (doc, sid) => {
        let first: ReturnType<typeof parseState>;
        try {
          first = parseState(viaJson(doc), sid === null ? {} : { sessionId: sid });
        } catch (e) {
          refused++;
          expect(isEntireError(e) && e.code).toBe('CORRUPT_STATE');
          return;
        }
        read++;
        const bytes = encodeState(first.state);
        const again = parseState(JSON.parse(bytes));
        expect(again.warnings).toEqual([]); // what we write holds nothing a reader drops
        expect(again.state).toEqual(first.state);
        expect(encodeState(again.state)).toBe(bytes);
        // known keys first, in SPEC §4.2 order; then the unknown ones
        const keys = Object.keys(JSON.parse(bytes) as object);
        const known = keys.filter((k) => (STATE_KEYS as readonly string[]).includes(k));
        expect(keys.slice(0, known.length)).toEqual(known);
        expect(known).toEqual(STATE_KEYS.filter((k) => known.includes(k)));
      }),
      { numRuns: 400 },
    );
    // the generator reaches both sides
    expect(read).toBeGreaterThan(100);
    expect(refused).toBeGreaterThan(5);
  });

  it('a pending condensation side file round-trips the same way', () => {
    fc.assert(
      fc.property(pending, (doc) => {
        let p;
        try {
          p = decodePendingCondensation(viaJson(doc));
        } catch (e) {
          expect(isEntireError(e) && e.code).toBe('CORRUPT_STATE');
          return;
        }
        const json = JSON.stringify(pendingCondensationJson(p));
        const again = decodePendingCondensation(JSON.parse(json));
        expect(again).toEqual(p);
        expect(JSON.stringify(pendingCondensationJson(again))).toBe(json);
      }),
      { numRuns: 300 },
    );
  });
});
