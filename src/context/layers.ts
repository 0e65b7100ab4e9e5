/**
 * The layered context of one stored transcript (SPEC-2 §F.4): the agent's adapter turns the
 * transcript into normalized events (its optional `contextEvents`), the agent-neutral
 * derivation folds them, and the render applies the budgets. An agent without the method gets
 * layers from its prompts alone.
 */
import { isAbsolute, relative, sep } from 'node:path';
import type { AgentAdapter, ContextEvent, TranscriptFormat, TranscriptText } from '../agents/types.js';
import { bytesOf, PIECE_BYTES, type ByteSource } from '../byte-source.js';
import { deriveContext } from './derive.js';
import { renderLayers, type Layers } from './render.js';

export type { Layers } from './render.js';

/** A stored transcript as `contextEvents` reads it: whole lines in ≤ 1 MiB windows, or whole. */
export function transcriptText(content: ByteSource | Buffer | string, format: TranscriptFormat): TranscriptText {
  const src = typeof content === 'string' || Buffer.isBuffer(content) ? bytesOf(content) : content;
  return {
    format,
    *windows(): Generator<string> {
      let carry: Buffer | null = null;
      for (const piece of src.pieces(0, src.size, PIECE_BYTES)) {
        const buf: Buffer = carry ? Buffer.concat([carry, piece]) : piece;
        const nl = buf.lastIndexOf(0x0a);
        if (nl < 0) {
          carry = buf; // a line longer than a piece: gathered alone
          continue;
        }
        yield buf.subarray(0, nl + 1).toString('utf8');
        carry = nl + 1 < buf.length ? Buffer.from(buf.subarray(nl + 1)) : null;
      }
      if (carry && carry.length > 0) yield carry.toString('utf8');
    },
    whole: () => src.readAll().toString('utf8'),
  };
}

/**
 * Paths the transcript names, repo-relative: absolute ones inside `root` (else dropped: agent
 * homes, temp files), relative ones as they are (without `./`, never climbing out).
 */
export function repoPathMapper(root: string): (p: string) => string | null {
  return (p) => {
    if (!p) return null;
    if (isAbsolute(p)) {
      const rel = relative(root, p);
      if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return null;
      return rel.split(sep).join('/');
    }
    const clean = p.replace(/^(\.\/)+/, '');
    return clean.startsWith('../') || clean === '..' ? null : clean;
  };
}

function* promptEvents(prompts: readonly string[]): Generator<ContextEvent> {
  for (const text of prompts) yield { type: 'prompt', text };
}

/** Defensive: an adapter's events must not break a hook; a throw ends the stream where it happened. */
function* guarded(events: Iterable<ContextEvent>): Generator<ContextEvent> {
  try {
    yield* events;
  } catch {
    /* malformed input: what came before still counts */
  }
}

/**
 * L1 and L2 of one transcript (already redacted: what it yields is stored as is), or null when
 * there is neither a prompt nor any activity. `prompts` feed agents without `contextEvents`.
 */
export function contextLayers(o: {
  adapter: Pick<AgentAdapter, 'contextEvents'>;
  transcript: ByteSource | Buffer | string | null;
  format: TranscriptFormat;
  prompts: readonly string[];
  root: string;
}): Layers | null {
  const events =
    o.adapter.contextEvents && o.transcript !== null ? guarded(o.adapter.contextEvents(transcriptText(o.transcript, o.format))) : promptEvents(o.prompts);
  return renderLayers(deriveContext(events, repoPathMapper(o.root)));
}
