/**
 * What the three commit hooks share: the message file as bytes-exact text,
 * git's comment character, this worktree's sessions, the sequencing guard,
 * and the commit-intent age limit (SPEC §6.3–§6.5).
 */
import { readFileSync } from 'node:fs';
import type { HookContext } from './context.js';
import { sessionsForWorktree, type WorktreeSession } from '../session/index.js';
import { isRebaseInProgress } from '../session/phase.js';
import { configGet } from '../git/repo.js';
import { readConfigValue } from '../git/config-file.js';
import { processAlive } from '../process-identity.js';
import { readIntent, type CommitIntent } from './intent.js';

/** An intent older than this was never consumed by a post-commit (§6.5 step 6). */
export const INTENT_MAX_AGE_MS = 60 * 60 * 1000;

export async function commentCharOf(ctx: HookContext): Promise<string | null> {
  const fromFiles = readConfigValue('core', 'commentchar', ctx.repo);
  const v = fromFiles !== undefined ? fromFiles.value : await configGet(ctx.repo, 'core.commentChar');
  if (v === null || v === '') return '#';
  // `auto` (or anything we cannot be sure of) → no comment lines of ours
  return v.length === 1 ? v : null;
}

export function liveSessions(ctx: HookContext): WorktreeSession[] {
  return sessionsForWorktree(ctx.repo.commonDir, ctx.repo.root, ctx.repo.worktreeId).sessions;
}

export function isSequencing(ctx: HookContext, argv: string[] | null): boolean {
  return isRebaseInProgress(ctx.repo.gitDir, argv);
}

/**
 * The message file as text, with the encoding that writes it back
 * byte-exact: a message that is not UTF-8 (e.g. i18n.commitEncoding=latin1)
 * is handled as latin1, one character per byte, so the bytes we do not
 * touch survive (UTF-8 decoding would turn them into U+FFFD).
 */
export function readMessageFile(file: string): { text: string; encoding: BufferEncoding } {
  const buf = readFileSync(file);
  const text = buf.toString('utf8');
  if (!text.includes('\uFFFD') || Buffer.from(text, 'utf8').equals(buf)) return { text, encoding: 'utf8' };
  return { text: buf.toString('latin1'), encoding: 'latin1' };
}

/** git's pid as the installed hook script found it (`ENTIRE_GIT_PID`). */
export function argvPid(): number | undefined {
  const n = Number(process.env['ENTIRE_GIT_PID']);
  return Number.isInteger(n) && n > 1 ? n : undefined;
}

/**
 * The intent left by a commit whose post-commit never ran: its git process
 * is gone, or (without a pid) it is over an hour old. Not our own git's.
 * Cheap, so prepare-commit-msg asks first and loads the recovery only then.
 */
export function staleIntent(ctx: HookContext): CommitIntent | null {
  const intent = readIntent(ctx.repo.gitDir);
  if (!intent || intentStaleness(intent, ctx.now()) === null) return null;
  if (intent.git_pid !== undefined && intent.git_pid === argvPid()) return null;
  return intent;
}

/**
 * Why an intent was never consumed by a post-commit, or null while its
 * commit may still be running: its git process has exited, or (without a
 * pid, or an unreadable date) it is over an hour old. Shared by the hooks'
 * recovery and `doctor`.
 */
export function intentStaleness(intent: CommitIntent, now: Date): 'process-exited' | 'too-old' | null {
  const alive = intent.git_pid ? processAlive(intent.git_pid, intent.git_start) : null;
  if (alive === false) return 'process-exited';
  const age = now.getTime() - Date.parse(intent.created_at);
  if (Number.isNaN(age) || (alive === null && !(age < INTENT_MAX_AGE_MS))) return 'too-old';
  return null;
}
