/**
 * Writes checkpoints in the Go Entire CLI's refs-v1 format (SPEC-3 §A.2–A.3)
 * with git plumbing only (`hash-object -w`, `mktree`, `commit-tree`,
 * `update-ref`): never through our own writer, so tests read what a Go user's
 * repository holds.
 *
 * - one ref `refs/entire/checkpoints/<last two characters>/<id>` per checkpoint;
 * - its first commit is an orphan whose tree root is the checkpoint:
 *   `metadata.json` (Go's summary, session paths `/0/…` from the ref's root),
 *   `0/`, `1/`… with `metadata.json`, `full.jsonl` (or chunks `full.jsonl.001`…),
 *   `transcript.jsonl` (Go's compact transcript, optional), `prompt.txt`,
 *   `content_hash.txt`;
 * - commit message `Checkpoint: <id>\n\n` + Entire-Session / Entire-Strategy /
 *   Entire-Agent / Ephemeral-branch trailers; a finalization is a child commit
 *   `Finalize transcript for Checkpoint: <id>` (no trailing newline);
 * - JSON as Go's encoder writes it: 2-space indent, a trailing newline, `<`,
 *   `>`, `&` escaped as `\u003c`… in Go's field order; or (`sortedKeys`) the
 *   migrated shape: keys sorted alphabetically, compact, without a newline.
 *
 * Field shapes follow the Go-written v1 checkpoints of
 * test/fixtures/entire-go-sample.bundle (test/fixtures/go-refs/, NOTES.md).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES, type TempRepo } from './repo.js';

export interface GoSession {
  sessionId: string;
  /** The native transcript (JSONL). */
  transcript: string;
  prompts: string[];
  agent?: string;
  model?: string;
  filesTouched?: string[];
  /** Split `full.jsonl` into chunks on line boundaries: `full.jsonl`, `full.jsonl.001`, … */
  chunks?: number;
  /** Also write Go's compact `transcript.jsonl`. */
  compact?: boolean;
  /** Extra session-metadata fields (unknown ones are kept by readers). */
  extra?: Record<string, unknown>;
  /** Subagent files under `tasks/<tool-use-id>/`. */
  tasks?: Record<string, Record<string, string>>;
}

export interface GoCheckpoint {
  id: string;
  sessions: GoSession[];
  branch?: string;
  /** Migrated shape: keys sorted, compact JSON without a trailing newline. */
  sortedKeys?: boolean;
  /** Root-metadata extras (e.g. the short-lived `checkpoint_version`). */
  rootExtra?: Record<string, unknown>;
  /** Extra files at the checkpoint root (readers ignore what they do not know). */
  extraFiles?: Record<string, string>;
}

const CLI_VERSION = '0.9.3';
const CREATED_AT = '2026-10-02T09:14:07.512345Z';

/** Go's encoding/json: HTML characters escaped. */
function goEscape(text: string): string {
  return text.replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v as Record<string, unknown>).sort()) out[k] = sortKeys((v as Record<string, unknown>)[k]);
  return out;
}

export function goJson(v: unknown, sortedKeys = false): string {
  if (sortedKeys) return goEscape(JSON.stringify(sortKeys(v)));
  return goEscape(JSON.stringify(v, null, 2)) + '\n';
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * Split JSONL into `n` chunks on line boundaries as Go's chunker does (and v1's):
 * each chunk is its lines joined by `\n`, the reader joins chunks with `\n`,
 * so only the last chunk keeps the transcript's final newline.
 */
function chunkLines(text: string, n: number): string[] {
  const lines = text.split('\n');
  const last = lines.pop() ?? ''; // '' after a final newline
  const per = Math.ceil(lines.length / n);
  const out: string[] = [];
  for (let i = 0; i < lines.length; i += per) out.push(lines.slice(i, i + per).join('\n'));
  out[out.length - 1] += '\n' + last;
  return out;
}

function chunkName(i: number): string {
  return i === 0 ? 'full.jsonl' : `full.jsonl.${String(i).padStart(3, '0')}`;
}

