/**
 * SPEC §2.4/§2.5/§2.10: root and session `metadata.json`, with the Go key
 * order, and tolerant readers for every legacy shape the Go tool wrote.
 */
import { encodeJson } from '../go-json.js';
import { isCheckpointId } from './id.js';
import { isAgentId, isTaskId } from '../trust/ids.js';
import { isModelName, modelName } from '../redact/model-name.js';
import { deeperThan, limitDepth } from './accept.js';

function bounded(v: unknown): unknown {
  return deeperThan(v) ? limitDepth(v) : v;
}

export interface TokenUsage {
  input_tokens: number;
  cache_creation_tokens: number;
  cache_read_tokens: number;
  output_tokens: number;
  api_call_count: number;
  subagent_tokens?: TokenUsage;
}

export const ZERO_USAGE: Readonly<TokenUsage> = Object.freeze({
  input_tokens: 0,
  cache_creation_tokens: 0,
  cache_read_tokens: 0,
  output_tokens: 0,
  api_call_count: 0,
});

export function addUsage(a: TokenUsage | undefined, b: TokenUsage | undefined): TokenUsage | undefined {
  if (!a) return b ? { ...b } : undefined;
  if (!b) return { ...a };
  const out: TokenUsage = {
    input_tokens: a.input_tokens + b.input_tokens,
    cache_creation_tokens: a.cache_creation_tokens + b.cache_creation_tokens,
    cache_read_tokens: a.cache_read_tokens + b.cache_read_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    api_call_count: a.api_call_count + b.api_call_count,
  };
  const sub = addUsage(a.subagent_tokens, b.subagent_tokens);
  if (sub) out.subagent_tokens = sub;
  return out;
}

/** The known counters only (drops unknown keys); subagent usage kept when non-zero. */
export function copyUsage(u: TokenUsage | undefined): TokenUsage | undefined {
  if (!u) return undefined;
  const out: TokenUsage = {
    input_tokens: u.input_tokens,
    cache_creation_tokens: u.cache_creation_tokens,
    cache_read_tokens: u.cache_read_tokens,
    output_tokens: u.output_tokens,
    api_call_count: u.api_call_count,
  };
  const sub = copyUsage(u.subagent_tokens);
  if (sub && !isZeroUsage(sub)) out.subagent_tokens = sub;
  return out;
}

export function isZeroUsage(u: TokenUsage | undefined): boolean {
  return (
    !u ||
    (u.input_tokens === 0 &&
      u.cache_creation_tokens === 0 &&
      u.cache_read_tokens === 0 &&
      u.output_tokens === 0 &&
      u.api_call_count === 0 &&
      isZeroUsage(u.subagent_tokens))
  );
}

function usageOut(u: TokenUsage, withSub: boolean): Record<string, unknown> {
  const o: Record<string, unknown> = {
    input_tokens: u.input_tokens,
    cache_creation_tokens: u.cache_creation_tokens,
    cache_read_tokens: u.cache_read_tokens,
    output_tokens: u.output_tokens,
    api_call_count: u.api_call_count,
  };
  if (withSub && u.subagent_tokens && !isZeroUsage(u.subagent_tokens)) o['subagent_tokens'] = usageOut(u.subagent_tokens, true);
  return o;
}

export function parseUsage(v: unknown): TokenUsage | undefined {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  const n = (k: string): number => (typeof o[k] === 'number' && Number.isFinite(o[k]) ? (o[k] as number) : 0);
  const u: TokenUsage = {
    input_tokens: n('input_tokens'),
    cache_creation_tokens: n('cache_creation_tokens'),
    cache_read_tokens: n('cache_read_tokens'),
    output_tokens: n('output_tokens'),
    api_call_count: n('api_call_count'),
  };
  const sub = parseUsage(o['subagent_tokens']);
  if (sub) u.subagent_tokens = sub;
  return u;
}

// ---------------------------------------------------------------- session

export interface SessionMetadata {
  cli_version?: string;
  checkpoint_id: string;
  session_id: string;
  strategy: string;
  created_at: string;
  branch?: string;
  checkpoints_count: number;
  files_touched: string[] | null;
  agent?: string;
  /** SPEC-2 §F.1: the supervisor's task this session worked on (`ENTIRE_TASK_ID`). */
  task_id?: string;
  /** Issue 16: the model of the checkpoint's transcript range (else the session's last known); a valid `isModelName`. */
  model?: string;
  turn_id?: string;
  is_task?: boolean;
  tool_use_id?: string;
  transcript_identifier_at_start?: string;
  checkpoint_transcript_start?: number;
  transcript_lines_at_start?: number;
  token_usage?: TokenUsage;
  summary?: unknown;
  initial_attribution?: unknown;
  transcript_path?: string;
  /** Keys we do not know, kept verbatim after the known ones. */
  extra?: Record<string, unknown>;
}

