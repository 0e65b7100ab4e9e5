/**
 * JSONL transcript analysis shared by the JSONL agents, built for the Stop hook's
 * budget (SPEC §10: later turns of a 50 MB transcript in well under a second):
 *
 * - the analysers work on a chunk of text that starts at a known line, so a
 *   caller can read only the bytes after a saved cursor;
 * - lines are found with indexOf, never split into an array;
 * - a line is JSON-parsed only when a substring test says it can matter
 *   (user/assistant lines); progress, snapshot and system lines never are;
 * - line counting and the last identifier need no parsing except of the last
 *   line(s) that mention `"uuid"`.
 */
import { closeSync, fstatSync } from 'node:fs';
import { openTranscript } from '../trust/transcript-file.js';
import { EntireError, isEntireError } from '../errors.js';
import type { TokenUsage, TranscriptAnalysis, TranscriptCursor, TranscriptFileResult, TranscriptPositionResult } from './types.js';
import { readAt } from '../fs-read.js';

export interface JsonlDialect {
  /** Top-level key holding `user`/`assistant` (`type` or `role`, per agent). */
  roleKey: 'type' | 'role';
  /** Tool names whose `tool_use` blocks edit a file. */
  editTools: ReadonlySet<string>;
  /** Keys of `input` holding the path, in preference order. */
  pathKeys: readonly string[];
  /** Whether lines carry `uuid` identifiers. */
  hasUuid: boolean;
  /** Whether assistant lines carry `message.id` + `usage`. */
  hasUsage: boolean;
  /** Whether to collect `agentId: <id>` from tool results. */
  hasSubagents: boolean;
  cleanPrompt(text: string): string;
  /** A user line the agent itself wrote (not a prompt; its tool results still count). */
  isSystemUserLine?(line: Record<string, unknown>): boolean;
}

export interface JsonlAnalyzeOptions {
  /** Skip lines before this line number (0-based, absolute). */
  fromLine?: number;
  /** Absolute line number at which `text` starts (default 0). */
  baseLine?: number;
}

export function emptyTokenUsage(): TokenUsage {
  return { input_tokens: 0, cache_creation_tokens: 0, cache_read_tokens: 0, output_tokens: 0, api_call_count: 0 };
}

export function emptyAnalysis(position = 0, lastIdentifier = ''): TranscriptAnalysis {
  return {
    position,
    lastIdentifier,
    modifiedFiles: [],
    prompts: [],
    tokenUsage: emptyTokenUsage(),
    summary: '',
    subagentIds: [],
  };
}

/** Sum two usages field by field (no `subagent_tokens` in the result). */
export function addTokenUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    cache_creation_tokens: a.cache_creation_tokens + b.cache_creation_tokens,
    cache_read_tokens: a.cache_read_tokens + b.cache_read_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    api_call_count: a.api_call_count + b.api_call_count,
  };
}

// ---------------------------------------------------------------------------
// Cheap scans

/** SPEC §7.1 position: `\n` count, +1 for a non-empty unterminated tail. */
export function countLines(text: string): number {
  let n = 0;
  let i = text.indexOf('\n');
  while (i !== -1) {
    n++;
    i = text.indexOf('\n', i + 1);
  }
  if (text.length > 0 && text.charCodeAt(text.length - 1) !== 10) n++;
  return n;
}

/** Number of `\n` bytes in buf[start, end). */
export function countNewlines(buf: Buffer, start = 0, end = buf.length): number {
  let n = 0;
  let i = buf.indexOf(10, start);
  while (i !== -1 && i < end) {
    n++;
    i = buf.indexOf(10, i + 1);
  }
  return n;
}

function uuidOf(line: string): string {
  if (line.indexOf('"uuid"') === -1) return '';
  try {
    const v: unknown = JSON.parse(line);
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const u = (v as Record<string, unknown>)['uuid'];
      if (typeof u === 'string' && u !== '') return u;
    }
  } catch {
    /* a partial or malformed line has no identifier */
  }
  return '';
}

/** Last non-empty top-level `uuid`, scanning lines backwards; parses only lines mentioning `"uuid"`. */
export function lastUuid(text: string): string {
  let end = text.length;
  while (end > 0) {
    const nl = text.lastIndexOf('\n', end - 1);
    const u = uuidOf(text.slice(nl + 1, end));
    if (u !== '') return u;
    end = nl;
  }
  return '';
}

/** Same as lastUuid over buf[0, end), decoding one line at a time. */
export function lastUuidInBuffer(buf: Buffer, end = buf.length): string {
  while (end > 0) {
    const nl = buf.lastIndexOf(10, end - 1);
    const start = nl + 1;
    if (end > start && buf.subarray(start, end).indexOf('"uuid"') !== -1) {
      const u = uuidOf(buf.toString('utf8', start, end));
      if (u !== '') return u;
    }
    end = nl;
  }
  return '';
}

// ---------------------------------------------------------------------------
// Analysis

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

const AGENT_ID_RE = /agentId:\s*([A-Za-z0-9_-]+)/g;

