/**
 * Scratch files under `.entire/tmp/` (SPEC §6.1 step 3, §6.8): written
 * atomically, named by validated IDs, never containing unredacted text.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeJson } from '../checkpoint/json.js';
import { validateSessionId } from '../session/state.js';
import { randomHex } from '../random.js';

export function tmpDir(root: string): string {
  return join(root, '.entire', 'tmp');
}

export interface PrePrompt {
  session_id: string;
  timestamp: string;
  untracked_files: string[];
  step_transcript_start: number;
  last_transcript_identifier: string;
  /** path → "<size>:<mtimeMs>" (or "-" when missing) for every path git status listed. */
  dirty_files: Record<string, string>;
}

export function prePromptPath(root: string, sid: string): string {
  validateSessionId(sid);
  return join(tmpDir(root), `pre-prompt-${sid}.json`);
}

export function writeScratch(path: string, value: unknown): void {
  const tmp = `${path}.${process.pid}.${randomHex(3)}.tmp`;
  const text = encodeJson(value);
  try {
    writeFileSync(tmp, text, { mode: 0o600 });
  } catch (e) {
    // the directory is there on every write but the first: make it only then
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    mkdirSync(join(path, '..'), { recursive: true, mode: 0o750 });
    writeFileSync(tmp, text, { mode: 0o600 });
  }
  renameSync(tmp, path);
}

export function readScratch<T>(path: string): T | null {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch {
    return null;
  }
}

export function removeScratch(path: string): void {
  rmSync(path, { force: true });
}

export function readPrePrompt(root: string, sid: string): PrePrompt | null {
  const p = readScratch<Partial<PrePrompt>>(prePromptPath(root, sid));
  if (!p || typeof p !== 'object') return null;
  return {
    session_id: String(p.session_id ?? sid),
    timestamp: String(p.timestamp ?? ''),
    untracked_files: Array.isArray(p.untracked_files) ? p.untracked_files.filter((x): x is string => typeof x === 'string') : [],
    step_transcript_start: typeof p.step_transcript_start === 'number' ? p.step_transcript_start : 0,
    last_transcript_identifier: String(p.last_transcript_identifier ?? ''),
    dirty_files: p.dirty_files && typeof p.dirty_files === 'object' ? (p.dirty_files as Record<string, string>) : {},
  };
}
