/**
 * Copilot CLI's transcript (SPEC-2 §C.3): append-only JSONL at
 * `${COPILOT_HOME:-~/.copilot}/session-state/<sid>/events.jsonl`. Position =
 * lines; identifier = the last record's `id`. Files are read in line-aligned
 * windows of at most 1 MiB from a saved cursor (SPEC-2 §A.6), so a hook reads
 * only what was appended; a line over 16 MiB only counts.
 */
import { closeSync, fstatSync } from 'node:fs';
import { join } from 'node:path';
import { EntireError, isEntireError } from '../../errors.js';
import { readAt } from '../../fs-read.js';
import { openTranscript } from '../../trust/transcript-file.js';
import { lineWindows } from '../../trust/transcript-lines.js';
import { countLines, countNewlines, emptyAnalysis } from '../jsonl.js';
import { homeDir } from '../paths.js';
import type { AnalyzeFileOptions, TranscriptAnalysis, TranscriptCursor, TranscriptFileResult, TranscriptPositionResult } from '../types.js';
import { CopilotAnalyzer } from './events.js';
import { isObj } from '../kit/obj.js';

// ------------------------------------------------------------------ where

/** `$COPILOT_HOME`, else `~/.copilot`. */
export function copilotHome(env: NodeJS.ProcessEnv = process.env): string {
  return env['COPILOT_HOME'] || join(env['HOME'] || homeDir(), '.copilot');
}

/** Where every session lives (SPEC-2 §A.5; override: ENTIRE_TEST_COPILOT_CLI_PROJECT_DIR). */
export function copilotTranscriptRoot(): string {
  return process.env['ENTIRE_TEST_COPILOT_CLI_PROJECT_DIR'] || join(copilotHome(), 'session-state');
}

/** `session-state/<sid>/events.jsonl`: where the CLI writes a session, and where `copilot --resume=<sid>` finds it. */
export function copilotTranscriptPath(_repoRoot: string, sessionId: string): string {
  return join(copilotTranscriptRoot(), sessionId, 'events.jsonl');
}

// ------------------------------------------------------------------ identifiers

function idOf(line: string): string {
  if (line.indexOf('"id"') === -1) return '';
  try {
    const v: unknown = JSON.parse(line);
    return isObj(v) && typeof v['id'] === 'string' ? v['id'] : '';
  } catch {
    return ''; // a partial line has no identifier
  }
}

/** The last record `id` in buf[0, end), decoding one line at a time from the end. */
function lastIdInBuffer(buf: Buffer, end = buf.length): string {
  while (end > 0) {
    const nl = buf.lastIndexOf(10, end - 1);
    if (end > nl + 1) {
      const id = idOf(buf.toString('utf8', nl + 1, end));
      if (id !== '') return id;
    }
    end = nl;
  }
  return '';
}

// ------------------------------------------------------------------ text

/** Feed whole lines of `text` (first line = absolute line `line`), skipping those before `from`. */
function feed(a: CopilotAnalyzer, text: string, line: number, from: number): void {
  let pos = 0;
  while (pos < text.length) {
    let end = text.indexOf('\n', pos);
    if (end === -1) end = text.length;
    if (line >= from) a.line(text.slice(pos, end));
    pos = end + 1;
    line++;
  }
}

/** Pure analysis of events text whose first line is transcript line `baseLine`, from line `from` on. */
export function analyzeCopilotText(text: string, options: { from?: number; baseLine?: number } = {}): TranscriptAnalysis {
  const base = options.baseLine ?? 0;
  const from = options.from ?? 0;
  const a = new CopilotAnalyzer(from <= 0 && base === 0);
  feed(a, text, base, from);
  return a.result(base + countLines(text), lastIdInBuffer(Buffer.from(text, 'utf8')));
}

// ------------------------------------------------------------------ files

function unreadable(path: string, e: unknown): EntireError {
  return new EntireError('TRANSCRIPT_UNREADABLE', `cannot read transcript ${path}`, { cause: e, detail: { path } });
}

interface Opened {
  fd: number;
  size: number;
  start: number;
  line: number;
  identifier: string;
}