function toolResultText(block: Obj): string {
  const c = block['content'];
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) {
    let s = '';
    for (const part of c) if (isObj(part) && typeof part['text'] === 'string') s += part['text'] + '\n';
    return s;
  }
  return '';
}

interface UsageEntry {
  input: number;
  cacheCreate: number;
  cacheRead: number;
  output: number;
}

/**
 * Analyse JSONL `text` whose first line is line `baseLine` of the transcript.
 * `position`/`lastIdentifier` describe all of `text`; the rest only lines at or
 * after `fromLine`. Malformed lines are skipped.
 */
export function analyzeJsonl(text: string, dialect: JsonlDialect, options: JsonlAnalyzeOptions = {}): TranscriptAnalysis {
  const baseLine = options.baseLine ?? 0;
  const fromLine = options.fromLine ?? 0;
  const result = emptyAnalysis(baseLine + countLines(text), dialect.hasUuid ? lastUuid(text) : '');

  const seenPaths = new Set<string>();
  const seenAgents = new Set<string>();
  const usage = new Map<string, UsageEntry>();
  const userNeedle = `"user"`;
  const assistantNeedle = `"assistant"`;

  let lineNo = baseLine;
  let pos = 0;
  const n = text.length;
  // Skip to fromLine without looking at the content.
  while (lineNo < fromLine && pos < n) {
    const nl = text.indexOf('\n', pos);
    pos = nl === -1 ? n : nl + 1;
    lineNo++;
  }

  while (pos < n) {
    let end = text.indexOf('\n', pos);
    if (end === -1) end = n;
    const start = pos;
    pos = end + 1;
    if (end - start < 2) continue;
    const line = text.slice(start, end);
    // Prefilter: only user/assistant lines matter.
    if (line.indexOf(assistantNeedle) === -1 && line.indexOf(userNeedle) === -1) continue;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      continue;
    }
    if (!isObj(v)) continue;
    const role = v[dialect.roleKey];
    const message = v['message'];
    if (!isObj(message)) continue;
    if (role === 'assistant') {
      analyzeAssistant(message, dialect, result, seenPaths, usage);
    } else if (role === 'user') {
      analyzeUser(message, dialect, result, seenAgents, dialect.isSystemUserLine?.(v) === true);
    }
  }

  if (dialect.hasUsage) {
    const t = result.tokenUsage;
    for (const u of usage.values()) {
      t.input_tokens += u.input;
      t.cache_creation_tokens += u.cacheCreate;
      t.cache_read_tokens += u.cacheRead;
      t.output_tokens += u.output;
    }
    t.api_call_count = usage.size;
  }
  return result;
}

function analyzeAssistant(
  message: Obj,
  dialect: JsonlDialect,
  result: TranscriptAnalysis,
  seenPaths: Set<string>,
  usage: Map<string, UsageEntry>,
): void {
  if (dialect.hasUsage) {
    const id = message['id'];
    const u = message['usage'];
    if (typeof id === 'string' && id !== '' && isObj(u)) {
      const output = num(u['output_tokens']);
      const prev = usage.get(id);
      if (prev === undefined || output > prev.output) {
        usage.set(id, {
          input: num(u['input_tokens']),
          cacheCreate: num(u['cache_creation_input_tokens']),
          cacheRead: num(u['cache_read_input_tokens']),
          output,
        });
      }
    }
  }
  const content = message['content'];
  if (!Array.isArray(content)) {
    if (typeof content === 'string' && content !== '') result.summary = content;
    return;
  }
  let text: string | undefined;
  for (const block of content) {
    if (!isObj(block)) continue;
    const type = block['type'];
    if (type === 'text') {
      const t = block['text'];
      if (text === undefined && typeof t === 'string' && t !== '') text = t;
    } else if (type === 'tool_use') {
      const name = block['name'];
      const input = block['input'];
      if (typeof name !== 'string' || !dialect.editTools.has(name) || !isObj(input)) continue;
      for (const key of dialect.pathKeys) {
        const p = input[key];
        if (typeof p === 'string' && p !== '') {
          if (!seenPaths.has(p)) {
            seenPaths.add(p);
            result.modifiedFiles.push(p);
          }
          break;
        }
      }
    }
  }
  if (text !== undefined) result.summary = text;
}

function analyzeUser(message: Obj, dialect: JsonlDialect, result: TranscriptAnalysis, seenAgents: Set<string>, notPrompt: boolean): void {
  const content = message['content'];
  let raw: string | undefined;
  if (typeof content === 'string') {
    raw = content;
  } else if (Array.isArray(content)) {
    const texts: string[] = [];
    for (const block of content) {
      if (!isObj(block)) continue;
      const type = block['type'];
      if (type === 'text') {
        if (typeof block['text'] === 'string') texts.push(block['text']);
      } else if (type === 'tool_result' && dialect.hasSubagents) {
        const t = toolResultText(block);
        if (t.indexOf('agentId') === -1) continue;
        for (const m of t.matchAll(AGENT_ID_RE)) {
          const id = m[1];
          if (id !== undefined && !seenAgents.has(id)) {
            seenAgents.add(id);
            result.subagentIds.push(id);
          }
        }
      }
    }
    if (texts.length > 0) raw = texts.join('\n\n');
  }
  if (raw === undefined || notPrompt) return;
  const prompt = dialect.cleanPrompt(raw);
  if (prompt !== '') result.prompts.push(prompt);
}

