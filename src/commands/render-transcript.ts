/**
 * A readable rendering of a stored transcript for `entire explain` (SPEC
 * §8.9). The agent turns its transcript into entries (prompts, assistant
 * text, one line per tool use; `src/agents/kit/entries.ts`); this lays them out.
 * Pure: takes entries, returns lines.
 */
import type { EntryKind, TranscriptEntry } from '../agents/kit/entries.js';
import type { AgentAdapter } from '../agents/types.js';

export type { EntryKind, TranscriptEntry };

export interface RenderOptions {
  /** Every entry, untruncated. Default: the last `maxEntries` entries, each cut to `maxLines`. */
  full?: boolean;
  maxEntries?: number;
  maxLines?: number;
  maxLineChars?: number;
  indent?: string;
}

function clipLine(line: string, max: number): string {
  const cps = Array.from(line);
  return cps.length > max ? cps.slice(0, max - 1).join('') + '…' : line;
}

/** Lines of one entry: `> prompt`, assistant text, `→ Tool target`. */
function entryLines(e: TranscriptEntry, opts: Required<Omit<RenderOptions, 'full' | 'indent'>> & { full: boolean }): string[] {
  if (e.kind === 'tool') return [`→ ${e.text}`];
  let lines = e.text.replace(/\r\n/g, '\n').split('\n');
  let cut = 0;
  if (!opts.full) {
    lines = lines.map((l) => clipLine(l, opts.maxLineChars));
    if (lines.length > opts.maxLines) {
      cut = lines.length - opts.maxLines;
      lines = lines.slice(0, opts.maxLines);
    }
  }
  if (cut > 0) lines.push(`… (${cut} more line${cut === 1 ? '' : 's'})`);
  if (e.kind === 'user') return lines.map((l, i) => (i === 0 ? `> ${l}` : `  ${l}`));
  return lines;
}

/** Render entries as text lines (blank line between conversation turns). */
export function renderEntries(entries: readonly TranscriptEntry[], options: RenderOptions = {}): string[] {
  const opts = {
    full: options.full ?? false,
    maxEntries: options.maxEntries ?? 30,
    maxLines: options.maxLines ?? 6,
    maxLineChars: options.maxLineChars ?? 200,
  };
  const indent = options.indent ?? '';
  let shown = entries;
  const out: string[] = [];
  if (!opts.full && entries.length > opts.maxEntries) {
    const skipped = entries.length - opts.maxEntries;
    shown = entries.slice(skipped);
    out.push(`${indent}… ${skipped} earlier entr${skipped === 1 ? 'y' : 'ies'} (use --full to see everything)`);
  }
  let prev: EntryKind | null = null;
  for (const e of shown) {
    // a blank line between blocks; tool lines stay under the text that announced them
    if (prev !== null && (e.kind !== 'tool' || prev === 'user')) out.push('');
    for (const l of entryLines(e, opts)) out.push(l === '' ? '' : indent + l);
    prev = e.kind;
  }
  return out;
}

/** Convenience: the agent's entries of a transcript rendered as lines. */
export function renderTranscript(
  adapter: Pick<AgentAdapter, 'transcriptEntries'>,
  transcript: Buffer | string,
  format: 'jsonl' | 'json',
  options: RenderOptions & { from?: number } = {},
): string[] {
  const text = typeof transcript === 'string' ? transcript : transcript.toString('utf8');
  return renderEntries(adapter.transcriptEntries(text, format, options.from ?? 0), options);
}
