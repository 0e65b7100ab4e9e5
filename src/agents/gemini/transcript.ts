/**
 * What a Gemini CLI session says (SPEC §7.2, SPEC-2 §B.7). Two forms:
 *
 * - JSONL (0.61 on; ./thread.ts): the agent's offsets are lines; a range
 *   from offset N is the messages first seen on line N or later;
 * - the legacy JSON document `{sessionId, projectHash, startTime,
 *   lastUpdated, messages[]}`: offsets are message indexes (v1 rules).
 *
 * A file's form comes from its name (`.json` is a document); text without a
 * name from its content. Readers take the whole file each time (a JSONL
 * record may patch or drop an earlier one) and return no cursor: a JSONL
 * file streams by in 1 MiB reads, keeping per message only what the
 * analysis needs (SPEC-2 §A.6); one read is kept per process for an
 * unchanged file, since a hook asks several questions of the same transcript.
 */
import { closeSync, fstatSync } from 'node:fs';
import { dirname } from 'node:path';
import { openTranscript } from '../../trust/transcript-file.js';
import { EntireError, isEntireError } from '../../errors.js';
import { emptyAnalysis, isMessagesDocument } from '../kit/jsonl.js';
import { readAt } from '../../fs-read.js';
import { crypto } from '../../builtins.js';
import type { AnalyzeFileOptions, TranscriptAnalysis, TranscriptFileResult, TranscriptFormat, TranscriptPositionResult } from '../types.js';
import { editedPath, geminiContentText, toolCalls, userPrompt } from './messages.js';
import { isObj } from '../kit/obj.js';
import { lastMessageId, MAX_PARSED_LINE, readGeminiThread, ThreadBuilder, type GeminiThread } from './thread.js';

type Obj = Record<string, unknown>;
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

export type GeminiForm = 'jsonl' | 'document';

/** The storage format of the session file at `path` (SPEC §2.7): a `.json` name is a legacy document. */
export function geminiFileFormat(path: string): TranscriptFormat {
  return path.endsWith('.json') ? 'json' : 'jsonl';
}

/** Whether text is the legacy document or JSONL: a document's first line is not a JSON value of its own. */
export function geminiForm(text: string): GeminiForm {
  if (isMessagesDocument(text)) return 'document';
  const t = text.trimStart();
  if (!t.startsWith('{')) return 'jsonl';
  const nl = t.indexOf('\n');
  try {
    const first: unknown = JSON.parse(nl < 0 ? t : t.slice(0, nl));
    // one line alone is JSONL only as a session's metadata line (`{}` is an empty document)
    return nl >= 0 || (isObj(first) && typeof first['sessionId'] === 'string') ? 'jsonl' : 'document';
  } catch {
    return 'document'; // a pretty-printed document (perhaps still being written)
  }
}

/** Parse a legacy document; throws TRANSCRIPT_UNREADABLE when it is not a JSON object. */
export function parseGeminiTranscript(text: string): Obj {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new EntireError('TRANSCRIPT_UNREADABLE', 'Gemini transcript is not valid JSON', { cause: e });
  }
  if (!isObj(v)) throw new EntireError('TRANSCRIPT_UNREADABLE', 'Gemini transcript is not a JSON object');
  return v;
}

/** A parsed session of either form: each message's value (a record, or a digest) with the offset it counts at. */
export interface Session<T> {
  position: number;
  lastIdentifier: string;
  /** Metadata: `projectHash`, `startTime`, … */
  meta: Obj;
  messages: Array<{ at: number; value: T }>;
  form: GeminiForm;
}

function fromThread<T>(t: GeminiThread<T>): Session<T> {
  return { position: t.position, lastIdentifier: lastMessageId(t), meta: t.meta, messages: t.messages.map((m) => ({ at: m.line, value: m.value })), form: 'jsonl' };
}

function fromDocument<T>(doc: Obj, digest: (m: Obj) => T): Session<T> {
  const list = Array.isArray(doc['messages']) ? doc['messages'] : [];
  const messages: Session<T>['messages'] = [];
  let lastIdentifier = '';
  list.forEach((m, i) => {
    if (!isObj(m)) return;
    messages.push({ at: i, value: digest(m) });
    if (typeof m['id'] === 'string' && m['id'] !== '') lastIdentifier = m['id'];
  });
  return { position: list.length, lastIdentifier, meta: doc, messages, form: 'document' };
}

