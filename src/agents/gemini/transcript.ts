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
 * record may patch or drop an earlier one) and return no cursor; one parse
 * is kept per process for an unchanged file, since a hook asks several
 * questions of the same transcript.
 */
import { closeSync, fstatSync } from 'node:fs';
import { dirname } from 'node:path';
import { openTranscript } from '../../trust/transcript-file.js';
import { EntireError, isEntireError } from '../../errors.js';
import { emptyAnalysis, isMessagesDocument } from '../jsonl.js';
import { readAt } from '../../fs-read.js';
import { crypto } from '../../builtins.js';
import type { AnalyzeFileOptions, TranscriptAnalysis, TranscriptFileResult, TranscriptFormat, TranscriptPositionResult } from '../types.js';
import { editedPath, geminiContentText, isObj, toolCalls, userPrompt } from './messages.js';
import { lastMessageId, readGeminiThread, type GeminiThread } from './thread.js';

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

/** A parsed session of either form: messages with the offset each counts at. */
interface Session {
  position: number;
  lastIdentifier: string;
  /** Metadata: `projectHash`, `startTime`, … */
  meta: Obj;
  messages: Array<{ at: number; record: Obj }>;
  form: GeminiForm;
}

function fromThread(t: GeminiThread): Session {
  return { position: t.position, lastIdentifier: lastMessageId(t), meta: t.meta, messages: t.messages.map((m) => ({ at: m.line, record: m.record })), form: 'jsonl' };
}

function fromDocument(doc: Obj): Session {
  const list = Array.isArray(doc['messages']) ? doc['messages'] : [];
  const messages: Session['messages'] = [];
  let lastIdentifier = '';
  list.forEach((m, i) => {
    if (!isObj(m)) return;
    messages.push({ at: i, record: m });
    if (typeof m['id'] === 'string' && m['id'] !== '') lastIdentifier = m['id'];
  });
  return { position: list.length, lastIdentifier, meta: doc, messages, form: 'document' };
}

/** Parse text in the given form (legacy documents throw TRANSCRIPT_UNREADABLE when broken; empty text is empty). */
export function parseGeminiSession(text: string, form: GeminiForm = geminiForm(text)): Session {
  if (form === 'jsonl') return fromThread(readGeminiThread(text));
  if (text.trim() === '') return { position: 0, lastIdentifier: '', meta: {}, messages: [], form };
  return fromDocument(parseGeminiTranscript(text));
}

/** What the messages at offset `from` or later say. */
function analyzeSession(s: Session, from: number): TranscriptAnalysis {
  const result = emptyAnalysis(s.position, s.lastIdentifier);
  const seen = new Set<string>();
  const t = result.tokenUsage;
  for (const { at, record: m } of s.messages) {
    if (at < from) continue;
    if (m['type'] === 'user') {
      const prompt = userPrompt(m, s.form);
      if (prompt !== '') result.prompts.push(prompt);
      continue;
    }
    if (m['type'] !== 'gemini') continue; // info, error and unknown types carry nothing we use
    // one model call per message id (JSONL: the thread keeps each id once, in its last version)
    const tokens = m['tokens'];
    if (isObj(tokens)) {
      t.input_tokens += num(tokens['input']);
      t.output_tokens += num(tokens['output']);
      t.cache_read_tokens += num(tokens['cached']);
      t.api_call_count += 1;
    }
    const text = geminiContentText(m['content']);
    if (text.trim() !== '') result.summary = text;
    for (const call of toolCalls(m)) {
      const p = editedPath(call);
      if (p !== undefined && !seen.has(p)) {
        seen.add(p);
        result.modifiedFiles.push(p);
      }
    }
  }
  return result;
}

/** Pure analysis of session text from offset `from` (its form's unit). */
export function analyzeGeminiText(text: string, options: { from?: number } = {}): TranscriptAnalysis {
  return analyzeSession(parseGeminiSession(text), Math.max(0, Math.floor(options.from ?? 0)));
}

/** Pure analysis of a legacy document (v1); empty text is an empty transcript. */
export function analyzeGeminiJson(text: string, options: { from?: number } = {}): TranscriptAnalysis {
  if (text.trim() === '') return emptyAnalysis();
  return analyzeSession(parseGeminiSession(text, 'document'), Math.max(0, Math.floor(options.from ?? 0)));
}

// ------------------------------------------------------------------ files

let memo: { path: string; stamp: string; session: Session } | null = null;

/** The parsed session file; null when it does not exist. One parse per unchanged file and process. */
export function readGeminiSession(path: string): Session | null {
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
    const text = readAt(o.fd, 0, o.size).toString('utf8');
    const form: GeminiForm = path.endsWith('.json') ? 'document' : path.endsWith('.jsonl') ? 'jsonl' : geminiForm(text);
    const session = parseGeminiSession(text, form);
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
