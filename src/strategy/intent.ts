/**
 * The commit intent (SPEC §6.3, §6.5): what prepare-commit-msg decided,
 * handed to post-commit in `<git-dir>/entire-commit-intent.json`.
 */
import { join } from 'node:path';
import { readJsonFile } from './scratch.js';
import { isCheckpointId } from '../checkpoint/id.js';
import { encodeJson } from '../go-json.js';
import { replaceViaSpare, retireToSpare } from '../fs-spare.js';

export interface CommitIntent {
  id: string | null;
  mode: 'new' | 'amend';
  head_before: string;
  created_at: string;
  sessions: Record<string, string[]>;
  /** git's pid, for recovery when post-commit never ran (§6.5 step 6). */
  git_pid?: number;
  /** That process's start time (src/process-identity.ts): pids wrap, a reused one is not our git. */
  git_start?: string;
  worktree?: string;
}

export function intentPath(gitDir: string): string {
  return join(gitDir, 'entire-commit-intent.json');
}

/**
 * Written on every commit and removed by its post-commit: the removal keeps
 * the file as a spare that the next write fills (src/fs-spare.ts), so a
 * commit creates no file for it. Git runs one commit at a time per
 * worktree, so one writer at a time.
 */
export function writeIntent(gitDir: string, intent: CommitIntent): void {
  replaceViaSpare(intentPath(gitDir), encodeJson(intent));
}

export function readIntent(gitDir: string): CommitIntent | null {
  const raw = readJsonFile<Partial<CommitIntent>>(intentPath(gitDir));
  if (!raw || typeof raw !== 'object') return null;
  const sessions: Record<string, string[]> = {};
  if (raw.sessions && typeof raw.sessions === 'object') {
    for (const [k, v] of Object.entries(raw.sessions)) if (Array.isArray(v)) sessions[k] = v.filter((x): x is string => typeof x === 'string');
  }
  return {
    id: isCheckpointId(raw.id) ? raw.id : null,
    mode: raw.mode === 'amend' ? 'amend' : 'new',
    head_before: typeof raw.head_before === 'string' ? raw.head_before : '',
    created_at: typeof raw.created_at === 'string' ? raw.created_at : '',
    sessions,
    git_pid: typeof raw.git_pid === 'number' ? raw.git_pid : undefined,
    git_start: typeof raw.git_start === 'string' && /^\d{1,20}$/.test(raw.git_start) ? raw.git_start : undefined,
    worktree: typeof raw.worktree === 'string' ? raw.worktree : undefined,
  };
}

export function removeIntent(gitDir: string): void {
  retireToSpare(intentPath(gitDir));
}
