/**
 * A session's transcript as the flows need it: the adapter that reads it,
 * analyses from an offset, and the whole transcript redacted (incrementally
 * for append-only JSONL, so later turns cost only their new bytes).
 */
import { relative, isAbsolute } from 'node:path';
import { getAgent, agentByDisplayName, DEFAULT_AGENT } from '../agents/registry.js';
import type { AgentAdapter, AgentKey, TranscriptAnalysis } from '../agents/types.js';
import { homeDir } from '../agents/kit/home-paths.js';
import { PreRedacted } from '../store/content.js';
import { MAX_CHUNK_BYTES, lineGroupRangesOf, sha256Of } from '../checkpoint/chunks.js';
import { BufferSource, ConcatSource, FileRangeSource, bytesOf, type ByteSource } from '../byte-source.js';
import { blobOid } from '../git/objects.js';
import type { CacheUpdate } from '../redact/incremental.js';
import { EntireError } from '../errors.js';
import type { SessionState } from '../session/state.js';
import { safeTmpDir } from './scratch.js';
import { readTranscriptFile, transcriptOpens, transcriptPathProblem } from '../trust/transcript-file.js';
import { TranscriptCache } from './transcript-cache.js';
import { onExit } from '../exit-tasks.js';

/** The adapter of a session (state `agent_type` holds the display name, as in Go). */
export async function adapterFor(state: Pick<SessionState, 'agent_type'> | null, fallback: AgentKey = DEFAULT_AGENT): Promise<AgentAdapter> {
  const info = state?.agent_type ? agentByDisplayName(state.agent_type) : undefined;
  return getAgent(info?.key ?? fallback);
}

/**
 * Whether a session's transcript may be read (SPEC-2 §A.5): inside the
 * agent's transcript root and opening as a regular file within the size
 * cap. Every flow asks this before reading; the readers then open it only
 * through src/trust/transcript-file.ts.
 */
export function readableTranscript(adapter: AgentAdapter, path: string | undefined, repoRoot: string): boolean {
  if (!path) return false;
  if (readable.has(path)) return true;
  if (transcriptPathProblem(path, adapter.transcriptRoot(repoRoot)) !== null) return false;
  // a hook asks this several times: a file that passed once stays passed for the process
  // (every read still opens through openTranscript, which checks again)
  if (!transcriptOpens(path)) return false;
  readable.add(path);
  return true;
}
const readable = new Set<string>();

const caches = new Map<string, TranscriptCache>();

/**
 * The session's transcript bookkeeping (one per process and path), so
 * repeated analyses in one hook and across hooks read only new bytes.
 */
export function transcriptCache(root: string, sessionId: string, adapter: AgentAdapter, path: string): TranscriptCache {
  const key = `${sessionId}\0${path}`;
  let c = caches.get(key);
  if (!c) {
    c = TranscriptCache.open(root, sessionId, adapter, path);
    if (caches.size === 0) onExit(saveTranscriptCaches);
    caches.set(key, c);
  }
  return c;
}

/** Persist every cache this process touched (hooks call it once at the end). */
export function saveTranscriptCaches(): void {
  for (const c of caches.values()) c.save();
}

export interface Owner {
  root: string;
  sessionId: string;
}

/**
 * An agent whose transcript Entire fetches (`refreshTranscript`, e.g. an export) gets it fetched
 * now; a failure is logged as a warning and the previous copy stays. Other agents: nothing.
 */
export async function refreshTranscript(
  adapter: AgentAdapter,
  owner: Owner,
  path: string | undefined,
  log: { warn(msg: string, fields: Record<string, unknown>): void; debug(msg: string, fields?: Record<string, unknown>): void },
): Promise<void> {
  if (!adapter.refreshTranscript || !path) return;
  const started = Date.now();
  try {
    await adapter.refreshTranscript(owner.root, owner.sessionId, path);
    log.debug('transcript refreshed', { session_id: owner.sessionId, refresh_ms: Date.now() - started });
  } catch (e) {
    log.warn('cannot refresh the transcript; the previous copy stays', { session_id: owner.sessionId, refresh_ms: Date.now() - started, error: e });
  }
}

