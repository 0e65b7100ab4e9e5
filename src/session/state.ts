/**
 * Session state (SPEC §4.2): the Go tool's field names and key order, our
 * extensions (`pending_condensations`, `finalize_failures`), and unknown keys
 * kept and re-emitted after the known ones. Pure: no file I/O here.
 */
import { isLowerHex } from '../hex.js';
import { isAgentId, isTaskId, validateSessionId } from '../trust/ids.js';
import { isModelName } from '../trust/model.js';
import * as z from 'zod/mini';
import * as shape from '../shape.js';
import { shadowBranchName as shadowBranchOf } from '../checkpoint/shadow.js';
import { encodeJson } from '../checkpoint/json.js';
import { EntireError } from '../errors.js';
import type { TokenUsage as BaseTokenUsage } from '../checkpoint/metadata.js';

export type Phase = 'idle' | 'active' | 'ended';

/** Go's zero `time.Time`, written when a state has no `started_at` (Go cannot parse ""). */
export const GO_ZERO_TIME = '0001-01-01T00:00:00Z';

/** The metadata token usage (SPEC §2.5), plus unknown keys kept as read. */
export interface TokenUsage extends Omit<BaseTokenUsage, 'subagent_tokens'> {
  subagent_tokens?: TokenUsage;
  /** Unknown keys as read, re-emitted after the known ones. */
  extra?: Record<string, unknown>;
}

/** One checkpoint whose write failed or was deferred (SPEC §6.5 step 3). */
export interface PendingCondensation {
  checkpoint_id: string;
  commit: string;
  files: string[];
  transcript_start: number;
  transcript_end: number;
  step_count: number;
  turn_id: string;
  shadow_branch: string;
  attempts: number;
  last_error: string;
  first_failed_at: string;
  extra?: Record<string, unknown>;
}

/** Per-checkpoint finalization failure bookkeeping (SPEC §6.6). */
export interface FinalizeFailure {
  attempts: number;
  last_error: string;
  first_failed_at: string;
  extra?: Record<string, unknown>;
}

/** A subagent the agent started in the background (SPEC-2 §B.5), until its completion arrives. */
export interface BackgroundAgent {
  agent_id: string;
  tool_use_id: string;
  /** RFC 3339. */
  started_at: string;
  /** Lines of its transcript already accounted for (edit paths after it are candidates). */
  cursor: number;
}

/** A background record outlives its session's end by this much, then it is dropped (SPEC-2 §B.5). */
export const BACKGROUND_STALE_AFTER_END_MS = 60 * 60 * 1000;

/** The background records still worth reading: all, unless the session ended over an hour ago. */
export function liveBackgroundAgents(s: Pick<SessionState, 'background_agents' | 'phase' | 'ended_at'>, now: Date): BackgroundAgent[] {
  const list = s.background_agents ?? [];
  if (list.length === 0 || s.phase !== 'ended' || !s.ended_at) return list;
  const ended = Date.parse(s.ended_at);
  return Number.isFinite(ended) && now.getTime() - ended > BACKGROUND_STALE_AFTER_END_MS ? [] : list;
}

export interface SessionState {
  session_id: string;
  cli_version?: string;
  /** `""` before the first commit; always written. */
  base_commit: string;
  attribution_base_commit?: string;
  worktree_path?: string;
  worktree_id?: string;
  /** RFC 3339; always written. */
  started_at: string;
  ended_at?: string;
  phase: Phase;
  turn_id?: string;
  /** Checkpoints condensed during the current turn, pending finalization. */
  turn_checkpoint_ids?: string[];
  last_interaction_time?: string;
  /** Steps since the last condense; always written. */
  checkpoint_count: number;
  checkpoint_transcript_start?: number;
  untracked_files_at_start?: string[];
  files_touched?: string[];
  last_checkpoint_id?: string;
  agent_type?: string;
  token_usage?: TokenUsage;
  transcript_identifier_at_start?: string;
  transcript_path?: string;
  first_prompt?: string;
  /** Kept as read (Go's PromptAttribution objects); not produced by us. */
  prompt_attributions?: unknown[];
  pending_prompt_attribution?: unknown;
  pending_condensations?: PendingCondensation[];
  finalize_failures?: Record<string, FinalizeFailure>;
  /** SPEC-2 §B.5: background subagents still running. */
  background_agents?: BackgroundAgent[];
  /** SPEC-2 §F.1: the supervisor's task (`ENTIRE_TASK_ID`) this thread last worked on. */
  task_id?: string;
  /** SPEC-2 §F.1: turns this thread has run under `task_id` (its attempt count). */
  task_attempts?: number;
  /** Issue 16: the session's last known model (its transcript's, else its hook stdin's); the checkpoints' fallback. */
  model?: string;
  /** Unknown top-level keys in file order, re-emitted after the known ones. */
  extra?: Record<string, unknown>;
}

