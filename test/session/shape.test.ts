/**
 * The hand-written shape checks (src/shape.ts) that spare hooks zod's
 * start-up must give exactly zod's verdict: a value either passes both or
 * fails both. Generated inputs mix every JSON type into every field.
 */
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { stateSchemas, stateShapes } from '../../src/session/state.js';
import { SettingsSchema, settingsShape } from '../../src/settings/settings.js';

const leaf = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.string({ maxLength: 6 }),
  fc.integer(),
  fc.constantFrom(1.5, -0, 2 ** 53, -(2 ** 53), Number.MAX_SAFE_INTEGER, 1e300),
);
const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, fc.array(tie('value'), { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 4 }), tie('value'), { maxKeys: 3 })),
})).value;

/** Objects over the given keys whose values are sometimes well-typed, sometimes anything. */
function objectOver(keys: string[], good: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<unknown> {
  const field = (k: string) => fc.oneof(good[k] ?? json, good[k] ?? json, json);
  return fc.oneof(
    fc.record(Object.fromEntries(keys.map((k) => [k, field(k)])), { requiredKeys: [] }),
    fc.record(Object.fromEntries(keys.map((k) => [k, good[k] ?? json])), { requiredKeys: [] }),
    json,
  );
}

const strOrNull = fc.oneof(fc.string({ maxLength: 5 }), fc.constant(null));
const intOrNull = fc.oneof(fc.integer(), fc.constant(null));
const strArr = fc.oneof(fc.array(fc.string({ maxLength: 4 }), { maxLength: 3 }), fc.constant(null));
const pendingGood = {
  checkpoint_id: fc.string({ maxLength: 12 }),
  commit: strOrNull,
  files: strArr,
  transcript_start: intOrNull,
  transcript_end: intOrNull,
  step_count: intOrNull,
  turn_id: strOrNull,
  shadow_branch: strOrNull,
  attempts: intOrNull,
  last_error: strOrNull,
  first_failed_at: strOrNull,
};
const pending = objectOver(Object.keys(pendingGood), pendingGood);
const failureGood = { attempts: intOrNull, last_error: strOrNull, first_failed_at: strOrNull };
const failure = objectOver(Object.keys(failureGood), failureGood);
const stateStrKeys = ['session_id', 'cli_version', 'base_commit', 'attribution_base_commit', 'worktree_path', 'worktree_id', 'started_at', 'ended_at', 'phase', 'turn_id', 'last_interaction_time', 'last_checkpoint_id', 'agent_type', 'transcript_identifier_at_start', 'transcript_path', 'first_prompt'];
const stateIntKeys = ['checkpoint_count', 'checkpoint_transcript_start', 'condensed_transcript_lines', 'transcript_lines_at_start'];
const stateGood: Record<string, fc.Arbitrary<unknown>> = {
  ...Object.fromEntries(stateStrKeys.map((k) => [k, strOrNull])),
  ...Object.fromEntries(stateIntKeys.map((k) => [k, intOrNull])),
  turn_checkpoint_ids: strArr,
  untracked_files_at_start: strArr,
  files_touched: strArr,
  token_usage: json,
  prompt_attributions: fc.oneof(fc.array(json, { maxLength: 2 }), fc.constant(null)),
  pending_prompt_attribution: json,
  pending_condensations: fc.oneof(fc.array(pending, { maxLength: 2 }), fc.constant(null)),
  finalize_failures: fc.oneof(fc.dictionary(fc.string({ maxLength: 3 }), failure, { maxKeys: 2 }), fc.constant(null)),
};
const state = objectOver(Object.keys(stateGood), stateGood);
const tokenGood = { input_tokens: intOrNull, cache_creation_tokens: intOrNull, cache_read_tokens: intOrNull, output_tokens: intOrNull, api_call_count: intOrNull, subagent_tokens: json };
const token = objectOver(Object.keys(tokenGood), tokenGood);
const settingsGood = {
  strategy: strOrNull,
  enabled: fc.oneof(fc.boolean(), fc.constant(null)),
  local_dev: fc.oneof(fc.boolean(), fc.constant(null)),
  log_level: strOrNull,
  strategy_options: fc.oneof(fc.dictionary(fc.string({ maxLength: 3 }), json, { maxKeys: 2 }), fc.constant(null)),
  telemetry: fc.oneof(fc.boolean(), fc.constant(null)),
};
const settings = objectOver(Object.keys(settingsGood), settingsGood);

function agree(name: string, arb: fc.Arbitrary<unknown>, check: (v: unknown) => boolean, schema: { safeParse(v: unknown): { success: boolean } }): void {
  it(`${name}: the hand check and the zod schema agree`, () => {
    let passed = 0;
    fc.assert(
      fc.property(arb, (v) => {
        // through JSON, as every value we check comes from JSON.parse
        const value = JSON.parse(JSON.stringify(v) ?? 'null') as unknown;
        const verdict = check(value);
        if (verdict) passed++;
        expect(verdict).toBe(schema.safeParse(value).success);
      }),
      { numRuns: 1500 },
    );
    expect(passed).toBeGreaterThan(50); // the generator reaches valid values, not only invalid ones
  });
}

describe('shape checks mirror the zod schemas (src/shape.ts)', () => {
  agree('session state', state, stateShapes.State, stateSchemas().State);
  agree('pending condensation', pending, stateShapes.Pending, stateSchemas().Pending);
  agree('finalize failure', failure, stateShapes.Failure, stateSchemas().Failure);
  agree('token usage', token, stateShapes.TokenUsage, stateSchemas().TokenUsage);
  agree('settings', settings, settingsShape, SettingsSchema());
});
