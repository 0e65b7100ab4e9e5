import { crypto } from '../builtins.js';
import { BufferSource, ConcatSource, type ByteSource } from '../byte-source.js';
/**
 * SPEC §2.7: transcripts larger than M bytes are stored as `full.jsonl`,
 * `full.jsonl.001`, … so no blob exceeds what hosting services accept.
 *
 * Each chunker comes twice: over a Buffer, and over a ByteSource (a redacted
 * transcript on disk, SPEC-2 §A.6), read in 1 MiB pieces and answered with
 * sources that read their bytes only when a blob is written. Both give the
 * same chunks (test/checkpoint/chunks-source.test.ts).
 */

export const MAX_CHUNK_BYTES = 52_428_800;
export const TRANSCRIPT_FILE = 'full.jsonl';
export const LEGACY_TRANSCRIPT_FILE = 'full.log';

export function chunkFileName(i: number): string {
  return i === 0 ? TRANSCRIPT_FILE : `${TRANSCRIPT_FILE}.${String(i).padStart(3, '0')}`;
}

/**
 * The transcript chunk files among `names`, in chunk order, one per index:
 * `full.jsonl` wins over a legacy `full.log` for the same chunk.
 */
export function orderedChunkNames(names: readonly string[]): string[] {
  const chunks = names
    .map((n) => ({ n, i: chunkIndexOf(n) }))
    .filter((x): x is { n: string; i: number } => x.i !== null)
    .sort((a, b) => a.i - b.i || (a.n.includes('.log') ? 1 : -1));
  const seen = new Set<number>();
  return chunks.filter((c) => (seen.has(c.i) ? false : (seen.add(c.i), true))).map((c) => c.n);
}

/** Chunk index of a transcript file name (`full.jsonl`→0, `.001`→1, `full.log`→0), else null. */
export function chunkIndexOf(name: string): number | null {
  if (name === TRANSCRIPT_FILE || name === LEGACY_TRANSCRIPT_FILE) return 0;
  const m = /^full\.(?:jsonl|log)\.(\d+)$/.exec(name);
  return m && m[1] ? Number(m[1]) : null;
}

function omittedLine(line: Buffer): Buffer {
  const sha = crypto().createHash('sha256').update(line).digest('hex');
  return Buffer.from(JSON.stringify({ type: 'entire-omitted', original_bytes: line.length, sha256: sha }));
}

/**
 * Split JSONL content into chunks of at most `max` bytes on line boundaries;
 * joining the chunks with `\n` gives the input back, except that a single
 * line longer than `max` is replaced by an `entire-omitted` marker.
 */
export function chunkJsonl(content: Buffer, max = MAX_CHUNK_BYTES): Buffer[] {
  if (content.length <= max) return [content];
  const lines: Buffer[] = [];
  let start = 0;
  for (;;) {
    const nl = content.indexOf(0x0a, start);
    if (nl < 0) {
      lines.push(content.subarray(start));
      break;
    }
    lines.push(content.subarray(start, nl));
    start = nl + 1;
  }
  const chunks: Buffer[] = [];
  let group: Buffer[] = [];
  let size = -1; // bytes of the \n-joined group (first line adds no separator)
  for (let line of lines) {
    if (line.length > max) line = omittedLine(line);
    const add = line.length + (group.length > 0 ? 1 : 0);
    if (group.length > 0 && size + add > max) {
      chunks.push(joinLines(group));
      group = [];
      size = -1;
    }
    group.push(line);
    size = group.length === 1 ? line.length : size + 1 + line.length;
  }
  if (group.length > 0) chunks.push(joinLines(group));
  return chunks;
}

function joinLines(lines: Buffer[]): Buffer {
  const parts: Buffer[] = [];
  lines.forEach((l, i) => {
    if (i > 0) parts.push(Buffer.from('\n'));
    parts.push(l);
  });
  return Buffer.concat(parts);
}

/** Reassemble JSONL chunks (already ordered). */
export function joinJsonlChunks(chunks: Buffer[]): Buffer {
  return chunks.length === 1 ? chunks[0]! : joinLines(chunks);
}