/** Known keys in SPEC §4.2 order. */
export const STATE_KEYS = [
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
  'turn_checkpoint_ids',
  'last_interaction_time',
  'checkpoint_count',
  'checkpoint_transcript_start',
  'untracked_files_at_start',
  'files_touched',
  'last_checkpoint_id',
  'agent_type',
  'token_usage',
  'transcript_identifier_at_start',
  'transcript_path',
  'first_prompt',
  'prompt_attributions',
  'pending_prompt_attribution',
  'pending_condensations',
  'finalize_failures',
  'background_agents',
  'task_id',
  'task_attempts',
  'model',
] as const;

/** Deprecated keys consumed on load and never written again. */
const DEPRECATED_KEYS = ['condensed_transcript_lines', 'transcript_lines_at_start'] as const;

const KNOWN_KEYS: ReadonlySet<string> = new Set<string>([...STATE_KEYS, ...DEPRECATED_KEYS]);

const TOKEN_KEYS = ['input_tokens', 'cache_creation_tokens', 'cache_read_tokens', 'output_tokens', 'api_call_count', 'subagent_tokens'] as const;
const PENDING_KEYS = [
  'checkpoint_id',
  'commit',
  'files',
  'transcript_start',
  'transcript_end',
  'step_count',
  'turn_id',
  'shadow_branch',
  'attempts',
  'last_error',
  'first_failed_at',
] as const;
const FAILURE_KEYS = ['attempts', 'last_error', 'first_failed_at'] as const;

/** SPEC-2 §A.2's validators, one per id kind, live in src/trust/ids.ts. */
export {
  isCheckpointId as isValidCheckpointId,
  sessionIdProblem,
  isSessionId as isValidSessionId,
  validateSessionId,
} from '../trust/ids.js';

// ---------------------------------------------------------------------------
// Schema (shape check of the raw JSON; normalisation is done by hand below)

// zod builds on first use only: the hand checks below (src/shape.ts) answer for valid files
function buildSchemas() {
  const zStr = z.nullish(z.string());
  const zInt = z.nullish(z.int());
  const zStrArr = z.nullish(z.array(z.string()));
  const TokenUsage = z.looseObject({
    input_tokens: zInt,
    cache_creation_tokens: zInt,
    cache_read_tokens: zInt,
    output_tokens: zInt,
    api_call_count: zInt,
    subagent_tokens: z.nullish(z.unknown()),
  });
  const Pending = z.looseObject({
    checkpoint_id: z.string(),
    commit: zStr,
    files: zStrArr,
    transcript_start: zInt,
    transcript_end: zInt,
    step_count: zInt,
    turn_id: zStr,
    shadow_branch: zStr,
    attempts: zInt,
    last_error: zStr,
    first_failed_at: zStr,
  });
  const Failure = z.looseObject({
    attempts: zInt,
    last_error: zStr,
    first_failed_at: zStr,
  });
  const Background = z.looseObject({ agent_id: z.string(), tool_use_id: z.string(), started_at: zStr, cursor: zInt });
  const State = z.looseObject({
    session_id: zStr,
    cli_version: zStr,
    base_commit: zStr,
    attribution_base_commit: zStr,
    worktree_path: zStr,
    worktree_id: zStr,
    started_at: zStr,
    ended_at: zStr,
    phase: zStr,
    turn_id: zStr,
    turn_checkpoint_ids: zStrArr,
    last_interaction_time: zStr,
    checkpoint_count: zInt,
    checkpoint_transcript_start: zInt,
    condensed_transcript_lines: zInt,
    transcript_lines_at_start: zInt,
    untracked_files_at_start: zStrArr,
    files_touched: zStrArr,
    last_checkpoint_id: zStr,
    agent_type: zStr,
    token_usage: z.nullish(z.unknown()),
    transcript_identifier_at_start: zStr,
    transcript_path: zStr,
    first_prompt: zStr,
    prompt_attributions: z.nullish(z.array(z.unknown())),
    pending_prompt_attribution: z.nullish(z.unknown()),
    pending_condensations: z.nullish(z.array(Pending)),
    finalize_failures: z.nullish(z.record(z.string(), Failure)),
    background_agents: z.nullish(z.array(Background)),
    task_id: zStr,
    task_attempts: zInt,
    model: z.nullish(z.unknown()),
  });
  return { TokenUsage, Pending, Failure, Background, State };
}
let schemas: ReturnType<typeof buildSchemas> | undefined;
/** The zod schemas: the authority on what a state file may hold (shape check of the raw JSON). */
export const stateSchemas = (): ReturnType<typeof buildSchemas> => (schemas ??= buildSchemas());