/** Open `path` where a still-valid cursor points (a line start not after `maxLine`), else at 0; undefined: no file. */
function openAt(path: string, cursor: TranscriptCursor | undefined, maxLine: number): Opened | undefined {
  let o: { fd: number; size: number } | null;
  try {
    o = openTranscript(path);
  } catch (e) {
    if (isEntireError(e)) throw e;
    throw unreadable(path, e);
  }
  if (o === null) return undefined;
  try {
    const size = fstatSync(o.fd).size;
    const c = cursor;
    if (
      c !== undefined &&
      Number.isSafeInteger(c.byte) &&
      Number.isSafeInteger(c.line) &&
      c.byte > 0 &&
      c.line > 0 &&
      c.byte <= size &&
      c.line <= maxLine &&
      readAt(o.fd, c.byte - 1, 1)[0] === 10
    ) {
      return { fd: o.fd, size, start: c.byte, line: c.line, identifier: typeof c.identifier === 'string' ? c.identifier : '' };
    }
    return { fd: o.fd, size, start: 0, line: 0, identifier: '' };
  } catch (e) {
    closeSync(o.fd);
    throw unreadable(path, e);
  }
}

/** Walk an opened file's lines window by window; `onLines` gets each window's text and first line number. */
function walk(path: string, o: Opened, onLines: ((text: string, firstLine: number) => void) | null): TranscriptPositionResult {
  let line = o.line;
  let identifier = o.identifier;
  let complete = o.start;
  let completeLines = o.line;
  try {
    for (const w of lineWindows(o.fd, o.start, o.size)) {
      if (w.kind === 'oversized') {
        line++;
      } else {
        onLines?.(w.buf.toString('utf8'), line);
        identifier = lastIdInBuffer(w.buf) || identifier;
        line += countNewlines(w.buf) + (w.terminated ? 0 : 1);
      }
      if (w.terminated) {
        complete = w.kind === 'oversized' ? w.start + w.bytes + 1 : w.start + w.buf.length;
        completeLines = line;
      }
    }
  } catch (e) {
    throw unreadable(path, e);
  } finally {
    closeSync(o.fd);
  }
  return { position: line, lastIdentifier: identifier, cursor: { byte: complete, line: completeLines, identifier }, exists: true };
}

export function analyzeCopilotFile(path: string, options: AnalyzeFileOptions = {}): TranscriptFileResult {
  const from = Math.max(0, Math.floor(options.from ?? 0));
  const o = openAt(path, options.cursor, from);
  if (o === undefined) return { analysis: emptyAnalysis(), exists: false };
  const a = new CopilotAnalyzer(from === 0);
  const w = walk(path, o, (text, firstLine) => {
    if (firstLine + countLines(text) <= from) return; // a window wholly before `from` is only counted
    feed(a, text.endsWith('\n') ? text.slice(0, -1) : text, firstLine, from);
  });
  return { analysis: a.result(w.position, w.lastIdentifier), cursor: w.cursor!, exists: true };
}

export function copilotFilePosition(path: string, cursor?: TranscriptCursor): TranscriptPositionResult {
  const o = openAt(path, cursor, Number.MAX_SAFE_INTEGER);
  if (o === undefined) return { position: 0, lastIdentifier: '', exists: false };
  return walk(path, o, null);
}

// ------------------------------------------------------------------ what the text says about itself

/** The first record, when it is Copilot's `session.start`. */
function sessionStart(text: string): Record<string, unknown> | undefined {
  const t = text.trimStart();
  const nl = t.indexOf('\n');
  try {
    const first: unknown = JSON.parse(nl < 0 ? t : t.slice(0, nl));
    return isObj(first) && first['type'] === 'session.start' && isObj(first['data']) ? first['data'] : undefined;
  } catch {
    return undefined;
  }
}

/** Recognisably a Copilot CLI session (data that names no agent): it opens with a `session.start` from its producer. */
export function isCopilotEventsText(text: string): boolean {
  const d = sessionStart(text);
  return d !== undefined && (d['producer'] === 'copilot-agent' || typeof d['copilotVersion'] === 'string');
}

/** The project root the session ran in (`session.start` `context.gitRoot`, else `context.cwd`). */
export function copilotProjectRoot(text: string): string | undefined {
  const ctx = sessionStart(text)?.['context'];
  if (!isObj(ctx)) return undefined;
  for (const k of ['gitRoot', 'cwd']) if (typeof ctx[k] === 'string' && ctx[k] !== '') return ctx[k] as string;
  return undefined;
}