/**
 * JSON documents (`{…, "messages":[…]}`) larger than `max`: chunk 0 keeps the
 * top-level fields and the first messages, later chunks are
 * `{"messages":[…]}` (lossless).
 */
export function chunkJsonDocument(content: Buffer, max = MAX_CHUNK_BYTES): Buffer[] {
  if (content.length <= max) return [content];
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(content.toString('utf8')) as Record<string, unknown>;
  } catch {
    return chunkJsonl(content, max);
  }
  const messages = Array.isArray(doc['messages']) ? (doc['messages'] as unknown[]) : [];
  const head = { ...doc, messages: [] as unknown[] };
  const chunks: Buffer[] = [];
  let current = head;
  let currentSize = Buffer.byteLength(JSON.stringify(head));
  for (const msg of messages) {
    const s = Buffer.byteLength(JSON.stringify(msg)) + 1;
    if (current.messages.length > 0 && currentSize + s > max) {
      chunks.push(Buffer.from(JSON.stringify(current)));
      current = { messages: [] } as typeof head;
      currentSize = Buffer.byteLength('{"messages":[]}');
    }
    current.messages.push(msg);
    currentSize += s;
  }
  chunks.push(Buffer.from(JSON.stringify(current)));
  return chunks;
}

export function joinJsonDocumentChunks(chunks: Buffer[]): Buffer {
  if (chunks.length === 1) return chunks[0]!;
  try {
    const first = JSON.parse(chunks[0]!.toString('utf8')) as Record<string, unknown>;
    const messages: unknown[] = Array.isArray(first['messages']) ? [...(first['messages'] as unknown[])] : [];
    for (const c of chunks.slice(1)) {
      const d = JSON.parse(c.toString('utf8')) as Record<string, unknown>;
      if (Array.isArray(d['messages'])) messages.push(...(d['messages'] as unknown[]));
    }
    return Buffer.from(JSON.stringify({ ...first, messages }, null, 2));
  } catch {
    return joinJsonlChunks(chunks);
  }
}

/** Is this content a stored JSON document (`{` with a `messages` array), not JSONL? */
export function looksLikeJsonDocument(content: Buffer | string): boolean {
  const s = typeof content === 'string' ? content : content.subarray(0, 64).toString('utf8');
  if (!s.trimStart().startsWith('{')) return false;
  try {
    // JSONL fails at its second line, so this is cheap for it
    const d = JSON.parse(typeof content === 'string' ? content : content.toString('utf8')) as Record<string, unknown>;
    return d !== null && typeof d === 'object' && Array.isArray(d['messages']);
  } catch {
    return false;
  }
}

/** `content_hash.txt`: `sha256:` + hex of the whole redacted transcript, no newline. */
export function contentHash(transcript: Buffer): string {
  return 'sha256:' + crypto().createHash('sha256').update(transcript).digest('hex');
}

/**
 * Greedy line groups of `content` as byte ranges [start, end) (the `\n`
 * between two groups belongs to neither): each group holds as many whole
 * lines as fit in `max` bytes; a single longer line is a group of its own.
 * Grouping is stable under appending: only the last group can change.
 */
export function lineGroupRanges(content: Buffer, max: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  if (content.length === 0) return out;
  let groupStart = 0;
  let lineStart = 0;
  let groupEnd = -1; // end of the last whole line in the group
  for (;;) {
    const nl = content.indexOf(0x0a, lineStart);
    const lineEnd = nl < 0 ? content.length : nl;
    if (groupEnd >= 0 && lineEnd - groupStart > max) {
      out.push([groupStart, groupEnd]);
      groupStart = lineStart;
    }
    groupEnd = lineEnd;
    if (nl < 0) break;
    lineStart = nl + 1; // after a final newline the last line is empty, as in chunkJsonl
  }
  out.push([groupStart, groupEnd]);
  return out;
}

