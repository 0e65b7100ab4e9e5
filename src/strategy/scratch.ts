/**
 * Scratch files under `.entire/tmp/` (SPEC §6.1 step 3, §6.8): written
 * atomically, named by validated IDs, never containing unredacted text.
 * `.entire/` is in the work tree, so whatever a cloned repository committed
 * there is untrusted: every write, read and deletion goes through
 * src/trust/confined.ts (no symlink followed, SPEC-2 §A.4).
 */
import { closeSync, constants, readdirSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { onExit } from '../exit-tasks.js';
import { randomHex } from '../random.js';
import { encodeJson } from '../go-json.js';
import { validateSessionId } from '../trust/ids.js';
import { confinedDir, confinedDirOrNull, openIn, readFileNoFollow, removeConfined, writeFileIn } from '../trust/confined.js';

/** `.entire/tmp` relative to the worktree root. */
export const TMP_REL = '.entire/tmp';

/** `<root>/.entire/tmp` as a path (not checked: only for names and messages). */
export function tmpDir(root: string): string {
  return join(root, '.entire', 'tmp');
}

/** `<root>/.entire/tmp[/sub]`, every component a real directory (made when missing); throws UNSAFE_PATH. */
export function safeTmpDir(root: string, sub = ''): string {
  return confinedDir(root, sub ? `${TMP_REL}/${sub}` : TMP_REL, { mode: 0o750 });
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

export function prePromptName(sid: string): string {
  validateSessionId(sid);
  return `pre-prompt-${sid}.json`;
}

export function writeScratch(root: string, name: string, value: unknown): void {
  writeFileIn(safeTmpDir(root), name, encodeJson(value));
}

export function readScratch<T>(root: string, name: string): T | null {
  let dir: string | null;
  try {
    dir = confinedDirOrNull(root, TMP_REL, { create: false });
  } catch {
    return null; // a planted symlink: nothing of ours is there
  }
  if (dir === null) return null;
  return parseJson<T>(readFileNoFollow(join(dir, name)));
}

/** A JSON file outside the work tree (the git dir), read without following a symlink. */
export function readJsonFile<T>(path: string): T | null {
  return parseJson<T>(readFileNoFollow(path));
}

function parseJson<T>(buf: Buffer | null): T | null {
  if (!buf) return null;
  try {
    return JSON.parse(buf.toString('utf8')) as T;
  } catch {
    return null;
  }
}

/** The names we create in `.entire/tmp` (only these are ever deleted there, SPEC-2 §A.4). */
export function isScratchName(name: string): boolean {
  return /^(?:pre-prompt-.{1,128}\.json|pre-task-[A-Za-z0-9_-]{1,128}\.json|task-done-[A-Za-z0-9_-]{1,128}\.json|transcript-.{1,128}\.json|seed-[0-9a-f]{12}\.md|.{1,160}\.\d{1,10}\.[0-9a-f]{1,16}\.tmp)$/.test(name);
}

/** Names in `.entire/tmp` ([] when missing or unsafe). */
export function listScratch(root: string): string[] {
  try {
    const dir = confinedDirOrNull(root, TMP_REL, { create: false });
    return dir === null ? [] : readdirSync(dir);
  } catch {
    return [];
  }
}

export function removeScratch(root: string, name: string): void {
  removeConfined(root, `${TMP_REL}/${name}`);
}

export function readPrePrompt(root: string, sid: string): PrePrompt | null {
  const p = readScratch<Partial<PrePrompt>>(root, prePromptName(sid));
  if (!p || typeof p !== 'object') return null;
  return {
    session_id: String(p.session_id ?? sid),
    timestamp: String(p.timestamp ?? ''),
    untracked_files: Array.isArray(p.untracked_files) ? p.untracked_files.filter((x): x is string => typeof x === 'string') : [],
    step_transcript_start: typeof p.step_transcript_start === 'number' ? p.step_transcript_start : 0,
    last_transcript_identifier: String(p.last_transcript_identifier ?? ''),
    dirty_files: p.dirty_files && typeof p.dirty_files === 'object' && !Array.isArray(p.dirty_files) ? (p.dirty_files as Record<string, string>) : {},
  };
}

/**
 * A file of this process only, in `.entire/tmp/<sub>`, filled with `pieces`
 * as they come (already-redacted content too big to hold, SPEC-2 §A.6) and
 * removed when the process exits. Returns its path and size.
 */
export async function writePrivateFile(root: string, sub: string, prefix: string, pieces: AsyncIterable<Buffer>): Promise<{ path: string; size: number }> {
  const dir = safeTmpDir(root, sub);
  const name = `${prefix}.${process.pid}.${randomHex(4)}.private`;
  const fd = openIn(dir, name, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL);
  const path = join(dir, name);
  onExit(() => removeConfined(root, `${sub ? `${TMP_REL}/${sub}` : TMP_REL}/${name}`));
  let size = 0;
  try {
    for await (const p of pieces) {
      for (let off = 0; off < p.length; ) off += writeSync(fd, p, off, p.length - off);
      size += p.length;
    }
  } finally {
    closeSync(fd);
  }
  return { path, size };
}