// ---------------------------------------------------------------------------
// Files

function unreadable(path: string, e: unknown): EntireError {
  return new EntireError('TRANSCRIPT_UNREADABLE', `cannot read transcript ${path}`, { cause: e, detail: { path } });
}

interface Window {
  /** Bytes of the file from `start` to its end. */
  buf: Buffer;
  start: number;
  baseLine: number;
  baseIdentifier: string;
}

/** Open `path` and read from a still-valid cursor (else from 0). undefined: the file does not exist. */
function readWindow(path: string, cursor: TranscriptCursor | undefined, maxLine: number): Window | undefined {
  let fd: number;
  try {
    const o = openTranscript(path);
    if (o === null) return undefined;
    fd = o.fd;
  } catch (e) {
    if (isEntireError(e)) throw e;
    throw unreadable(path, e);
  }
  try {
    const size = fstatSync(fd).size;
    let start = 0;
    let baseLine = 0;
    let baseIdentifier = '';
    if (
      cursor !== undefined &&
      Number.isSafeInteger(cursor.byte) &&
      Number.isSafeInteger(cursor.line) &&
      cursor.byte > 0 &&
      cursor.line > 0 &&
      cursor.byte <= size &&
      cursor.line <= maxLine &&
      readAt(fd, cursor.byte - 1, 1)[0] === 10
    ) {
      start = cursor.byte;
      baseLine = cursor.line;
      baseIdentifier = typeof cursor.identifier === 'string' ? cursor.identifier : '';
    }
    return { buf: readAt(fd, start, size - start), start, baseLine, baseIdentifier };
  } catch (e) {
    throw unreadable(path, e);
  } finally {
    closeSync(fd);
  }
}

function cursorAfter(w: Window, position: number, identifier: string): TranscriptCursor {
  const lastNl = w.buf.lastIndexOf(10);
  const tail = w.buf.length - (lastNl + 1);
  return {
    byte: w.start + lastNl + 1,
    line: tail > 0 ? position - 1 : position,
    identifier,
  };
}

/** Analyse a JSONL file from line `from`, reading only the bytes after a valid cursor. */
export function analyzeJsonlFile(
  path: string,
  dialect: JsonlDialect,
  options: { from?: number; cursor?: TranscriptCursor } = {},
): TranscriptFileResult {
  const from = Math.max(0, Math.floor(options.from ?? 0));
  const w = readWindow(path, options.cursor, from);
  if (w === undefined) return { analysis: emptyAnalysis(), exists: false };
  // Skip whole lines before `from` in the buffer, without decoding them.
  let pos = 0;
  let line = w.baseLine;
  while (line < from && pos < w.buf.length) {
    const nl = w.buf.indexOf(10, pos);
    pos = nl === -1 ? w.buf.length : nl + 1;
    line++;
  }
  const text = w.buf.toString('utf8', pos);
  const analysis = analyzeJsonl(text, dialect, { baseLine: line, fromLine: line });
  if (dialect.hasUuid && analysis.lastIdentifier === '') {
    analysis.lastIdentifier = lastUuidInBuffer(w.buf, pos) || w.baseIdentifier;
  }
  return { analysis, cursor: cursorAfter(w, analysis.position, analysis.lastIdentifier), exists: true };
}

/** Position and last identifier of a JSONL file; no JSON parsing except of the last `uuid` lines. */
export function jsonlFilePosition(path: string, dialect: JsonlDialect, cursor?: TranscriptCursor): TranscriptPositionResult {
  const w = readWindow(path, cursor, Number.MAX_SAFE_INTEGER);
  if (w === undefined) return { position: 0, lastIdentifier: '', exists: false };
  const nls = countNewlines(w.buf);
  const position = w.baseLine + nls + (w.buf.length > 0 && w.buf[w.buf.length - 1] !== 10 ? 1 : 0);
  const lastIdentifier = dialect.hasUuid ? lastUuidInBuffer(w.buf) || w.baseIdentifier : '';
  return { position, lastIdentifier, cursor: cursorAfter(w, position, lastIdentifier), exists: true };
}

/** The first `cwd` a JSONL transcript's lines carry (its project root), if any. */
export function jsonlCwd(text: string): string | undefined {
  const m = /"cwd"\s*:\s*"((?:[^"\\]|\\.)+)"/.exec(text);
  if (!m || m[1] === undefined) return undefined;
  try {
    return JSON.parse(`"${m[1]}"`) as string;
  } catch {
    return undefined;
  }
}

/** A JSON document with a `messages` array (how SPEC §2.7 tells a document from JSONL). */
export function isMessagesDocument(text: string): boolean {
  if (!text.trimStart().startsWith('{')) return false;
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === 'object' && Array.isArray((v as { messages?: unknown }).messages);
  } catch {
    return false;
  }
}
