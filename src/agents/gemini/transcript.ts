/**
 * Gemini CLI transcripts (SPEC §7.2): one JSON document
 * `{sessionId, projectHash, startTime, lastUpdated, messages[]}`; message
 * `type` is `user|gemini|info|error`, `content` a string or `[{text}]`.
 * Offsets are message indexes.
 */
import { readTranscriptFile } from '../../trust/transcript-file.js';
import { dirname, join, resolve } from 'node:path';
import { EntireError } from '../../errors.js';
import { emptyAnalysis } from '../jsonl.js';
import { homeDir } from '../paths.js';
import { cleanPrompt } from '../text.js';
import type { AnalyzeFileOptions, TranscriptAnalysis, TranscriptFileResult, TranscriptPositionResult } from '../types.js';
import { crypto } from '../../builtins.js';

export const GEMINI_EDIT_TOOLS: ReadonlySet<string> = new Set(['write_file', 'edit_file', 'save_file', 'replace']);
const PATH_KEYS = ['file_path', 'path', 'filename'] as const;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** `content` as text: a string, or the `text` of each part joined with a blank line. */
export function geminiContentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    const parts: string[] = [];
    for (const p of content) {
      if (typeof p === 'string') parts.push(p);
      else if (isObj(p) && typeof p['text'] === 'string') parts.push(p['text']);
    }
    return parts.join('\n\n');
  }
  return '';
}

/** Parse a Gemini transcript; throws TRANSCRIPT_UNREADABLE when it is not a JSON object. */
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

function messagesOf(doc: Obj): unknown[] {
  return Array.isArray(doc['messages']) ? doc['messages'] : [];
}

function lastId(messages: readonly unknown[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (isObj(m) && typeof m['id'] === 'string' && m['id'] !== '') return m['id'];
  }
  return '';
}

/** Analyse a parsed transcript from message index `from`. */
export function analyzeGeminiDocument(doc: Obj, from = 0): TranscriptAnalysis {
  const messages = messagesOf(doc);
  const result = emptyAnalysis(messages.length, lastId(messages));
  const seen = new Set<string>();
  const t = result.tokenUsage;
  for (let i = Math.max(0, Math.floor(from)); i < messages.length; i++) {
    const m = messages[i];
    if (!isObj(m)) continue;
    const type = m['type'];
    if (type === 'user') {
      const prompt = cleanPrompt(geminiContentText(m['content']));
      if (prompt !== '') result.prompts.push(prompt);
      continue;
    }
    if (type !== 'gemini') continue; // info, error and unknown types carry nothing we use
    const tokens = m['tokens'];
    if (isObj(tokens)) {
      t.input_tokens += num(tokens['input']);
      t.output_tokens += num(tokens['output']);
      t.cache_read_tokens += num(tokens['cached']);
      t.api_call_count += 1;
    }
    const text = geminiContentText(m['content']);
    if (text !== '') result.summary = text;
    const calls = m['toolCalls'];
    if (!Array.isArray(calls)) continue;
    for (const call of calls) {
      if (!isObj(call) || typeof call['name'] !== 'string' || !GEMINI_EDIT_TOOLS.has(call['name'])) continue;
      const args = call['args'];
      if (!isObj(args)) continue;
      for (const k of PATH_KEYS) {
        const p = args[k];
        if (typeof p === 'string' && p !== '') {
          if (!seen.has(p)) {
            seen.add(p);
            result.modifiedFiles.push(p);
          }
          break;
        }
      }
    }
  }
  return result;
}

/** Pure analysis of transcript text; empty text is an empty transcript. */
export function analyzeGeminiJson(text: string, options: { from?: number } = {}): TranscriptAnalysis {
  if (text.trim() === '') return emptyAnalysis();
  return analyzeGeminiDocument(parseGeminiTranscript(text), options.from ?? 0);
}

function readText(path: string): string | undefined {
  try {
    const buf = readTranscriptFile(path);
    return buf === null ? undefined : buf.toString('utf8');
  } catch (e) {
    if (e instanceof EntireError) throw e;
    const code = (e as { code?: unknown }).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new EntireError('TRANSCRIPT_UNREADABLE', `cannot read transcript ${path}`, { cause: e, detail: { path } });
  }
}

export function analyzeGeminiFile(path: string, options: AnalyzeFileOptions = {}): TranscriptFileResult {
  const text = readText(path);
  if (text === undefined) return { analysis: emptyAnalysis(), exists: false };
  return { analysis: analyzeGeminiJson(text, options.from !== undefined ? { from: options.from } : {}), exists: true };
}

export function geminiFilePosition(path: string): TranscriptPositionResult {
  const text = readText(path);
  if (text === undefined || text.trim() === '') return { position: 0, lastIdentifier: '', exists: text !== undefined };
  const messages = messagesOf(parseGeminiTranscript(text));
  return { position: messages.length, lastIdentifier: lastId(messages), exists: true };
}

/** SHA-256 hex of the project root: Gemini's `projectHash`. */
export function geminiProjectHash(repoRoot: string): string {
  return crypto().createHash('sha256').update(resolve(repoRoot)).digest('hex');
}

/**
 * The project root a transcript belongs to: the ancestor of one of its
 * absolute paths whose SHA-256 is the document's `projectHash`.
 */
export function geminiProjectRoot(doc: Obj, paths: readonly string[]): string | undefined {
  const hash = doc['projectHash'];
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

/** Where Gemini CLI keeps sessions (SPEC-2 §A.5): `~/.gemini/tmp` (override: ENTIRE_TEST_GEMINI_PROJECT_DIR). */
export function geminiTranscriptRoot(): string {
  return process.env['ENTIRE_TEST_GEMINI_PROJECT_DIR'] || join(homeDir(), '.gemini', 'tmp');
}

/** `~/.gemini/tmp/<projectHash>/chats` (override: ENTIRE_TEST_GEMINI_PROJECT_DIR). */
export function geminiChatsDir(repoRoot: string): string {
  const override = process.env['ENTIRE_TEST_GEMINI_PROJECT_DIR'];
  if (override) return override;
  return join(homeDir(), '.gemini', 'tmp', geminiProjectHash(repoRoot), 'chats');
}

/** Where a restored session goes; Gemini lists `chats/session-*.json` and matches by `sessionId`. */
export function geminiRestorePath(repoRoot: string, sessionId: string): string {
  return join(geminiChatsDir(repoRoot), `session-${sessionId}.json`);
}