type Entry = { mode: '100644' | '040000'; name: string; oid: string };

function blob(r: TempRepo, content: string): string {
  return r.git(['hash-object', '-w', '--stdin'], { input: content }).trim();
}

function tree(r: TempRepo, entries: Entry[]): string {
  const input = entries.map((e) => `${e.mode} ${e.mode === '040000' ? 'tree' : 'blob'} ${e.oid}\t${e.name}\n`).join('');
  return r.git(['mktree'], { input }).trim();
}

function file(r: TempRepo, name: string, content: string): Entry {
  return { mode: '100644', name, oid: blob(r, content) };
}

function sessionMetadata(cp: GoCheckpoint, s: GoSession): Record<string, unknown> {
  // Go's field order (v1's fields, then model, compact_transcript_start, save_step_count)
  return {
    cli_version: CLI_VERSION,
    checkpoint_id: cp.id,
    session_id: s.sessionId,
    strategy: 'manual-commit',
    created_at: CREATED_AT,
    branch: cp.branch ?? 'main',
    checkpoints_count: 1,
    files_touched: s.filesTouched ?? ['a.txt'],
    agent: s.agent ?? 'Claude Code',
    model: s.model ?? '',
    turn_id: 'a1b2c3d4-0000-4000-8000-000000000001',
    checkpoint_transcript_start: 0,
    compact_transcript_start: 0,
    save_step_count: 1,
    token_usage: { input_tokens: 12, cache_creation_tokens: 0, cache_read_tokens: 40, output_tokens: 7, api_call_count: 1 },
    initial_attribution: {
      calculated_at: CREATED_AT,
      agent_lines: 3,
      human_added: 0,
      human_modified: 0,
      human_removed: 0,
      total_committed: 3,
      agent_percentage: 100,
    },
    ...(s.extra ?? {}),
  };
}

function compactTranscript(s: GoSession): string {
  return (
    s.prompts
      .map((p, i) => JSON.stringify({ v: 1, agent: 'claude-code', cli_version: CLI_VERSION, type: 'user', ts: CREATED_AT, content: [{ id: `u${i}`, text: p }] }))
      .join('\n') + '\n'
  );
}

/** The checkpoint's root tree, as Go writes it. */
export function goCheckpointTree(r: TempRepo, cp: GoCheckpoint): string {
  const sorted = !!cp.sortedKeys;
  const root: Entry[] = [];
  const sessions: Record<string, string>[] = [];
  cp.sessions.forEach((s, i) => {
    const entries: Entry[] = [];
    entries.push(file(r, 'metadata.json', goJson(sessionMetadata(cp, s), sorted)));
    const chunks = s.chunks && s.chunks > 1 ? chunkLines(s.transcript, s.chunks) : [s.transcript];
    chunks.forEach((c, k) => entries.push(file(r, chunkName(k), c)));
    entries.push(file(r, 'content_hash.txt', `sha256:${sha256(s.transcript)}`));
    entries.push(file(r, 'prompt.txt', s.prompts.join('\n\n---\n\n')));
    if (s.compact) entries.push(file(r, 'transcript.jsonl', compactTranscript(s)));
    if (s.tasks) {
      const taskDirs: Entry[] = [];
      for (const [tool, files] of Object.entries(s.tasks)) {
        taskDirs.push({ mode: '040000', name: tool, oid: tree(r, Object.entries(files).map(([n, c]) => file(r, n, c))) });
      }
      entries.push({ mode: '040000', name: 'tasks', oid: tree(r, taskDirs) });
    }
    root.push({ mode: '040000', name: String(i), oid: tree(r, entries) });
    const paths: Record<string, string> = { metadata: `/${i}/metadata.json`, transcript: `/${i}/full.jsonl` };
    if (s.compact) paths['compact_transcript'] = `/${i}/transcript.jsonl`;
    paths['content_hash'] = `/${i}/content_hash.txt`;
    paths['prompt'] = `/${i}/prompt.txt`;
    sessions.push(paths);
  });
  const files = [...new Set(cp.sessions.flatMap((s) => s.filesTouched ?? ['a.txt']))].sort();
  const summary: Record<string, unknown> = {
    cli_version: CLI_VERSION,
    checkpoint_id: cp.id,
    strategy: 'manual-commit',
    branch: cp.branch ?? 'main',
    checkpoints_count: cp.sessions.length,
    files_touched: files,
    sessions,
    token_usage: { input_tokens: 12 * cp.sessions.length, cache_creation_tokens: 0, cache_read_tokens: 40, output_tokens: 7, api_call_count: cp.sessions.length },
    ...(cp.rootExtra ?? {}),
  };
  root.push(file(r, 'metadata.json', goJson(summary, sorted)));
  for (const [n, c] of Object.entries(cp.extraFiles ?? {})) root.push(file(r, n, c));
  return tree(r, root);
}

