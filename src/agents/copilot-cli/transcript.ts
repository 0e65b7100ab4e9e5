/**
 * Copilot CLI's transcript (SPEC-2 §C.3): append-only JSONL at
 * `${COPILOT_HOME:-~/.copilot}/session-state/<sid>/events.jsonl`. Position =
 * lines; identifier = the last record's `id`. Files are read in line-aligned
 * windows of at most 1 MiB from a saved cursor (SPEC-2 §A.6), so a hook reads
 * only what was appended; a line over 16 MiB only counts.
 */
import { join } from 'node:path';
import { countLines, emptyAnalysis } from '../kit/jsonl.js';
import { openAtCursor, walkTranscript } from '../kit/jsonl-cursor.js';
import { homeDir } from '../kit/home-paths.js';
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

export function analyzeCopilotFile(path: string, options: AnalyzeFileOptions = {}): TranscriptFileResult {
  const from = Math.max(0, Math.floor(options.from ?? 0));
  const o = openAtCursor(path, options.cursor, from);
  if (o === undefined) return { analysis: emptyAnalysis(), exists: false };
  const a = new CopilotAnalyzer(from === 0);
  const w = walkTranscript(path, o, lastIdInBuffer, (buf, firstLine) => {
    const text = buf.toString('utf8');
    if (firstLine + countLines(text) <= from) return; // a window wholly before `from` is only counted
    feed(a, text.endsWith('\n') ? text.slice(0, -1) : text, firstLine, from);
  });
  return { analysis: a.result(w.position, w.lastIdentifier), cursor: w.cursor, exists: true };
}

export function copilotFilePosition(path: string, cursor?: TranscriptCursor): TranscriptPositionResult {
  const o = openAtCursor(path, cursor, Number.MAX_SAFE_INTEGER);
  if (o === undefined) return { position: 0, lastIdentifier: '', exists: false };
  return { ...walkTranscript(path, o, lastIdInBuffer, null), exists: true };
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