/** Chunks of a transcript in its storage format. */
export function chunkTranscript(content: Buffer, format: 'jsonl' | 'json', max = MAX_CHUNK_BYTES): Buffer[] {
  return format === 'json' ? chunkJsonDocument(content, max) : chunkJsonl(content, max);
}

/** A stored transcript from its ordered chunks, in its storage format. */
export function joinTranscriptChunks(chunks: Buffer[], format: 'jsonl' | 'json'): Buffer {
  return format === 'json' ? joinJsonDocumentChunks(chunks) : joinJsonlChunks(chunks);
}

// ---------------------------------------------------------------------------
// The same over a ByteSource

/**
 * Lines of `src` as [start, end) without their `\n`, as chunkJsonl splits
 * them: after a final newline comes one more, empty, line.
 */
function* lineSpans(src: ByteSource): Generator<[number, number]> {
  let lineStart = 0;
  let at = 0;
  for (const piece of src.pieces()) {
    let nl = piece.indexOf(10);
    while (nl !== -1) {
      yield [lineStart, at + nl];
      lineStart = at + nl + 1;
      nl = piece.indexOf(10, nl + 1);
    }
    at += piece.length;
  }
  yield [lineStart, src.size];
}

const NEWLINE = new BufferSource(Buffer.from('\n'));

function omittedSpan(src: ByteSource, start: number, end: number): ByteSource {
  const h = crypto().createHash('sha256');
  for (const p of src.pieces(start, end)) h.update(p);
  return new BufferSource(Buffer.from(JSON.stringify({ type: 'entire-omitted', original_bytes: end - start, sha256: h.digest('hex') })));
}

/** chunkJsonl over a source: chunks as sources (slices of it, joined where a line was omitted). */
export function chunkJsonlSource(src: ByteSource, max = MAX_CHUNK_BYTES): ByteSource[] {
  if (src.size <= max) return [src];
  const chunks: ByteSource[] = [];
  let parts: ByteSource[] = [];
  let lines = 0;
  let size = 0; // bytes of the \n-joined group
  // the run of source lines at the end of `parts`, not yet cut out of `src`
  let runStart = -1;
  let runEnd = -1;
  const closeRun = (): void => {
    if (runStart >= 0) parts.push(src.slice(runStart, runEnd));
    runStart = -1;
  };
  const flush = (): void => {
    closeRun();
    chunks.push(parts.length === 1 ? parts[0]! : new ConcatSource(parts));
    parts = [];
    lines = 0;
    size = 0;
  };
  for (const [start, end] of lineSpans(src)) {
    const omitted = end - start > max ? omittedSpan(src, start, end) : null;
    const len = omitted ? omitted.size : end - start;
    if (lines > 0 && size + 1 + len > max) flush();
    if (omitted) {
      closeRun();
      if (lines > 0) parts.push(NEWLINE);
      parts.push(omitted);
    } else if (runStart >= 0 && runEnd + 1 === start) {
      runEnd = end; // the next source line: the run takes it with the \n before it
    } else {
      closeRun();
      if (lines > 0) parts.push(NEWLINE);
      runStart = start;
      runEnd = end;
    }
    size = lines === 0 ? len : size + 1 + len;
    lines++;
  }
  if (lines > 0) flush();
  return chunks;
}

/** lineGroupRanges over a source. */
export function lineGroupRangesOf(src: ByteSource, max: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  if (src.size === 0) return out;
  let groupStart = 0;
  let groupEnd = -1;
  for (const [lineStart, lineEnd] of lineSpans(src)) {
    if (groupEnd >= 0 && lineEnd - groupStart > max) {
      out.push([groupStart, groupEnd]);
      groupStart = lineStart;
    }
    groupEnd = lineEnd;
  }
  out.push([groupStart, groupEnd]);
  return out;
}

/** contentHash over a source. */
export function contentHashOf(src: ByteSource): string {
  return 'sha256:' + sha256Of(src);
}

/** Hex SHA-256 of a source. */
export function sha256Of(src: ByteSource): string {
  const h = crypto().createHash('sha256');
  for (const p of src.pieces()) h.update(p);
  return h.digest('hex');
}