const sStr = shape.nullish(shape.str);
const sInt = shape.nullish(shape.int);
const sStrArr = shape.nullish(shape.arrayOf(shape.str));
/** Hand-written mirrors of the schemas (src/shape.ts). */
export const stateShapes = (() => {
  const TokenUsage = shape.looseObject({
    input_tokens: sInt,
    cache_creation_tokens: sInt,
    cache_read_tokens: sInt,
    output_tokens: sInt,
    api_call_count: sInt,
    subagent_tokens: shape.nullish(shape.unknown),
  });
  const Pending = shape.looseObject({
    checkpoint_id: shape.str,
    commit: sStr,
    files: sStrArr,
    transcript_start: sInt,
    transcript_end: sInt,
    step_count: sInt,
    turn_id: sStr,
    shadow_branch: sStr,
    attempts: sInt,
    last_error: sStr,
    first_failed_at: sStr,
  });
  const Failure = shape.looseObject({ attempts: sInt, last_error: sStr, first_failed_at: sStr });
  const Background = shape.looseObject({ agent_id: shape.str, tool_use_id: shape.str, started_at: sStr, cursor: sInt });
  const State = shape.looseObject({
    session_id: sStr,
    cli_version: sStr,
    base_commit: sStr,
    attribution_base_commit: sStr,
    worktree_path: sStr,
    worktree_id: sStr,
    started_at: sStr,
    ended_at: sStr,
    phase: sStr,
    turn_id: sStr,
    turn_checkpoint_ids: sStrArr,
    last_interaction_time: sStr,
    checkpoint_count: sInt,
    checkpoint_transcript_start: sInt,
    condensed_transcript_lines: sInt,
    transcript_lines_at_start: sInt,
    untracked_files_at_start: sStrArr,
    files_touched: sStrArr,
    last_checkpoint_id: sStr,
    agent_type: sStr,
    token_usage: shape.nullish(shape.unknown),
    transcript_identifier_at_start: sStr,
    transcript_path: sStr,
    first_prompt: sStr,
    prompt_attributions: shape.nullish(shape.arrayOf(shape.unknown)),
    pending_prompt_attribution: shape.nullish(shape.unknown),
    pending_condensations: shape.nullish(shape.arrayOf(Pending)),
    finalize_failures: shape.nullish(shape.recordOf(Failure)),
    background_agents: shape.nullish(shape.arrayOf(Background)),
    task_id: sStr,
    task_attempts: sInt,
    model: shape.nullish(shape.unknown),
  });
  return { TokenUsage, Pending, Failure, Background, State };
})();

type Schemas = ReturnType<typeof buildSchemas>;
const parseTokenUsage = (raw: unknown) => shape.parseWith<z.infer<Schemas['TokenUsage']>>(raw, stateShapes.TokenUsage, () => stateSchemas().TokenUsage);
const parsePending = (raw: unknown) => shape.parseWith<z.infer<Schemas['Pending']>>(raw, stateShapes.Pending, () => stateSchemas().Pending);
const parseStateShape = (raw: unknown) => shape.parseWith<z.infer<Schemas['State']>>(raw, stateShapes.State, () => stateSchemas().State);