export function goRef(id: string): string {
  return `refs/entire/checkpoints/${id.slice(-2)}/${id}`;
}

function commitTree(r: TempRepo, treeOid: string, message: string, parent?: string): string {
  const args = ['commit-tree', treeOid, ...(parent ? ['-p', parent] : [])];
  return r.git(args, { input: message }).trim();
}

/** Write `cp` as Go's first write: an orphan commit on its own ref. Returns the commit. */
export function writeGoCheckpoint(r: TempRepo, cp: GoCheckpoint): string {
  const first = cp.sessions[0]!;
  const message =
    `Checkpoint: ${cp.id}\n\n` +
    `Entire-Session: ${first.sessionId}\n` +
    `Entire-Strategy: manual-commit\n` +
    `Entire-Agent: ${first.agent ?? 'Claude Code'}\n` +
    `Ephemeral-branch: entire/abc1234-e3b0c4\n`;
  const commit = commitTree(r, goCheckpointTree(r, cp), message);
  r.git(['update-ref', goRef(cp.id), commit, '']);
  return commit;
}

/** Go's finalization: a child commit of the ref's tip with the checkpoint rewritten (fast-forward). */
export function finalizeGoCheckpoint(r: TempRepo, cp: GoCheckpoint): string {
  const ref = goRef(cp.id);
  const tip = r.git(['rev-parse', ref]).trim();
  const commit = commitTree(r, goCheckpointTree(r, cp), `Finalize transcript for Checkpoint: ${cp.id}`, tip);
  r.git(['update-ref', ref, commit, tip]);
  return commit;
}

/** Go's leftover policy ref (2026-06..09; SPEC-3 §A.8): a commit whose tree holds `policy.json`. */
export function writeGoPolicyRef(r: TempRepo): void {
  const t = tree(r, [file(r, 'policy.json', goJson({ checkpoint_version: 2, checkpoint_min_version: 2 }))]);
  r.git(['update-ref', 'refs/entire/policies/checkpoint', commitTree(r, t, 'Set checkpoint policy')]);
}

/** A real Claude Code transcript, prompts and session metadata from the Go-written sample (test/fixtures/go-refs/). */
export function sampleSession(): { transcript: string; prompts: string[]; metadata: Record<string, unknown> } {
  const dir = join(FIXTURES, 'go-refs');
  return {
    transcript: readFileSync(join(dir, 'session-full.jsonl'), 'utf8'),
    prompts: readFileSync(join(dir, 'session-prompt.txt'), 'utf8').split('\n\n---\n\n'),
    metadata: JSON.parse(readFileSync(join(dir, 'session-metadata.json'), 'utf8')) as Record<string, unknown>,
  };
}

/** A fresh ULID (26 Crockford characters, time-ordered head) as Go mints them. */
export function ulid(seed: number, when = Date.UTC(2026, 9, 2, 9, 14, 7)): string {
  const A = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  let t = when;
  let head = '';
  for (let i = 0; i < 10; i++) {
    head = A[t % 32]! + head;
    t = Math.floor(t / 32);
  }
  const rnd = createHash('sha256').update(String(seed)).digest();
  let tail = '';
  for (let i = 0; i < 16; i++) tail += A[rnd[i]! % 32]!;
  return head + tail;
}