/** Session text with whole message records (legacy documents throw TRANSCRIPT_UNREADABLE when broken; empty text is empty). */
export function parseGeminiSession(text: string, form: GeminiForm = geminiForm(text)): Session<Obj> {
  return parseWith(text, form, () => (m) => m);
}

function parseWith<T>(text: string, form: GeminiForm, digestFor: (form: GeminiForm) => (m: Obj) => T): Session<T> {
  if (form === 'jsonl') return fromThread(readGeminiThread(text, digestFor(form)));
  if (text.trim() === '') return { position: 0, lastIdentifier: '', meta: {}, messages: [], form };
  return fromDocument(parseGeminiTranscript(text), digestFor(form));
}

/** What the analysis needs of one message (kept instead of the record while a file streams by). */
interface Digest {
  type: unknown;
  /** `user`: the prompt (`""`: none). */
  prompt: string;
  /** `gemini`: its token counts, when it has them. */
  tokens?: { input: number; output: number; cached: number };
  /** `gemini`: its text. */
  text: string;
  /** `gemini`: the files its tool calls edit. */
  edits: string[];
  /** `gemini`: the model that wrote it, when the message says. */
  model?: string;
}

function digester(form: GeminiForm): (m: Obj) => Digest {
  return (m) => {
    const type = m['type'];
    if (type === 'user') return { type, prompt: userPrompt(m, form), text: '', edits: [] };
    if (type !== 'gemini') return { type, prompt: '', text: '', edits: [] }; // info, error and unknown types carry nothing we use
    const tokens = m['tokens'];
    const model = m['model'];
    const edits: string[] = [];
    for (const call of toolCalls(m)) {
      const p = editedPath(call);
      if (p !== undefined) edits.push(p);
    }
    return {
      type,
      prompt: '',
      ...(isObj(tokens) ? { tokens: { input: num(tokens['input']), output: num(tokens['output']), cached: num(tokens['cached']) } } : {}),
      text: geminiContentText(m['content']),
      edits,
      ...(typeof model === 'string' && model !== '' ? { model } : {}),
    };
  };
}

/** What the messages at offset `from` or later say. */
function analyzeSession(s: Session<Digest>, from: number): TranscriptAnalysis {
  const result = emptyAnalysis(s.position, s.lastIdentifier);
  const seen = new Set<string>();
  const t = result.tokenUsage;
  for (const { at, value: m } of s.messages) {
    if (at < from) continue;
    if (m.prompt !== '') result.prompts.push(m.prompt);
    // one model call per message id (JSONL: the thread keeps each id once, in its last version)
    if (m.tokens) {
      t.input_tokens += m.tokens.input;
      t.output_tokens += m.tokens.output;
      t.cache_read_tokens += m.tokens.cached;
      t.api_call_count += 1;
    }
    if (m.text.trim() !== '') result.summary = m.text;
    if (m.model !== undefined) result.model = m.model;
    for (const p of m.edits) {
      if (!seen.has(p)) {
        seen.add(p);
        result.modifiedFiles.push(p);
      }
    }
  }
  return result;
}

/** Pure analysis of session text from offset `from` (its form's unit). */
export function analyzeGeminiText(text: string, options: { from?: number } = {}): TranscriptAnalysis {
  return analyzeSession(parseWith(text, geminiForm(text), digester), Math.max(0, Math.floor(options.from ?? 0)));
}

/** Pure analysis of a legacy document (v1); empty text is an empty transcript. */
export function analyzeGeminiJson(text: string, options: { from?: number } = {}): TranscriptAnalysis {
  if (text.trim() === '') return emptyAnalysis();
  return analyzeSession(parseWith(text, 'document', digester), Math.max(0, Math.floor(options.from ?? 0)));
}

// ------------------------------------------------------------------ files

const READ_CHUNK = 1024 * 1024;

