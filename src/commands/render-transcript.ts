/**
 * A readable rendering of a stored transcript for `entire explain` (SPEC
 * §8.9): user prompts, assistant text and one line per tool use
 * (`→ Edit src/server.ts`); progress, snapshot, system and thinking entries
 * are skipped. Pure: takes the transcript bytes, returns lines.
 *
 * Claude Code / Cursor: JSONL, one entry per line (`type` or `role` =
 * user/assistant). Gemini CLI: one JSON document with `messages[]`.
 */
import { cleanCursorPrompt, cleanPrompt } from '../agents/text.js';
import { geminiProjectRoot } from '../agents/gemini/transcript.js';

export type EntryKind = 'user' | 'assistant' | 'tool';

export interface TranscriptEntry {
  kind: EntryKind;
  text: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Input keys naming what a tool acted on, in preference order. */
const TOOL_TARGET_KEYS = [
  'file_path',
  'notebook_path',
  'absolute_path',
  'path',
  'command',
  'pattern',
  'url',
  'query',
  'description',
  'prompt',
] as const;

function oneLine(s: string, max = 100): string {
  const collapsed = s.replace(/\s+/g, ' ').trim();
  const cps = Array.from(collapsed);
  return cps.length > max ? cps.slice(0, max - 1).join('') + '…' : collapsed;
}

function relativeTo(path: string, cwd: string): string {
  if (cwd && path.startsWith(cwd.endsWith('/') ? cwd : cwd + '/')) return path.slice(cwd.length).replace(/^\/+/, '');
  return path;
}

/** `Edit src/server.ts`, `Bash npm test`, `TodoWrite (3 items)`. */
export function toolLine(name: string, input: unknown, cwd = ''): string {
  const n = name || 'tool';
  if (!isObj(input)) return n;
  for (const k of TOOL_TARGET_KEYS) {
    const v = input[k];
    if (typeof v === 'string' && v.trim() !== '') {
      const shown = k === 'file_path' || k === 'notebook_path' || k === 'absolute_path' || k === 'path' ? relativeTo(v, cwd) : v;
      return `${n} ${oneLine(shown)}`;
    }
  }
  if (Array.isArray(input['todos'])) return `${n} (${input['todos'].length} items)`;
  return n;
}

// ------------------------------------------------------------------ JSONL (Claude Code, Cursor)

function userEntries(message: unknown, clean: (s: string) => string): TranscriptEntry[] {
  const content = isObj(message) ? message['content'] : message;
  if (typeof content === 'string') {
    const t = clean(content);
    return t ? [{ kind: 'user', text: t }] : [];
  }
  if (!Array.isArray(content)) return [];
  const parts: string[] = [];
  for (const block of content) {
    // tool_result blocks are the tool's output, not something the user said
    if (isObj(block) && block['type'] === 'text') parts.push(str(block['text']));
    else if (typeof block === 'string') parts.push(block);
  }
  const t = clean(parts.join('\n\n'));
  return t ? [{ kind: 'user', text: t }] : [];
}

function assistantEntries(message: unknown, cwd: string): TranscriptEntry[] {
  const content = isObj(message) ? message['content'] : message;
  if (typeof content === 'string') return content.trim() ? [{ kind: 'assistant', text: content.trim() }] : [];
  if (!Array.isArray(content)) return [];
  const out: TranscriptEntry[] = [];
  for (const block of content) {
    if (!isObj(block)) continue;
    const type = block['type'];
    if (type === 'text') {
      const t = str(block['text']).trim();
      if (t) out.push({ kind: 'assistant', text: t });
    } else if (type === 'tool_use') {
      out.push({ kind: 'tool', text: toolLine(str(block['name']), block['input'], cwd) });
    }
    // thinking / redacted_thinking / images: not shown
  }
  return out;
}

function jsonlEntries(text: string, from: number): TranscriptEntry[] {
  const lines = text.split('\n');
  const out: TranscriptEntry[] = [];
  for (let i = Math.max(0, from); i < lines.length; i++) {
    const line = lines[i]!;
    if (line.length < 2 || (line.indexOf('"user"') === -1 && line.indexOf('"assistant"') === -1)) continue;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      continue;
    }
    if (!isObj(v)) continue;
    // meta lines (caveats), subagent sidechains and compaction summaries are not the conversation
    if (v['isMeta'] === true || v['isSidechain'] === true || v['isCompactSummary'] === true) continue;
    const cursor = typeof v['role'] === 'string' && typeof v['type'] !== 'string';
    const role = cursor ? v['role'] : v['type'];
    const cwd = str(v['cwd']);
    if (role === 'user') out.push(...userEntries(v['message'], cursor ? cleanCursorPrompt : cleanPrompt));
    else if (role === 'assistant') out.push(...assistantEntries(v['message'], cwd));
  }
  return out;
}