const SESSION_KEYS = [
  'cli_version',
  'checkpoint_id',
  'session_id',
  'strategy',
  'created_at',
  'branch',
  'checkpoints_count',
  'files_touched',
  'agent',
  'task_id',
  'model',
  'turn_id',
  'is_task',
  'tool_use_id',
  'transcript_identifier_at_start',
  'checkpoint_transcript_start',
  'transcript_lines_at_start',
  'token_usage',
  'summary',
  'initial_attribution',
  'transcript_path',
] as const;

/** Legacy keys folded into known ones on read (and not re-emitted). */
const SESSION_LEGACY_KEYS = new Set(['steps_count', 'transcript_uuid_at_start']);

export function encodeSessionMetadata(m: SessionMetadata): string {
  const o: Record<string, unknown> = {};
  if (m.cli_version) o['cli_version'] = m.cli_version;
  o['checkpoint_id'] = m.checkpoint_id;
  o['session_id'] = m.session_id;
  o['strategy'] = m.strategy;
  o['created_at'] = m.created_at;
  if (m.branch) o['branch'] = m.branch;
  o['checkpoints_count'] = m.checkpoints_count;
  o['files_touched'] = m.files_touched && m.files_touched.length > 0 ? m.files_touched : null;
  if (m.agent) o['agent'] = m.agent;
  if (m.task_id) o['task_id'] = m.task_id;
  // the write choke point: an invalid name never reaches a checkpoint
  if (isModelName(m.model)) o['model'] = m.model;
  if (m.turn_id) o['turn_id'] = m.turn_id;
  if (m.is_task) o['is_task'] = true;
  if (m.tool_use_id) o['tool_use_id'] = m.tool_use_id;
  if (m.transcript_identifier_at_start) o['transcript_identifier_at_start'] = m.transcript_identifier_at_start;
  if (m.checkpoint_transcript_start) o['checkpoint_transcript_start'] = m.checkpoint_transcript_start;
  if (m.transcript_lines_at_start) o['transcript_lines_at_start'] = m.transcript_lines_at_start;
  if (m.token_usage && !isZeroUsage(m.token_usage)) o['token_usage'] = usageOut(m.token_usage, true);
  if (m.summary !== undefined && m.summary !== null && m.summary !== '') o['summary'] = m.summary;
  if (m.initial_attribution !== undefined && m.initial_attribution !== null) o['initial_attribution'] = m.initial_attribution;
  if (m.transcript_path) o['transcript_path'] = m.transcript_path;
  for (const [k, v] of Object.entries(m.extra ?? {})) if (!(k in o)) o[k] = v;
  return encodeJson(o);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}
function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}
function strList(v: unknown): string[] | null {
  if (!Array.isArray(v)) return null;
  const out = v.filter((x): x is string => typeof x === 'string');
  return out.length > 0 ? out : null;
}

/**
 * Decode a session `metadata.json` object. `dirId` is the checkpoint ID taken
 * from the tree path, used when the stored one is `REDACTED` or not hex.
 */
export function decodeSessionMetadata(raw: unknown, dirId?: string): SessionMetadata {
  const o = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const storedId = str(o['checkpoint_id']);
  const m: SessionMetadata = {
    checkpoint_id: isCheckpointId(storedId) ? storedId : (dirId ?? storedId ?? ''),
    session_id: str(o['session_id']) ?? '',
    strategy: normaliseStrategy(str(o['strategy'])),
    created_at: str(o['created_at']) ?? '',
    checkpoints_count: num(o['checkpoints_count']) ?? num(o['steps_count']) ?? 0,
    files_touched: strList(o['files_touched']),
  };
  const cli = str(o['cli_version']);
  if (cli) m.cli_version = cli;
  const branch = str(o['branch']);
  if (branch) m.branch = branch;
  const agent = str(o['agent']);
  if (agent) m.agent = agent;
  const task = str(o['task_id']);
  if (isTaskId(task)) m.task_id = task;
  // a teammate's or a hand-edited value: readers skip what the writer would not have written
  const model = modelName(o['model']);
  if (model !== undefined) m.model = model;
  const turn = str(o['turn_id']);
  if (turn) m.turn_id = turn;
  if (o['is_task'] === true) m.is_task = true;
  const tool = str(o['tool_use_id']);
  if (tool && isAgentId(tool)) m.tool_use_id = tool;
  const ident = str(o['transcript_identifier_at_start']) ?? str(o['transcript_uuid_at_start']);
  if (ident) m.transcript_identifier_at_start = ident;
  const start = num(o['checkpoint_transcript_start']);
  const linesAt = num(o['transcript_lines_at_start']);
  if (start) m.checkpoint_transcript_start = start;
  else if (linesAt) m.checkpoint_transcript_start = linesAt;
  if (linesAt) m.transcript_lines_at_start = linesAt;
  const usage = parseUsage(o['token_usage']);
  if (usage) m.token_usage = usage;
  // untrusted JSON is nested at most MAX_JSON_DEPTH deep once decoded (SPEC-2 §A.6)
  if (o['summary'] !== undefined && o['summary'] !== null) m.summary = bounded(o['summary']);
  if (o['initial_attribution'] !== undefined && o['initial_attribution'] !== null) m.initial_attribution = bounded(o['initial_attribution']);
  const tp = str(o['transcript_path']);
  if (tp) m.transcript_path = tp;
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (!(SESSION_KEYS as readonly string[]).includes(k) && !SESSION_LEGACY_KEYS.has(k)) extra[k] = bounded(v);
  }
  if (Object.keys(extra).length > 0) m.extra = extra;
  return m;
}