/** Analysis from `from` (line / message index); null when the file is missing or unreadable. */
export function analyze(adapter: AgentAdapter, path: string | undefined, from: number, owner: Owner): TranscriptAnalysis | null {
  if (!readableTranscript(adapter, path, owner.root)) return null;
  return transcriptCache(owner.root, owner.sessionId, adapter, path!).analyze(from);
}

/** Current position and last identifier of a transcript (0/"" when missing). */
export function positionOf(adapter: AgentAdapter, path: string | undefined, owner: Owner): { position: number; lastIdentifier: string } {
  if (!readableTranscript(adapter, path, owner.root)) return { position: 0, lastIdentifier: '' };
  return transcriptCache(owner.root, owner.sessionId, adapter, path!).position();
}

/** Every prompt of the transcript, redacted ([] when missing). */
export async function promptsOf(adapter: AgentAdapter, path: string | undefined, owner: Owner): Promise<string[]> {
  if (!readableTranscript(adapter, path, owner.root)) return [];
  return transcriptCache(owner.root, owner.sessionId, adapter, path!).prompts();
}

/**
 * The whole transcript, redacted. Throws TRANSCRIPT_UNREADABLE when the file
 * cannot be read (finalization must then keep its IDs pending). When the
 * same redacted content is already stored in git as one blob, the result
 * refers to it and the text is read only if a caller needs it.
 */
export async function redactedTranscript(root: string, sessionId: string, adapter: AgentAdapter, path: string): Promise<PreRedacted> {
  if (!readableTranscript(adapter, path, root)) {
    throw new EntireError('TRANSCRIPT_UNREADABLE', `transcript ${path} is missing or not a file`);
  }
  try {
    const format = adapter.transcriptFormat(path);
    if (format === 'jsonl') {
      const inc = await import('../redact/incremental.js');
      const u = await inc.updateRedactionCache({ sourcePath: path, cacheDir: safeTmpDir(root, 'redact'), key: sessionId });
      // left on disk: the stores read it in pieces (SPEC-2 §A.6)
      const bytes = redactedBytes(u, 0);
      const blob = u.cached && !u.rebuilt && u.tail === '' ? transcriptCache(root, sessionId, adapter, path).storedBlob(u.outputBytes) : null;
      if (blob) return PreRedacted.fromKnownBlob(blob, bytes);
      return PreRedacted.fromRedactedBytes(bytes);
    }
    const redact = await import('../redact/index.js');
    return PreRedacted.fromRedactor(redact.redactTranscript((readTranscriptFile(path) ?? Buffer.alloc(0)).toString('utf8'), format));
  } catch (e) {
    if (e instanceof EntireError) throw e;
    throw new EntireError('TRANSCRIPT_UNREADABLE', `cannot read transcript ${path}`, { cause: e });
  }
}

/**
 * Remember that `t` was just stored in git as one blob, so later hooks can
 * refer to it instead of sending it again (hashing happens once, here).
 */
export async function noteStoredTranscript(
  root: string,
  sessionId: string,
  adapter: AgentAdapter,
  path: string,
  t: PreRedacted,
  objectFormat: 'sha1' | 'sha256',
): Promise<void> {
  if (t.blob || adapter.transcriptFormat(path) !== 'jsonl') return;
  const bytes = t.bytes();
  if (bytes.size > MAX_CHUNK_BYTES) return;
  transcriptCache(root, sessionId, adapter, path).setStoredBlob({ oid: blobOid(bytes, objectFormat), bytes: bytes.size, sha256: sha256Of(bytes) });
}

