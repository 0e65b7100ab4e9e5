/**
 * The session state file (SPEC §4.2), declared once (issue 26 step 2, SPEC-3 §F.2): the tables
 * below list every key in the Go tool's order with its JSON type, whether it is always written
 * and what a missing one reads as, and the checks a value must pass to be kept. The state's
 * type, its shape check (and zod twin), reader, writer and key order all come from them
 * (src/session/fields.ts); src/session/state.ts keeps the public names.
 *
 * Our extensions beside Go's keys: `pending_condensations`, `finalize_failures`,
 * `background_agents`, `task_id`, `task_attempts`, `model`. Unknown keys are kept as read and
 * written after the known ones (top level, token usage, pending entries, failures).
 */
import { isLowerHex } from '../hex.js';
import { isAgentId, isTaskId } from '../trust/ids.js';
import { isModelName } from '../redact/model-name.js';
import { EntireError } from '../errors.js';
import type { TokenUsage as BaseTokenUsage } from '../checkpoint/metadata.js';
import {
  custom,
  decodeRecord,
  encodeRecord,
  int,
  jsonList,
  jsonValue,
  legacy,
  listOf,
  mapOf,
  object,
  record,
  text,
  texts,
  json,
  type Fields,
  type ReadContext,
  type RecordSpec,
  type RecordValue,
  type Shape,
} from './fields.js';

export type Phase = 'idle' | 'active' | 'ended';

/** Go's zero `time.Time`, written when a state has no `started_at` (Go cannot parse ""). */
export const GO_ZERO_TIME = '0001-01-01T00:00:00Z';

/** Go phase normalisation: `active_committed`→active, unknown (`""`, `ACTIVE`, …)→idle. */
export function normalizePhase(raw: unknown): Phase {
  if (raw === 'active' || raw === 'idle' || raw === 'ended') return raw;
  if (raw === 'active_committed') return 'active';
  return 'idle';
}

/** The metadata token usage (SPEC §2.5), plus unknown keys kept as read. */
export interface TokenUsage extends Omit<BaseTokenUsage, 'subagent_tokens'> {
  subagent_tokens?: TokenUsage;
  /** Unknown keys as read, re-emitted after the known ones. */
  extra?: Record<string, unknown>;
}

const corrupt = (message: string): EntireError => new EntireError('CORRUPT_STATE', message);

const TOKEN_USAGE_FIELDS = {
  input_tokens: int({ always: 0 }),
  cache_creation_tokens: int({ always: 0 }),
  cache_read_tokens: int({ always: 0 }),
  output_tokens: int({ always: 0 }),
  api_call_count: int({ always: 0 }),
  // a subagent's usage, nested in its parent's (bounded: a file cannot make us recurse forever)
  subagent_tokens: object<TokenUsage, Fields>(() => TOKEN_USAGE, { maxDepth: 8, error: corrupt }),
} satisfies Fields;
// typed as any record: the table names itself (subagent_tokens), and TokenUsage above is its type
const TOKEN_USAGE: RecordSpec<Fields> = record(TOKEN_USAGE_FIELDS, { keepUnknown: true });

/** One checkpoint whose write failed or was deferred (SPEC §6.5 step 3); every key always written. */
const PENDING_FIELDS = {
  checkpoint_id: text({ always: '', required: true }),
  commit: text({ always: '' }),
  files: texts({ always: true }),
  transcript_start: int({ always: 0 }),
  transcript_end: int({ always: 0 }),
  step_count: int({ always: 0 }),
  turn_id: text({ always: '' }),
  shadow_branch: text({ always: '' }),
  attempts: int({ always: 0 }),
  last_error: text({ always: '' }),
  first_failed_at: text({ always: '' }),
} satisfies Fields;
export const PENDING_CONDENSATION = record(PENDING_FIELDS, { keepUnknown: true });
export type PendingCondensation = RecordValue<typeof PENDING_FIELDS, true>;

/** Per-checkpoint finalization failure bookkeeping (SPEC §6.6). */
const FAILURE_FIELDS = {
  attempts: int({ always: 0 }),
  last_error: text({ always: '' }),
  first_failed_at: text({ always: '' }),
} satisfies Fields;
const FINALIZE_FAILURE = record(FAILURE_FIELDS, { keepUnknown: true });
export type FinalizeFailure = RecordValue<typeof FAILURE_FIELDS, true>;

/** A subagent the agent started in the background (SPEC-2 §B.5), until its completion arrives. */
const BACKGROUND_FIELDS = {
  agent_id: text({ always: '', required: true }),
  tool_use_id: text({ always: '', required: true }),
  /** RFC 3339. */
  started_at: text({ always: '' }),
  /** Lines of its transcript already accounted for (edit paths after it are candidates). */
  cursor: int({ always: 0, normalize: (n) => Math.max(0, n) }),
} satisfies Fields;
const BACKGROUND_AGENT = record(BACKGROUND_FIELDS, { keepUnknown: false });
export type BackgroundAgent = RecordValue<typeof BACKGROUND_FIELDS, false>;