// ------------------------------------------------------------------ Gemini

function geminiText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((p) => (typeof p === 'string' ? p : isObj(p) ? str(p['text']) : ''))
      .filter((s) => s !== '')
      .join('\n\n');
  }
  return '';
}

const PATH_ARG_KEYS = ['absolute_path', 'file_path', 'path'] as const;

/** The project root (from `projectHash` and the tool paths), so paths show relative to it. */
function geminiRoot(doc: Obj, messages: unknown[]): string {
  const paths: string[] = [];
  for (const m of messages) {
    if (!isObj(m) || !Array.isArray(m['toolCalls'])) continue;
    for (const c of m['toolCalls']) {
      const args = isObj(c) ? c['args'] : undefined;
      if (!isObj(args)) continue;
      for (const k of PATH_ARG_KEYS) if (typeof args[k] === 'string') paths.push(args[k]);
    }
    if (paths.length >= 20) break;
  }
  return geminiProjectRoot(doc, paths) ?? '';
}

function geminiEntries(doc: Obj, from: number): TranscriptEntry[] {
  const messages = Array.isArray(doc['messages']) ? doc['messages'] : [];
  const root = geminiRoot(doc, messages);
  const out: TranscriptEntry[] = [];
  for (let i = Math.max(0, from); i < messages.length; i++) {
    const m = messages[i];
    if (!isObj(m)) continue;
    if (m['type'] === 'user') {
      const t = cleanPrompt(geminiText(m['content']));
      if (t) out.push({ kind: 'user', text: t });
    } else if (m['type'] === 'gemini') {
      const t = geminiText(m['content']).trim();
      if (t) out.push({ kind: 'assistant', text: t });
      if (Array.isArray(m['toolCalls'])) {
        for (const c of m['toolCalls']) {
          if (isObj(c)) out.push({ kind: 'tool', text: toolLine(str(c['name']), c['args'], root) });
        }
      }
    }
    // info / error messages: not part of the conversation
  }
  return out;
}

/** The Gemini document, or null when `text` is not one. */
function geminiDocument(text: string): Obj | null {
  if (!text.trimStart().startsWith('{')) return null;
  try {
    const v: unknown = JSON.parse(text);
    if (isObj(v) && Array.isArray(v['messages'])) return v;
  } catch {
    /* JSONL whose first line is an object */
  }
  return null;
}

/**
 * The conversation entries of a transcript, from JSONL line / Gemini message
 * index `from` (a checkpoint's `checkpoint_transcript_start`; an offset past
 * the end yields nothing).
 */
export function transcriptEntries(transcript: Buffer | string, format: 'jsonl' | 'json', from = 0): TranscriptEntry[] {
  const text = typeof transcript === 'string' ? transcript : transcript.toString('utf8');
  // a Gemini document is one JSON value; JSONL is one per line (a multi-line start means a document)
  const trimmed = text.trimStart();
  const doc = format === 'json' || /^\{\s*\n/.test(trimmed) ? geminiDocument(text) : null;
  if (doc) return geminiEntries(doc, from);
  return jsonlEntries(text, from);
}

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

/** Convenience: entries of a transcript rendered as lines. */
export function renderTranscript(
  transcript: Buffer | string,
  format: 'jsonl' | 'json',
  options: RenderOptions & { from?: number } = {},
): string[] {
  return renderEntries(transcriptEntries(transcript, format, options.from ?? 0), options);
}