/** The redacted transcript a cache update describes, from byte `from` of its file, then its tail. */
function redactedBytes(u: CacheUpdate, from: number): ByteSource {
  const parts: ByteSource[] = [];
  if (u.outputBytes > from) parts.push(FileRangeSource.open(u.outputPath, from, u.outputBytes));
  if (u.tail) parts.push(bytesOf(u.tail));
  return parts.length === 1 ? parts[0]! : parts.length === 0 ? new BufferSource(Buffer.alloc(0)) : new ConcatSource(parts);
}

/**
 * Shadow copies of big transcripts are split into line groups of this size,
 * so a Stop writes only the group that grew (SPEC §10: later turns of a
 * 50 MB transcript in well under a second). Transcripts up to this size are
 * one `full.jsonl`, exactly as the Go tool writes them.
 */
export const SHADOW_CHUNK_BYTES = 8 * 1024 * 1024;

export interface ShadowTranscript {
  /** `full.jsonl`, `.001`, …: content (read when its blob is written), or the blob of an unchanged group. */
  chunks: Array<ByteSource | { oid: string }>;
  /** After the step landed: remember the blobs of completed groups (and of a one-group transcript). */
  remember(): void;
}

/** The redacted transcript as shadow-branch chunks, reading only new bytes; null = use the whole text. */
export async function shadowTranscript(
  root: string,
  sessionId: string,
  adapter: AgentAdapter,
  path: string,
  objectFormat: 'sha1' | 'sha256',
): Promise<ShadowTranscript | null> {
  if (adapter.transcriptFormat(path) !== 'jsonl' || !readableTranscript(adapter, path, root)) return null;
  const inc = await import('../redact/incremental.js');
  const u = await inc.updateRedactionCache({ sourcePath: path, cacheDir: safeTmpDir(root, 'redact'), key: sessionId });
  if (!u.cached) return null;
  const cache = transcriptCache(root, sessionId, adapter, path);
  if (u.rebuilt) cache.setShadowChunks([]);
  const done = cache.shadowChunks().filter((c) => c.end < u.outputBytes);
  const nextStart = done.length > 0 ? done[done.length - 1]!.end + 1 : 0;
  // what grew since the last completed group, left on disk and read in pieces (SPEC-2 §A.6)
  const rest = redactedBytes(u, nextStart);
  const ranges = lineGroupRangesOf(rest, SHADOW_CHUNK_BYTES);
  const pieces = ranges.map(([a, b]) => rest.slice(a, b));
  const oidOf = (b: ByteSource) => blobOid(b, objectFormat);
  return {
    chunks: [...done.map((c) => ({ oid: c.oid })), ...pieces],
    remember(): void {
      const completed = [...done];
      for (let i = 0; i < ranges.length - 1; i++) {
        completed.push({ start: nextStart + ranges[i]![0], end: nextStart + ranges[i]![1], oid: oidOf(pieces[i]!) });
      }
      cache.setShadowChunks(completed);
      if (done.length === 0 && pieces.length === 1 && !u.tail) {
        cache.setStoredBlob({ oid: oidOf(pieces[0]!), bytes: pieces[0]!.size, sha256: sha256Of(pieces[0]!) });
      }
    },
  };
}

/** `transcript_path` for metadata: relative to `$HOME`, `""` outside it (SPEC §2.5). */
export function homeRelative(path: string | undefined): string {
  if (!path) return '';
  const rel = relative(homeDir(), path);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return '';
  return rel;
}

/**
 * The first `lines` lines of a JSONL transcript (pending condensations replay
 * a past end): up to just after its `lines`-th newline, all of it when it has
 * fewer; read in pieces.
 */
export function firstLinesOf(bytes: ByteSource, lines: number): ByteSource {
  if (lines <= 0) return bytes.slice(0, 0);
  let seen = 0;
  let at = 0;
  for (const piece of bytes.pieces()) {
    let nl = piece.indexOf(10);
    while (nl !== -1) {
      if (++seen === lines) return bytes.slice(0, at + nl + 1);
      nl = piece.indexOf(10, nl + 1);
    }
    at += piece.length;
  }
  return bytes;
}