/** Feed a JSONL file to `b` line by line in ≤ 1 MiB reads; a line over the parse limit is passed as null. */
function streamLines(fd: number, size: number, b: ThreadBuilder<unknown>): void {
  let carry: Buffer[] = [];
  let carried = 0;
  let tooLong = false;
  const emit = (last: Buffer): void => {
    if (tooLong || carried + last.length > MAX_PARSED_LINE) b.push(null);
    else b.push((carry.length === 0 ? last : Buffer.concat([...carry, last])).toString('utf8'));
    carry = [];
    carried = 0;
    tooLong = false;
  };
  for (let off = 0; off < size; ) {
    const buf = readAt(fd, off, Math.min(READ_CHUNK, size - off));
    if (buf.length === 0) break;
    off += buf.length;
    let start = 0;
    for (let nl = buf.indexOf(10); nl !== -1; nl = buf.indexOf(10, start)) {
      emit(buf.subarray(start, nl));
      start = nl + 1;
    }
    const rest = buf.subarray(start);
    if (tooLong || carried + rest.length > MAX_PARSED_LINE) {
      tooLong = true; // only its length matters now
      carry = [];
    } else if (rest.length > 0) {
      carry.push(Buffer.from(rest)); // a copy: the chunk is not kept
    }
    carried += rest.length;
  }
  if (carried > 0) emit(Buffer.alloc(0));
}

let memo: { path: string; stamp: string; session: Session<Digest> } | null = null;

/** The analysed session file; null when it does not exist. One read per unchanged file and process. */
function readGeminiSession(path: string): Session<Digest> | null {
  let o: { fd: number; size: number } | null;
  try {
    o = openTranscript(path);
  } catch (e) {
    if (isEntireError(e)) throw e;
    throw new EntireError('TRANSCRIPT_UNREADABLE', `cannot read transcript ${path}`, { cause: e, detail: { path } });
  }
  if (o === null) return null;
  try {
    const st = fstatSync(o.fd);
    const stamp = `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
    if (memo && memo.path === path && memo.stamp === stamp) return memo.session;
    let session: Session<Digest>;
    if (path.endsWith('.json')) {
      // a legacy document is one value: it is parsed whole
      session = parseWith(readAt(o.fd, 0, o.size).toString('utf8'), 'document', digester);
    } else {
      const b = new ThreadBuilder(digester('jsonl'));
      streamLines(o.fd, o.size, b as ThreadBuilder<unknown>);
      session = fromThread(b.finish());
    }
    memo = { path, stamp, session };
    return session;
  } catch (e) {
    if (isEntireError(e)) throw e;
    throw new EntireError('TRANSCRIPT_UNREADABLE', `cannot read transcript ${path}`, { cause: e, detail: { path } });
  } finally {
    closeSync(o.fd);
  }
}

export function analyzeGeminiFile(path: string, options: AnalyzeFileOptions = {}): TranscriptFileResult {
  const s = readGeminiSession(path);
  if (s === null) return { analysis: emptyAnalysis(), exists: false };
  return { analysis: analyzeSession(s, Math.max(0, Math.floor(options.from ?? 0))), exists: true };
}

export function geminiFilePosition(path: string): TranscriptPositionResult {
  const s = readGeminiSession(path);
  if (s === null) return { position: 0, lastIdentifier: '', exists: false };
  return { position: s.position, lastIdentifier: s.lastIdentifier, exists: true };
}

// ------------------------------------------------------------------ project root

/**
 * The project root a session belongs to: the ancestor of one of its
 * absolute paths whose SHA-256 is the session's `projectHash`.
 */
export function geminiProjectRoot(meta: Obj, paths: readonly string[]): string | undefined {
  const hash = meta['projectHash'];
  if (typeof hash !== 'string' || hash === '') return undefined;
  for (const p of paths) {
    if (!p.startsWith('/')) continue;
    let dir = dirname(p);
    for (;;) {
      if (crypto().createHash('sha256').update(dir).digest('hex') === hash) return dir;
      const up = dirname(dir);
      if (up === dir) break;
      dir = up;
    }
  }
  return undefined;
}

/** The project root named by session text (any form), for repo-relative paths; undefined when it names none. */
export function geminiTextProjectRoot(text: string, paths: readonly string[]): string | undefined {
  try {
    return geminiProjectRoot(parseGeminiSession(text).meta, paths);
  } catch {
    return undefined;
  }
}

/** Recognisably a Gemini session (data that names no agent): a legacy document, or JSONL opening with its metadata line. */
export function isGeminiSessionText(text: string): boolean {
  if (isMessagesDocument(text)) return true;
  const t = text.trimStart();
  const nl = t.indexOf('\n');
  try {
    const first: unknown = JSON.parse(nl < 0 ? t : t.slice(0, nl));
    return isObj(first) && typeof first['sessionId'] === 'string' && typeof first['projectHash'] === 'string';
  } catch {
    return false;
  }
}
