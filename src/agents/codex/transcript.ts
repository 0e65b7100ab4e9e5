/**
 * Codex rollout files (SPEC-2 §A.5, §C.1): where they live and how they are
 * read. `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<local time>-<id>.jsonl`,
 * `CODEX_HOME` defaulting to `~/.codex`.
 */
import { closeSync, fstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { isEntireError } from '../../errors.js';
import { lineWindows } from '../../trust/transcript-lines.js';
import { emptyAnalysis } from '../kit/jsonl.js';
import { homeDir } from '../kit/home-paths.js';
import type { AnalyzeFileOptions, TranscriptCursor, TranscriptFileResult, TranscriptPositionResult } from '../types.js';
import { ORDINAL_RE, RolloutReader } from './rollout.js';
import { isObj } from '../kit/obj.js';
import { openTranscriptFile, resumeAt, unreadable } from '../kit/jsonl-cursor.js';

/** `$CODEX_HOME`, else `~/.codex`. */
export function codexHome(env: NodeJS.ProcessEnv = process.env): string {
  return env['CODEX_HOME'] || join(homeDir(), '.codex');
}

/** Where every rollout lives (override: ENTIRE_TEST_CODEX_PROJECT_DIR). */
export function codexTranscriptRoot(): string {
  return process.env['ENTIRE_TEST_CODEX_PROJECT_DIR'] || join(codexHome(), 'sessions');
}

/** Feed every line of [start, size) to `onLine` (null: a line too long to parse; `terminated`: it ends in `\n`). */
function walk(fd: number, start: number, size: number, onLine: (line: string | null, terminated: boolean) => void): { complete: number } {
  let complete = start;
  for (const w of lineWindows(fd, start, size)) {
    if (w.kind === 'oversized') {
      onLine(null, w.terminated);
      if (w.terminated) complete = w.start + w.bytes + 1;
      continue;
    }
    const text = w.buf.toString('utf8');
    let pos = 0;
    while (pos < text.length) {
      let nl = text.indexOf('\n', pos);
      const terminated = nl !== -1;
      if (nl === -1) nl = text.length;
      onLine(text.slice(pos, nl), terminated);
      pos = nl + 1;
    }
    if (w.terminated) complete = w.start + w.buf.length;
  }
  return { complete };
}

/** The rollout analysed from line `from`: always the whole file (a range needs the token snapshot before it). */
export function analyzeCodexFile(path: string, options: AnalyzeFileOptions = {}): TranscriptFileResult {
  const o = openTranscriptFile(path);
  if (o === null) return { analysis: emptyAnalysis(), exists: false };
  const reader = new RolloutReader(Math.max(0, Math.floor(options.from ?? 0)));
  try {
    walk(o.fd, 0, o.size, (line) => (line === null ? reader.skip() : reader.feed(line)));
  } catch (e) {
    throw unreadable(path, e);
  } finally {
    closeSync(o.fd);
  }
  return { analysis: reader.result(), exists: true };
}

/** Position (lines) and last ordinal, reading only what follows a still-valid cursor. */
export function codexFilePosition(path: string, cursor?: TranscriptCursor): TranscriptPositionResult {
  const o = openTranscriptFile(path);
  if (o === null) return { position: 0, lastIdentifier: '', exists: false };
  try {
    const resume = resumeAt(o.fd, fstatSync(o.fd).size, cursor, Number.MAX_SAFE_INTEGER);
    const start = resume.start;
    let line = resume.line;
    let identifier = resume.identifier;
    let completeLines = line;
    let completeIdentifier = identifier;
    const { complete } = walk(o.fd, start, o.size, (text, terminated) => {
      line++;
      const ordinal = text === null ? undefined : ORDINAL_RE.exec(text.slice(0, 160))?.[1];
      if (ordinal !== undefined) identifier = ordinal;
      if (terminated) {
        completeLines = line;
        completeIdentifier = identifier;
      }
    });
    // the cursor stops after the last complete line (a partly written one is read again)
    return { position: line, lastIdentifier: identifier, cursor: { byte: complete, line: completeLines, identifier: completeIdentifier }, exists: true };
  } catch (e) {
    if (isEntireError(e)) throw e;
    throw unreadable(path, e);
  } finally {
    closeSync(o.fd);
  }
}

/** `session_meta` of a rollout's first line (undefined: not a rollout). */
export function sessionMeta(text: string): Record<string, unknown> | undefined {
  const nl = text.indexOf('\n');
  try {
    const v: unknown = JSON.parse(nl < 0 ? text : text.slice(0, nl));
    return isObj(v) && v['type'] === 'session_meta' && isObj(v['payload']) ? v['payload'] : undefined;
  } catch {
    return undefined;
  }
}

/** The session's rollout under `root`: any dated `YYYY/MM/DD/rollout-*-<id>.jsonl` (the newest date first). */
export function findRollout(root: string, sessionId: string): string | undefined {
  const suffix = `-${sessionId}.jsonl`;
  const dirs = (p: string, re: RegExp): string[] => {
    try {
      return readdirSync(p, { withFileTypes: true })
        .filter((d) => d.isDirectory() && re.test(d.name))
        .map((d) => d.name)
        .sort()
        .reverse();
    } catch {
      return [];
    }
  };
  for (const y of dirs(root, /^\d{4}$/)) {
    for (const m of dirs(join(root, y), /^\d{2}$/)) {
      for (const d of dirs(join(root, y, m), /^\d{2}$/)) {
        let names: string[];
        try {
          names = readdirSync(join(root, y, m, d));
        } catch {
          continue;
        }
        const hit = names.find((n) => n.startsWith('rollout-') && n.endsWith(suffix));
        if (hit !== undefined) return join(root, y, m, d, hit);
      }
    }
  }
  return undefined;
}
