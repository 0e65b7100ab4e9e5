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
 *   line(s) that mention `"uuid"`;
 * - files are read in line-aligned windows of at most 1 MiB (SPEC-2 §A.6,
 *   src/trust/transcript-lines.ts): a hook holds one window, never the
 *   transcript; a line over 16 MiB counts for positions and is not parsed.
 */
import type { TokenUsage, TranscriptAnalysis, TranscriptCursor, TranscriptFileResult, TranscriptPositionResult } from '../types.js';
import { isObj, type Obj } from './obj.js';
import { openAtCursor, walkTranscript } from './jsonl-cursor.js';

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
  /** The model an assistant line's `message` names (undefined: none, or not a real model call). */
  modelOf?(message: Record<string, unknown>): string | undefined;
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

export { countNewlines } from './jsonl-cursor.js';

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
  const a = new JsonlAnalyzer(dialect, baseLine);
  a.feed(text, options.fromLine ?? 0);
  return a.result(baseLine + countLines(text), dialect.hasUuid ? lastUuid(text) : '');
}

/**
 * The analysis fed piece by piece: whole lines in order (a file read in
 * windows), the same result as one analyzeJsonl over their concatenation.
 * What spans lines (usage per message id, paths and agents seen, the last
 * summary) lives here between pieces.
 */
export class JsonlAnalyzer {
  private readonly result_: TranscriptAnalysis = emptyAnalysis();
  private readonly seenPaths = new Set<string>();
  private readonly seenAgents = new Set<string>();
  private readonly usage = new Map<string, UsageEntry>();
  /** Absolute number of the next line fed. */
  line: number;

  constructor(
    private readonly dialect: JsonlDialect,
    baseLine = 0,
  ) {
    this.line = baseLine;
  }

  /** Whole lines (the last may lack its `\n`); lines before `fromLine` are only counted. */
  feed(text: string, fromLine = 0): void {
    const userNeedle = `"user"`;
    const assistantNeedle = `"assistant"`;
    let pos = 0;
    const n = text.length;
    // Skip to fromLine without looking at the content.
    while (this.line < fromLine && pos < n) {
      const nl = text.indexOf('\n', pos);
      pos = nl === -1 ? n : nl + 1;
      this.line++;
    }
    while (pos < n) {
      let end = text.indexOf('\n', pos);
      if (end === -1) end = n;
      const start = pos;
      pos = end + 1;
      this.line++;
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
      const role = v[this.dialect.roleKey];
      const message = v['message'];
      if (!isObj(message)) continue;
      if (role === 'assistant') {
        analyzeAssistant(message, this.dialect, this.result_, this.seenPaths, this.usage);
      } else if (role === 'user') {
        analyzeUser(message, this.dialect, this.result_, this.seenAgents, this.dialect.isSystemUserLine?.(v) === true);
      }
    }
  }

  /** A line that is not parsed (over SPEC-2 §A.6's limit): it only counts. */
  skipLine(): void {
    this.line++;
  }

  /** The analysis so far, with the position and last identifier the caller tracked. */
  result(position: number, lastIdentifier: string): TranscriptAnalysis {
    const r: TranscriptAnalysis = {
      ...this.result_,
      position,
      lastIdentifier,
      modifiedFiles: [...this.result_.modifiedFiles],
      prompts: [...this.result_.prompts],
      subagentIds: [...this.result_.subagentIds],
      tokenUsage: emptyTokenUsage(),
    };
    if (this.dialect.hasUsage) {
      const t = r.tokenUsage;
      for (const u of this.usage.values()) {
        t.input_tokens += u.input;
        t.cache_creation_tokens += u.cacheCreate;
        t.cache_read_tokens += u.cacheRead;
        t.output_tokens += u.output;
      }
      t.api_call_count = this.usage.size;
    }
    return r;
  }
}

function analyzeAssistant(
  message: Obj,
  dialect: JsonlDialect,
  result: TranscriptAnalysis,
  seenPaths: Set<string>,
  usage: Map<string, UsageEntry>,
): void {
  const model = dialect.modelOf?.(message);
  if (model !== undefined) result.model = model;
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

/** The last `uuid` of a window, for a dialect whose lines carry one. */
const lastUuidOf = (dialect: JsonlDialect): ((buf: Buffer) => string) | null => (dialect.hasUuid ? (buf) => lastUuidInBuffer(buf) : null);

/** Analyse a JSONL file from line `from`, reading only the bytes after a valid cursor. */
export function analyzeJsonlFile(
  path: string,
  dialect: JsonlDialect,
  options: { from?: number; cursor?: TranscriptCursor } = {},
): TranscriptFileResult {
  const from = Math.max(0, Math.floor(options.from ?? 0));
  const o = openAtCursor(path, options.cursor, from);
  if (o === undefined) return { analysis: emptyAnalysis(), exists: false };
  const a = new JsonlAnalyzer(dialect, o.line);
  const walked = walkTranscript(path, o, lastUuidOf(dialect), (buf, firstLine) => {
    // whole lines before `from` are counted without being decoded
    let pos = 0;
    let line = firstLine;
    while (line < from && pos < buf.length) {
      const nl = buf.indexOf(10, pos);
      pos = nl === -1 ? buf.length : nl + 1;
      line++;
    }
    a.line = line;
    if (pos < buf.length) a.feed(buf.toString('utf8', pos), from);
  });
  const analysis = a.result(walked.position, walked.lastIdentifier);
  return { analysis, cursor: walked.cursor, exists: true };
}

/** Position and last identifier of a JSONL file; no JSON parsing except of the last `uuid` lines. */
export function jsonlFilePosition(path: string, dialect: JsonlDialect, cursor?: TranscriptCursor): TranscriptPositionResult {
  const o = openAtCursor(path, cursor, Number.MAX_SAFE_INTEGER);
  if (o === undefined) return { position: 0, lastIdentifier: '', exists: false };
  const walked = walkTranscript(path, o, lastUuidOf(dialect), null);
  return { position: walked.position, lastIdentifier: walked.lastIdentifier, cursor: walked.cursor, exists: true };
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