/** Legacy strategy names (§2.8): `shadow` = manual-commit, `dual` = auto-commit. */
export function normaliseStrategy(s: string | undefined): string {
  if (s === 'shadow' || s === undefined || s === '') return 'manual-commit';
  if (s === 'dual') return 'auto-commit';
  return s;
}

// ---------------------------------------------------------------- root

export interface SessionPaths {
  metadata: string;
  transcript: string;
  context: string;
  content_hash: string;
  prompt: string;
}

export interface RootMetadata {
  cli_version?: string;
  checkpoint_id: string;
  strategy: string;
  branch?: string;
  checkpoints_count: number;
  files_touched: string[] | null;
  sessions: SessionPaths[];
  token_usage?: TokenUsage;
  extra?: Record<string, unknown>;
}

const ROOT_KEYS = ['cli_version', 'checkpoint_id', 'strategy', 'branch', 'checkpoints_count', 'files_touched', 'sessions', 'token_usage'];

export function encodeRootMetadata(m: RootMetadata): string {
  const o: Record<string, unknown> = {};
  if (m.cli_version) o['cli_version'] = m.cli_version;
  o['checkpoint_id'] = m.checkpoint_id;
  o['strategy'] = m.strategy;
  if (m.branch) o['branch'] = m.branch;
  o['checkpoints_count'] = m.checkpoints_count;
  o['files_touched'] = m.files_touched && m.files_touched.length > 0 ? m.files_touched : null;
  o['sessions'] = m.sessions.map((s) => ({
    metadata: s.metadata,
    transcript: s.transcript,
    context: s.context,
    content_hash: s.content_hash,
    prompt: s.prompt,
  }));
  if (m.token_usage && !isZeroUsage(m.token_usage)) o['token_usage'] = usageOut(m.token_usage, false);
  for (const [k, v] of Object.entries(m.extra ?? {})) if (!(k in o)) o[k] = v;
  return encodeJson(o);
}

export function decodeRootMetadata(raw: unknown, dirId?: string): RootMetadata {
  const o = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const storedId = str(o['checkpoint_id']);
  const sessions: SessionPaths[] = [];
  if (Array.isArray(o['sessions'])) {
    for (const s of o['sessions']) {
      if (!s || typeof s !== 'object') continue;
      const so = s as Record<string, unknown>;
      sessions.push({
        metadata: str(so['metadata']) ?? '',
        transcript: str(so['transcript']) ?? '',
        context: str(so['context']) ?? '',
        content_hash: str(so['content_hash']) ?? '',
        prompt: str(so['prompt']) ?? '',
      });
    }
  }
  const m: RootMetadata = {
    checkpoint_id: isCheckpointId(storedId) ? storedId : (dirId ?? storedId ?? ''),
    strategy: normaliseStrategy(str(o['strategy'])),
    checkpoints_count: num(o['checkpoints_count']) ?? num(o['steps_count']) ?? 0,
    files_touched: strList(o['files_touched']),
    sessions,
  };
  const cli = str(o['cli_version']);
  if (cli) m.cli_version = cli;
  const branch = str(o['branch']);
  if (branch) m.branch = branch;
  const usage = parseUsage(o['token_usage']);
  if (usage) m.token_usage = usage;
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (!ROOT_KEYS.includes(k) && k !== 'steps_count') extra[k] = v;
  if (Object.keys(extra).length > 0) m.extra = extra;
  return m;
}

/** Paths of slot `n` as they appear in the root's `sessions[]` (leading `/`). */
export function sessionPathsFor(shard: string, slot: number, has: { context: boolean; prompt: boolean }): SessionPaths {
  const base = `/${shard}/${slot}`;
  return {
    metadata: `${base}/metadata.json`,
    transcript: `${base}/full.jsonl`,
    context: has.context ? `${base}/context.md` : '',
    content_hash: `${base}/content_hash.txt`,
    prompt: has.prompt ? `${base}/prompt.txt` : '',
  };
}

/** `created_at`: UTC RFC 3339 with the fraction's trailing zeros trimmed (Go's format). */
export function formatCreatedAt(d: Date): string {
  const iso = d.toISOString(); // 2026-02-09T06:35:43.769Z
  return iso.replace(/\.(\d*?)0*Z$/, (_m, frac: string) => (frac ? `.${frac}Z` : 'Z'));
}
