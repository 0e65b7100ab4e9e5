/**
 * SPEC-2 §F.4's incremental derivation: the fold of an append-only JSONL transcript stops at
 * its last complete line and saves its state there (./fold-state.ts); the next derivation of
 * the same transcript checks that the bytes before that offset are still the ones folded (the
 * transcript did not shrink, its first 4 KiB and the last line before the offset hash the same)
 * and folds only the lines after it. Anything else — another agent, format or root, a shrunk
 * or rewritten file, a state this build did not write — folds from scratch. The result is the
 * fresh fold's, byte for byte (test/context/incremental.test.ts).
 *
 * Only agents whose events are line-local (`contextLineLocal`) resume; a one-document transcript
 * (one JSON document, or records that patch earlier ones) is folded whole each time, as are agents
 * without events.
 */
import { createHash } from 'node:crypto';
import type { AgentAdapter, ContextEvent, TranscriptFormat } from '../agents/types.js';
import type { ByteSource } from '../byte-source.js';
import { ContextDeriver } from './derive.js';
import { FOLD_ENGINE, type Checkpoint } from './fold-state.js';
import { contextLayers, repoPathMapper, transcriptText } from './layers.js';
import { renderLayers, type Layers } from './render.js';

const HASH_SPAN = 4096;

export interface FoldResult {
  layers: Layers | null;
  /** The state to save for the next derivation (null: nothing resumable). */
  checkpoint: Checkpoint | null;
  /** Bytes folded from a saved state (0: from scratch). */
  resumedAt: number;
}

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** The offset just after the last newline of `src` (0: none). */
function lastLineEnd(src: ByteSource): number {
  for (let end = src.size; end > 0; ) {
    const start = Math.max(0, end - 64 * 1024);
    const nl = src.read(start, end - start).lastIndexOf(0x0a);
    if (nl >= 0) return start + nl + 1;
    end = start;
  }
  return 0;
}

/** SHA-256 of the line ending at `end` (a newline at end - 1), its last ≤ 4 KiB. */
function lastLineHash(src: ByteSource, end: number): string {
  const start = Math.max(0, end - 1 - HASH_SPAN);
  const buf = src.read(start, end - 1 - start);
  const nl = buf.lastIndexOf(0x0a);
  return sha(nl >= 0 ? buf.subarray(nl + 1) : buf);
}

/** SHA-256 of the first ≤ 4 KiB of the `end` bytes folded. */
const headHash = (src: ByteSource, end: number): string => sha(src.read(0, Math.min(HASH_SPAN, end)));

function countLines(src: ByteSource): number {
  let n = 0;
  for (const piece of src.pieces()) for (let at = piece.indexOf(0x0a); at >= 0; at = piece.indexOf(0x0a, at + 1)) n++;
  return n;
}

/** Feed `events` into `d`; false when the adapter threw (the fresh fold ends there too). */
function feed(d: ContextDeriver, events: Iterable<ContextEvent>): boolean {
  try {
    for (const ev of events) d.push(ev);
    return true;
  } catch {
    return false;
  }
}

/** Does `cp` describe a prefix of `src` folded for this agent, format and root? */
function usable(cp: Checkpoint | null, src: ByteSource, o: { agent: string; format: string; root: string; end: number }): cp is Checkpoint {
  if (!cp || cp.engine !== FOLD_ENGINE || cp.agent !== o.agent || cp.format !== o.format || cp.root !== o.root) return false;
  if (cp.offset > o.end) return false; // the file shrank (or was replaced by a shorter one)
  if (src.read(cp.offset - 1, 1)[0] !== 0x0a) return false;
  return headHash(src, cp.offset) === cp.headHash && lastLineHash(src, cp.offset) === cp.lastLineHash;
}

/**
 * L1 and L2 of one (redacted) transcript, from `saved` when it still fits, and the state to
 * save for next time. Same result as `contextLayers`.
 */
export function foldTranscript(o: {
  adapter: Pick<AgentAdapter, 'key' | 'contextEvents' | 'contextLineLocal'>;
  transcript: ByteSource | null;
  format: TranscriptFormat;
  prompts: readonly string[];
  root: string;
  saved: Checkpoint | null;
}): FoldResult {
  const src = o.transcript;
  const events = o.adapter.contextEvents;
  if (!src || !events || !o.adapter.contextLineLocal || o.format !== 'jsonl') {
    return { layers: contextLayers({ adapter: o.adapter, transcript: src, format: o.format, prompts: o.prompts, root: o.root }), checkpoint: null, resumedAt: 0 };
  }
  const toRepoPath = repoPathMapper(o.root);
  const end = lastLineEnd(src);
  const key = { agent: o.adapter.key, format: o.format, root: o.root, end };
  const resume = usable(o.saved, src, key) ? o.saved : null;
  const d = resume ? ContextDeriver.resume(resume.state, toRepoPath) : new ContextDeriver(toRepoPath);
  const from = resume ? resume.offset : 0;
  const body = src.slice(from, end);
  let checkpoint: Checkpoint | null = null;
  if (!feed(d, events(transcriptText(body, o.format)))) return { layers: renderLayers(d.result0()), checkpoint: null, resumedAt: from };
  if (end > 0) {
    checkpoint = {
      v: 1,
      engine: FOLD_ENGINE,
      agent: o.adapter.key,
      format: o.format,
      root: o.root,
      offset: end,
      lines: (resume ? resume.lines : 0) + countLines(body),
      headHash: headHash(src, end),
      lastLineHash: lastLineHash(src, end),
      // taken before the unterminated tail, which the next derivation reads again
      state: d.snapshot(),
    };
  }
  if (end < src.size) feed(d, events(transcriptText(src.slice(end), o.format)));
  return { layers: renderLayers(d.result0()), checkpoint, resumedAt: from };
}