/** The session state's keys in SPEC §4.2 order. */
const STATE_FIELDS = {
  session_id: text({ always: '' }),
  cli_version: text(),
  /** `""` before the first commit; always written. */
  base_commit: text({ always: '' }),
  attribution_base_commit: text(),
  worktree_path: text(),
  worktree_id: text(),
  /** RFC 3339; always written (Go's zero time when unknown). */
  started_at: text({ always: GO_ZERO_TIME }),
  ended_at: text(),
  phase: custom<Phase, 'always'>({
    mode: 'always',
    type: json.nullish(json.str),
    decode: normalizePhase,
    encode: (p) => p,
    fallback: 'idle',
    empty: (v) => v === '',
  }),
  turn_id: text(),
  /** Checkpoints condensed during the current turn, pending finalization. */
  turn_checkpoint_ids: texts(),
  last_interaction_time: text(),
  /** Steps since the last condense; always written. */
  checkpoint_count: int({ always: 0 }),
  checkpoint_transcript_start: int(),
  // older files' names for checkpoint_transcript_start (see repairState)
  condensed_transcript_lines: legacy(json.int),
  transcript_lines_at_start: legacy(json.int),
  untracked_files_at_start: texts(),
  files_touched: texts(),
  last_checkpoint_id: text({ valid: (id) => id.length === 12 && isLowerHex(id) }),
  agent_type: text(),
  token_usage: object<TokenUsage, Fields>(() => TOKEN_USAGE, { maxDepth: 8, error: corrupt }),
  transcript_identifier_at_start: text(),
  transcript_path: text(),
  first_prompt: text(),
  /** Kept as read (Go's PromptAttribution objects); not produced by us. */
  prompt_attributions: jsonList(),
  pending_prompt_attribution: jsonValue(),
  pending_condensations: listOf<PendingCondensation, typeof PENDING_FIELDS>(PENDING_CONDENSATION),
  finalize_failures: mapOf<FinalizeFailure, typeof FAILURE_FIELDS>(FINALIZE_FAILURE),
  /** SPEC-2 §B.5: background subagents still running; their ids name a transcript file and a tree entry (SPEC-2 §A.2). */
  background_agents: listOf<BackgroundAgent, typeof BACKGROUND_FIELDS>(BACKGROUND_AGENT, {
    valid: (b) => isAgentId(b['agent_id']) && isAgentId(b['tool_use_id']),
    label: (b) => `background agent ${JSON.stringify(String(b['agent_id']).slice(0, 40))}`,
  }),
  /** SPEC-2 §F.1: the supervisor's task (`ENTIRE_TASK_ID`) this thread last worked on. */
  task_id: text({ valid: isTaskId }),
  /** SPEC-2 §F.1: turns this thread has run under `task_id` (its attempt count). */
  task_attempts: int({ keep: (n) => n > 0, requires: 'task_id' }),
  /** Issue 16: the session's last known model (its transcript's, else its hook stdin's); the checkpoints' fallback. */
  model: jsonValue<string>({ valid: (m) => isModelName(m), validOnWrite: true }),
} satisfies Fields;
export const SESSION_STATE = record(STATE_FIELDS, { keepUnknown: true });

export type SessionStateFields = Shape<typeof STATE_FIELDS> & {
  phase: Phase;
  /** Unknown top-level keys in file order, re-emitted after the known ones. */
  extra?: Record<string, unknown>;
};

/** Known keys in SPEC §4.2 order (the ones written). */
export const STATE_KEYS = SESSION_STATE.keys;

/** The JSON types of the state and of its parts: their hand checks and zod schemas. */
export const STATE_TYPES = {
  TokenUsage: TOKEN_USAGE.type,
  Pending: PENDING_CONDENSATION.type,
  Failure: FINALIZE_FAILURE.type,
  Background: BACKGROUND_AGENT.type,
  State: SESSION_STATE.type,
};

/**
 * The repairs of a just-read state: the deprecated offsets fill a zero checkpoint_transcript_start,
 * and attribution_base_commit is backfilled from base_commit.
 */
export function repairState(state: SessionStateFields, legacyValues: Record<string, unknown>): void {
  if (!state.checkpoint_transcript_start) {
    const condensed = (legacyValues['condensed_transcript_lines'] as number | undefined) ?? 0;
    const atStart = legacyValues['transcript_lines_at_start'] as number | undefined;
    const offset = condensed > 0 ? condensed : atStart;
    if (offset && offset > 0) state.checkpoint_transcript_start = offset;
  }
  if (!state.attribution_base_commit && state.base_commit) state.attribution_base_commit = state.base_commit;
}

/** Reads a state object that passed `STATE_TYPES.State`; warnings name what was dropped. */
export function decodeStateFields(obj: Record<string, unknown>, cx: ReadContext): SessionStateFields {
  const { value, legacy: legacyValues } = decodeRecord(SESSION_STATE, obj, cx);
  const state = value as SessionStateFields;
  repairState(state, legacyValues);
  return state;
}

export function encodeStateFields(s: SessionStateFields): Record<string, unknown> {
  return encodeRecord(SESSION_STATE, s as Record<string, unknown>);
}

export function decodePendingFields(obj: Record<string, unknown>, cx: ReadContext): PendingCondensation {
  return decodeRecord(PENDING_CONDENSATION, obj, cx).value as PendingCondensation;
}

export function encodePendingFields(p: PendingCondensation): Record<string, unknown> {
  return encodeRecord(PENDING_CONDENSATION, p as Record<string, unknown>);
}
