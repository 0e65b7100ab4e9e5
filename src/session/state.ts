/**
 * Session state (SPEC §4.2): decoding and encoding of the state file and the helpers flows use.
 * The fields themselves (names, key order, types, defaults, checks) are declared once in
 * src/session/schema.ts. Pure: no file I/O here.
 */
import type * as z from 'zod/mini';
import * as shape from '../shape.js';
import { validateSessionId } from '../trust/ids.js';
import { shadowBranchName as shadowBranchOf } from '../checkpoint/shadow.js';
import { encodeJson } from '../go-json.js';
import { EntireError } from '../errors.js';
import { issuesText, parseAs, readContext } from './fields.js';
import {
  decodePendingFields,
  decodeStateFields,
  encodePendingFields,
  encodeStateFields,
  GO_ZERO_TIME,
  normalizePhase,
  STATE_KEYS,
  STATE_TYPES,
  type BackgroundAgent,
  type FinalizeFailure,
  type PendingCondensation,
  type Phase,
  type SessionStateFields,
  type TokenUsage,
} from './schema.js';

export { GO_ZERO_TIME, normalizePhase, STATE_KEYS };
export type { Phase, TokenUsage, PendingCondensation, FinalizeFailure, BackgroundAgent };

/** A background record outlives its session's end by this much, then it is dropped (SPEC-2 §B.5). */
export const BACKGROUND_STALE_AFTER_END_MS = 60 * 60 * 1000;

/** The background records still worth reading: all, unless the session ended over an hour ago. */
export function liveBackgroundAgents(s: Pick<SessionState, 'background_agents' | 'phase' | 'ended_at'>, now: Date): BackgroundAgent[] {
  const list = s.background_agents ?? [];
  if (list.length === 0 || s.phase !== 'ended' || !s.ended_at) return list;
  const ended = Date.parse(s.ended_at);
  return Number.isFinite(ended) && now.getTime() - ended > BACKGROUND_STALE_AFTER_END_MS ? [] : list;
}

/** The session state in memory: the fields of src/session/schema.ts's table. */
export interface SessionState extends SessionStateFields {}

/** SPEC-2 §A.2's validators, one per id kind, live in src/trust/ids.ts. */
export {
  isCheckpointId as isValidCheckpointId,
  sessionIdProblem,
  isSessionId as isValidSessionId,
  validateSessionId,
} from '../trust/ids.js';

// ---------------------------------------------------------------------------
// Shape check of the raw JSON, derived from the schema's tables

type Checks = { [K in keyof typeof STATE_TYPES]: shape.Check };
/** Hand-written checks mirroring the schemas (src/shape.ts): what hooks run, sparing zod's start-up. */
export const stateShapes: Checks = Object.fromEntries(Object.entries(STATE_TYPES).map(([k, t]) => [k, t.check])) as Checks;

type Schemas = { [K in keyof typeof STATE_TYPES]: z.ZodMiniType };
let schemas: Schemas | undefined;
/** The zod schemas: the authority on what a state file may hold (built on first use only). */
export const stateSchemas = (): Schemas => (schemas ??= Object.fromEntries(Object.entries(STATE_TYPES).map(([k, t]) => [k, t.zod()])) as Schemas);

// ---------------------------------------------------------------------------
// Decoding

/** Decode one pending condensation (state entry or side file). Throws CORRUPT_STATE. */
export function decodePendingCondensation(raw: unknown, where = 'pending condensation'): PendingCondensation {
  const r = parseAs<Record<string, unknown>>(STATE_TYPES.Pending, raw, () => stateSchemas().Pending);
  if (!r.success) throw new EntireError('CORRUPT_STATE', `${where}: ${issuesText(r.error)}`);
  return decodePendingFields(
    r.data,
    readContext(where, () => {}),
  );
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
  const corrupt = (msg: string): EntireError => new EntireError('CORRUPT_STATE', `corrupt session state ${where}: ${msg}`, { detail: { path: opts.where } });
  if (!shape.isPlainObject(raw)) throw corrupt('not a JSON object');
  const r = parseAs<Record<string, unknown>>(STATE_TYPES.State, raw, () => stateSchemas().State);
  if (!r.success) throw corrupt(issuesText(r.error));

  const sid = (r.data['session_id'] as string | null | undefined) || opts.sessionId || '';
  if (sid === '') throw corrupt('no session_id');
  const warnings: string[] = [];
  const state: SessionState = decodeStateFields(
    r.data,
    readContext(where, (what) => warnings.push(`session ${sid}: invalid ${what} dropped`)),
  );
  state.session_id = sid;
  return { state, warnings };
}

// ---------------------------------------------------------------------------
// Encoding

/** The JSON object of a pending condensation, keys in SPEC order (all written). */
export function pendingCondensationJson(p: PendingCondensation): Record<string, unknown> {
  return encodePendingFields(p);
}

/** The state as an ordered plain object: known keys (omitempty per §4.2), then unknown keys. */
export function stateToJson(s: SessionState): Record<string, unknown> {
  return encodeStateFields(s);
}

/** The state file's bytes (SPEC §2.6: 2-space indent, Go escaping, trailing newline). */
export function encodeState(s: SessionState): string {
  return encodeJson(stateToJson(s));
}

function nonEmptyArray<T>(a: T[] | undefined): a is T[] {
  return Array.isArray(a) && a.length > 0;
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