function issuesText(error: { issues: ReadonlyArray<{ path: PropertyKey[]; message: string }> }): string {
  return error.issues
    .slice(0, 3)
    .map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`)
    .join('; ');
}

const isPlainObject = shape.isPlainObject;

function extrasOf(obj: Record<string, unknown>, known: ReadonlySet<string>): Record<string, unknown> | undefined {
  let out: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(obj)) {
    if (known.has(k)) continue;
    (out ??= {})[k] = v;
  }
  return out;
}

const TOKEN_KEY_SET: ReadonlySet<string> = new Set(TOKEN_KEYS);
const PENDING_KEY_SET: ReadonlySet<string> = new Set(PENDING_KEYS);
const FAILURE_KEY_SET: ReadonlySet<string> = new Set(FAILURE_KEYS);

function decodeTokenUsage(raw: unknown, path: string, depth = 0): TokenUsage {
  const r = parseTokenUsage(raw);
  if (!r.success || depth > 8) {
    throw new EntireError('CORRUPT_STATE', `${path}: ${r.success ? 'nested too deeply' : issuesText(r.error)}`);
  }
  const v = r.data;
  const out: TokenUsage = {
    input_tokens: v.input_tokens ?? 0,
    cache_creation_tokens: v.cache_creation_tokens ?? 0,
    cache_read_tokens: v.cache_read_tokens ?? 0,
    output_tokens: v.output_tokens ?? 0,
    api_call_count: v.api_call_count ?? 0,
  };
  if (v.subagent_tokens !== undefined && v.subagent_tokens !== null) {
    out.subagent_tokens = decodeTokenUsage(v.subagent_tokens, `${path}.subagent_tokens`, depth + 1);
  }
  const extra = extrasOf(raw as Record<string, unknown>, TOKEN_KEY_SET);
  if (extra) out.extra = extra;
  return out;
}

/** Decode one pending condensation (state entry or side file). Throws CORRUPT_STATE. */
export function decodePendingCondensation(raw: unknown, where = 'pending condensation'): PendingCondensation {
  const r = parsePending(raw);
  if (!r.success) throw new EntireError('CORRUPT_STATE', `${where}: ${issuesText(r.error)}`);
  const v = r.data;
  const out: PendingCondensation = {
    checkpoint_id: v.checkpoint_id,
    commit: v.commit ?? '',
    files: v.files ?? [],
    transcript_start: v.transcript_start ?? 0,
    transcript_end: v.transcript_end ?? 0,
    step_count: v.step_count ?? 0,
    turn_id: v.turn_id ?? '',
    shadow_branch: v.shadow_branch ?? '',
    attempts: v.attempts ?? 0,
    last_error: v.last_error ?? '',
    first_failed_at: v.first_failed_at ?? '',
  };
  const extra = extrasOf(raw as Record<string, unknown>, PENDING_KEY_SET);
  if (extra) out.extra = extra;
  return out;
}

/** Go phase normalisation: `active_committed`→active, unknown (`""`, `ACTIVE`, …)→idle. */
export function normalizePhase(raw: unknown): Phase {
  if (raw === 'active' || raw === 'idle' || raw === 'ended') return raw;
  if (raw === 'active_committed') return 'active';
  return 'idle';
}

export interface DecodedState {
  state: SessionState;
  /** Dropped or repaired data, for the caller to log (never printed here). */
  warnings: string[];
}

/**
 * Parse a state document. `where` (a path) is used in error messages;
 * `sessionId` fills a missing/empty `session_id` (the file name is the id).
 * Throws EntireError('CORRUPT_STATE') when the text is not a state.
 */
export function decodeState(text: string, opts: { where?: string; sessionId?: string } = {}): DecodedState {
  const where = opts.where ?? 'session state';
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new EntireError('CORRUPT_STATE', `corrupt session state ${where}: not valid JSON`, { cause: e, detail: { path: opts.where } });
  }
  return parseState(raw, opts);
}

/** Like decodeState, from an already-parsed value. */
export function parseState(raw: unknown, opts: { where?: string; sessionId?: string } = {}): DecodedState {
  const where = opts.where ?? 'session state';
  const corrupt = (msg: string, cause?: unknown): EntireError =>
    new EntireError('CORRUPT_STATE', `corrupt session state ${where}: ${msg}`, {
      ...(cause === undefined ? {} : { cause }),
      detail: { path: opts.where },
    });
  if (!isPlainObject(raw)) throw corrupt('not a JSON object');
  const r = parseStateShape(raw);
  if (!r.success) throw corrupt(issuesText(r.error));
  const v = r.data;
  const warnings: string[] = [];

  const sid = v.session_id || opts.sessionId || '';
  if (sid === '') throw corrupt('no session_id');

  const state: SessionState = {
    session_id: sid,
    base_commit: v.base_commit ?? '',
    started_at: v.started_at || GO_ZERO_TIME,
    phase: normalizePhase(v.phase ?? ''),
    checkpoint_count: v.checkpoint_count ?? 0,
  };
  if (v.cli_version) state.cli_version = v.cli_version;
  if (v.attribution_base_commit) state.attribution_base_commit = v.attribution_base_commit;
  if (v.worktree_path) state.worktree_path = v.worktree_path;
  if (v.worktree_id) state.worktree_id = v.worktree_id;
  if (v.ended_at) state.ended_at = v.ended_at;
  if (v.turn_id) state.turn_id = v.turn_id;
  if (v.turn_checkpoint_ids && v.turn_checkpoint_ids.length > 0) state.turn_checkpoint_ids = [...v.turn_checkpoint_ids];
  if (v.last_interaction_time) state.last_interaction_time = v.last_interaction_time;
  if (v.checkpoint_transcript_start) state.checkpoint_transcript_start = v.checkpoint_transcript_start;
  if (v.untracked_files_at_start && v.untracked_files_at_start.length > 0) state.untracked_files_at_start = [...v.untracked_files_at_start];
  if (v.files_touched && v.files_touched.length > 0) state.files_touched = [...v.files_touched];
  if (v.last_checkpoint_id) {
    const lc: string = v.last_checkpoint_id;
    if (lc.length === 12 && isLowerHex(lc)) {
      state.last_checkpoint_id = lc;
    } else {
      const shown = JSON.stringify(lc.slice(0, 40));
      warnings.push(`session ${sid}: invalid last_checkpoint_id ${shown} dropped`);
    }
  }
  if (v.agent_type) state.agent_type = v.agent_type;
  if (v.token_usage !== undefined && v.token_usage !== null) state.token_usage = decodeTokenUsage(v.token_usage, `${where}: token_usage`);
  if (v.transcript_identifier_at_start) state.transcript_identifier_at_start = v.transcript_identifier_at_start;
  if (v.transcript_path) state.transcript_path = v.transcript_path;
  if (v.first_prompt) state.first_prompt = v.first_prompt;
  if (v.prompt_attributions && v.prompt_attributions.length > 0) state.prompt_attributions = v.prompt_attributions;
  if (v.pending_prompt_attribution !== undefined && v.pending_prompt_attribution !== null) {
    state.pending_prompt_attribution = v.pending_prompt_attribution;
  }
  if (v.pending_condensations && v.pending_condensations.length > 0) {
    const raws = (raw['pending_condensations'] as unknown[]) ?? [];
    state.pending_condensations = raws.map((p, i) => decodePendingCondensation(p, `${where}: pending_condensations[${i}]`));
  }
  if (v.finalize_failures && Object.keys(v.finalize_failures).length > 0) {
    const rawMap = raw['finalize_failures'] as Record<string, unknown>;
    const out: Record<string, FinalizeFailure> = {};
    for (const [id, f] of Object.entries(v.finalize_failures)) {
      const entry: FinalizeFailure = { attempts: f.attempts ?? 0, last_error: f.last_error ?? '', first_failed_at: f.first_failed_at ?? '' };
      const extra = extrasOf(rawMap[id] as Record<string, unknown>, FAILURE_KEY_SET);
      if (extra) entry.extra = extra;
      out[id] = entry;
    }
    state.finalize_failures = out;
  }

  if (v.background_agents && v.background_agents.length > 0) {
    const kept: BackgroundAgent[] = [];
    for (const b of v.background_agents) {
      // the ids name a transcript file and a tree entry (SPEC-2 §A.2)
      if (!isAgentId(b.agent_id) || !isAgentId(b.tool_use_id)) {
        warnings.push(`session ${sid}: invalid background agent ${JSON.stringify(b.agent_id.slice(0, 40))} dropped`);
        continue;
      }
      kept.push({ agent_id: b.agent_id, tool_use_id: b.tool_use_id, started_at: b.started_at ?? '', cursor: Math.max(0, b.cursor ?? 0) });
    }
    if (kept.length > 0) state.background_agents = kept;
  }

  if (v.task_id) {
    if (isTaskId(v.task_id)) {
      state.task_id = v.task_id;
      if (v.task_attempts && v.task_attempts > 0) state.task_attempts = v.task_attempts;
    } else {
      warnings.push(`session ${sid}: invalid task_id ${JSON.stringify(String(v.task_id).slice(0, 40))} dropped`);
    }
  }

  if (v.model !== undefined && v.model !== null) {
    if (isModelName(v.model)) state.model = v.model;
    else warnings.push(`session ${sid}: invalid model ${JSON.stringify(String(v.model).slice(0, 40))} dropped`);
  }

  // Legacy: deprecated offsets fill a zero checkpoint_transcript_start, then are dropped.
  if (!state.checkpoint_transcript_start) {
    const legacy = (v.condensed_transcript_lines ?? 0) > 0 ? v.condensed_transcript_lines : v.transcript_lines_at_start;
    if (legacy && legacy > 0) state.checkpoint_transcript_start = legacy;
  }
  // Backfill attribution_base_commit from base_commit.
  if (!state.attribution_base_commit && state.base_commit) state.attribution_base_commit = state.base_commit;

  const extra = extrasOf(raw, KNOWN_KEYS);
  if (extra) state.extra = extra;
  return { state, warnings };
}

// ---------------------------------------------------------------------------
// Encoding

function putExtra(out: Record<string, unknown>, extra: Record<string, unknown> | undefined): void {
  if (!extra) return;
  for (const [k, v] of Object.entries(extra)) {
    if (!(k in out)) out[k] = v;
  }
}

function tokenUsageJson(t: TokenUsage): Record<string, unknown> {
  const out: Record<string, unknown> = {
    input_tokens: t.input_tokens,
    cache_creation_tokens: t.cache_creation_tokens,
    cache_read_tokens: t.cache_read_tokens,
    output_tokens: t.output_tokens,
    api_call_count: t.api_call_count,
  };
  if (t.subagent_tokens) out['subagent_tokens'] = tokenUsageJson(t.subagent_tokens);
  putExtra(out, t.extra);
  return out;
}

/** The JSON object of a pending condensation, keys in SPEC order (all written). */
export function pendingCondensationJson(p: PendingCondensation): Record<string, unknown> {
  const out: Record<string, unknown> = {
    checkpoint_id: p.checkpoint_id,
    commit: p.commit,
    files: p.files,
    transcript_start: p.transcript_start,
    transcript_end: p.transcript_end,
    step_count: p.step_count,
    turn_id: p.turn_id,
    shadow_branch: p.shadow_branch,
    attempts: p.attempts,
    last_error: p.last_error,
    first_failed_at: p.first_failed_at,
  };
  putExtra(out, p.extra);
  return out;
}

function nonEmptyArray<T>(a: T[] | undefined): a is T[] {
  return Array.isArray(a) && a.length > 0;
}

/** The state as an ordered plain object: known keys (omitempty per §4.2), then unknown keys. */
export function stateToJson(s: SessionState): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  out['session_id'] = s.session_id;
  if (s.cli_version) out['cli_version'] = s.cli_version;
  out['base_commit'] = s.base_commit ?? '';
  if (s.attribution_base_commit) out['attribution_base_commit'] = s.attribution_base_commit;
  if (s.worktree_path) out['worktree_path'] = s.worktree_path;
  if (s.worktree_id) out['worktree_id'] = s.worktree_id;
  out['started_at'] = s.started_at || GO_ZERO_TIME;
  if (s.ended_at) out['ended_at'] = s.ended_at;
  if (s.phase) out['phase'] = s.phase;
  if (s.turn_id) out['turn_id'] = s.turn_id;
  if (nonEmptyArray(s.turn_checkpoint_ids)) out['turn_checkpoint_ids'] = s.turn_checkpoint_ids;
  if (s.last_interaction_time) out['last_interaction_time'] = s.last_interaction_time;
  out['checkpoint_count'] = s.checkpoint_count ?? 0;
  if (s.checkpoint_transcript_start) out['checkpoint_transcript_start'] = s.checkpoint_transcript_start;
  if (nonEmptyArray(s.untracked_files_at_start)) out['untracked_files_at_start'] = s.untracked_files_at_start;
  if (nonEmptyArray(s.files_touched)) out['files_touched'] = s.files_touched;
  if (s.last_checkpoint_id) out['last_checkpoint_id'] = s.last_checkpoint_id;
  if (s.agent_type) out['agent_type'] = s.agent_type;
  if (s.token_usage) out['token_usage'] = tokenUsageJson(s.token_usage);
  if (s.transcript_identifier_at_start) out['transcript_identifier_at_start'] = s.transcript_identifier_at_start;
  if (s.transcript_path) out['transcript_path'] = s.transcript_path;
  if (s.first_prompt) out['first_prompt'] = s.first_prompt;
  if (nonEmptyArray(s.prompt_attributions)) out['prompt_attributions'] = s.prompt_attributions;
  if (s.pending_prompt_attribution !== undefined && s.pending_prompt_attribution !== null) {
    out['pending_prompt_attribution'] = s.pending_prompt_attribution;
  }
  if (nonEmptyArray(s.pending_condensations)) out['pending_condensations'] = s.pending_condensations.map(pendingCondensationJson);
  if (s.finalize_failures && Object.keys(s.finalize_failures).length > 0) {
    const ff: Record<string, unknown> = {};
    // Go encodes maps with sorted keys; do the same so output is deterministic.
    for (const id of Object.keys(s.finalize_failures).sort()) {
      const f = s.finalize_failures[id]!;
      const o: Record<string, unknown> = { attempts: f.attempts, last_error: f.last_error, first_failed_at: f.first_failed_at };
      putExtra(o, f.extra);
      ff[id] = o;
    }
    out['finalize_failures'] = ff;
  }
  if (nonEmptyArray(s.background_agents)) {
    out['background_agents'] = s.background_agents.map((b) => ({ agent_id: b.agent_id, tool_use_id: b.tool_use_id, started_at: b.started_at, cursor: b.cursor }));
  }
  if (s.task_id) {
    out['task_id'] = s.task_id;
    if (s.task_attempts) out['task_attempts'] = s.task_attempts;
  }
  if (isModelName(s.model)) out['model'] = s.model;
  if (s.extra) {
    for (const [k, v] of Object.entries(s.extra)) {
      if (!KNOWN_KEYS.has(k)) out[k] = v;
    }
  }
  return out;
}

/** The state file's bytes (SPEC §2.6: 2-space indent, Go escaping, trailing newline). */
export function encodeState(s: SessionState): string {
  return encodeJson(stateToJson(s));
}

// ---------------------------------------------------------------------------
// Helpers

/** A fresh state with the always-written fields set. */
export function newSessionState(init: Partial<SessionState> & { session_id: string; started_at: string }): SessionState {
  validateSessionId(init.session_id);
  return { base_commit: '', phase: 'idle', checkpoint_count: 0, ...init };
}

/** Pending finalizations or condensations (SPEC §4.3 "pending"). */
export function hasPendingWork(s: Pick<SessionState, 'turn_checkpoint_ids' | 'pending_condensations'>): boolean {
  return nonEmptyArray(s.turn_checkpoint_ids) || nonEmptyArray(s.pending_condensations);
}

/**
 * Whether git hooks must run for this session (SPEC §8.11): not ENDED, or
 * pending work, or uncommitted agent changes (`files_touched`) that a commit
 * could still condense, or a background subagent still writing (SPEC-2 §B.5).
 */
export function isLiveState(
  s: Pick<SessionState, 'phase' | 'turn_checkpoint_ids' | 'pending_condensations' | 'files_touched'> & Partial<Pick<SessionState, 'background_agents'>>,
): boolean {
  return s.phase !== 'ended' || hasPendingWork(s) || nonEmptyArray(s.files_touched) || nonEmptyArray(s.background_agents);
}

/** `entire/<base7>-<wt6>` (SPEC §2.1), for a state whose worktree id may be absent. */
export function shadowBranchName(baseCommit: string, worktreeId: string | undefined): string {
  return shadowBranchOf(baseCommit, worktreeId ?? '');
}
