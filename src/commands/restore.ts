/**
 * Putting a stored transcript back where its agent looks for it (`resume`,
 * `rewind`), under SPEC-2 §A.3 and §A.10:
 *
 * - the target is computed from the validated session id, this project and
 *   the agent's transcript root — never from a stored `transcript_path`
 *   (a teammate's checkpoint can say `.bashrc`);
 * - every directory from the agent's root down to the target is a real
 *   directory (src/trust/confined.ts), and the file is replaced by rename;
 * - a file with different bytes is never replaced without consent (a TTY
 *   answer or `--force`); with consent the old bytes are first copied to
 *   `<path>.entire-bak-<UTC yyyymmddHHMMSS>` (0600).
 */
import { lstatSync, mkdirSync } from 'node:fs';
import { basename, dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import type { Repo } from '../git/repo.js';
import type { AgentAdapter } from '../agents/types.js';
import { agentForStoredData } from '../agents/registry.js';
import { agentSessionIdProblem, sessionIdProblem, validAgentSessionId } from '../trust/ids.js';
import { confinedDir, readFileNoFollow, writeFileIn } from '../trust/confined.js';
import { shellCommand } from '../trust/terminal.js';
import { transcriptPathProblem } from '../trust/transcript-file.js';

/** Go-era sids `YYYY-MM-DD-<uuid>` carry the agent's id after the date. */
function withoutDate(sid: string): string {
  const m = /^\d{4}-\d{2}-\d{2}-(.+)$/.exec(sid);
  return m && m[1] ? m[1] : sid;
}

/**
 * The agent's own session id, checked in that form (issue 25: the date prefix of
 * `2026-01-01---settings=…` hides an option). Throws INVALID_SESSION_ID when it is not a valid
 * agent session id (src/trust/ids.ts), so no argv or path is ever built from one.
 */
export function agentSessionId(sid: string): string {
  return validAgentSessionId(withoutDate(sid));
}

/** Why `sid` cannot be handed to its agent (as a session id, then in the agent's form), or null. */
export function agentSessionIdProblemOf(sid: string): string | null {
  return sessionIdProblem(sid) ?? agentSessionIdProblem(withoutDate(sid));
}

/** The adapter for a stored agent display name (unknown/absent → the default agent, SPEC §2.10). */
export async function adapterForAgentName(name: string | undefined): Promise<AgentAdapter> {
  return agentForStoredData(name);
}

/** The printed command that continues a session (arguments shell-quoted, SPEC-2 §A.8); null when its id cannot be handed to the agent. */
export function resumeCommandLine(adapter: AgentAdapter, sid: string): string | null {
  return agentSessionIdProblemOf(sid) === null ? shellCommand(adapter.resumeArgv(agentSessionId(sid))) : null;
}

/** Length of a transcript in the unit its format (its content says which) counts: a document's messages, JSONL lines. */
export function transcriptLength(content: Buffer | string): number {
  const text = typeof content === 'string' ? content : content.toString('utf8');
  if (text.trimStart().startsWith('{')) {
    try {
      // JSONL fails at its second line; a one-line JSONL object has no `messages`
      const v = JSON.parse(text) as { messages?: unknown } | null;
      if (v !== null && typeof v === 'object' && Array.isArray(v.messages)) return v.messages.length;
    } catch {
      /* JSONL */
    }
  }
  if (text === '') return 0;
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return text.endsWith('\n') ? n : n + 1;
}

export type RestoreStatus =
  /** Written (the file was missing, or replaced with consent). */
  | 'restored'
  /** The file already holds exactly these bytes. */
  | 'same'
  /** A different file is there and there was no consent: left as it was. */
  | 'kept'
  /** Not restored: the id, the target or its directories failed a check. */
  | 'refused';

export interface RestoreResult {
  status: RestoreStatus;
  /** The computed target ('' when none could be computed). */
  path: string;
  /** The copy of the replaced file, when one was made. */
  backup?: string;
  /** Why it was refused. */
  reason?: string;
}

export interface RestoreRequest {
  repo: Repo;
  adapter: AgentAdapter;
  sessionId: string;
  content: Buffer;
  /** Replace a differing file without asking (a backup is still made). */
  force: boolean;
  /** Ask the person (resolves false without a terminal); absent: no consent without force. */
  ask?: (question: string) => Promise<boolean>;
  /**
   * A live local session's own transcript path (from its state file, which
   * only our hooks write): used instead of the computed one when it passes
   * the agent-root check and names this session's file.
   */
  localPath?: string;
  now?: Date;
}

/** `yyyymmddHHMMSS` in UTC. */
export function backupStamp(d: Date): string {
  return d.toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

/** The restore target of `sid` for `adapter` in this project (`content`: what will be written), or a reason there is none. */
export function restoreTarget(repo: Repo, adapter: AgentAdapter, sid: string, localPath?: string, content?: Buffer): { path: string } | { reason: string } {
  const problem = agentSessionIdProblemOf(sid);
  if (problem !== null) return { reason: `invalid session id (${problem})` };
  const root = adapter.transcriptRoot(repo.root);
  if (!root) return { reason: `${adapter.displayName} keeps no transcript files to restore` };
  const agentSid = agentSessionId(sid);
  if (localPath && transcriptPathProblem(localPath, root) === null && basename(localPath).startsWith(agentSid)) return { path: localPath };
  const computed = adapter.restorePath(repo.root, agentSid, content);
  if (!isAbsolute(computed)) return { reason: 'the restore path is not absolute' };
  return { path: computed };
}

/** Restore one transcript under A.3/A.10. Never throws for a refused target. */
export async function restoreSessionTranscript(req: RestoreRequest): Promise<RestoreResult> {
  if (req.adapter.restoreSession) return restoreThroughAgent(req);
  const t = restoreTarget(req.repo, req.adapter, req.sessionId, req.localPath, req.content);
  if ('reason' in t) return { status: 'refused', path: '', reason: t.reason };
  const path = t.path;
  const root = resolve(req.adapter.transcriptRoot(req.repo.root)!);
  const rel = relative(root, dirname(path));
  if (rel === '..' || rel.startsWith('..' + sep) || isAbsolute(rel)) {
    return { status: 'refused', path, reason: `${path} is outside ${req.adapter.displayName}'s transcript directory` };
  }
  let dir: string;
  try {
    // an agent that finds sessions only in projects it knows records this one first
    req.adapter.prepareRestore?.(req.repo.root, path);
    // the agent's root itself (its home may be a symlink: trusted, SPEC-2 §A.4); below it, real directories only
    mkdirSync(root, { recursive: true, mode: 0o700 });
    dir = confinedDir(root, rel, { mode: 0o700 });
  } catch (e) {
    return { status: 'refused', path, reason: (e as Error).message };
  }
  const name = basename(path);
  let existing: Buffer | null = null;
  let present = false;
  try {
    const st = lstatSync(path);
    present = true;
    if (!st.isFile()) return { status: 'refused', path, reason: `${path} exists and is not a regular file` };
    existing = readFileNoFollow(path, Number.MAX_SAFE_INTEGER);
    if (existing === null) return { status: 'refused', path, reason: `${path} cannot be read` };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return { status: 'refused', path, reason: (e as Error).message };
  }
  if (present && existing !== null && existing.equals(req.content)) return { status: 'same', path };
  let backup: string | undefined;
  if (present && existing !== null) {
    const consent = req.force || (req.ask ? await req.ask(`Replace ${path}, which differs from the stored transcript? (a backup is kept)`) : false);
    if (!consent) return { status: 'kept', path };
    const bak = `${name}.entire-bak-${backupStamp(req.now ?? new Date())}`;
    try {
      writeFileIn(dir, bak, existing, 0o600);
    } catch (e) {
      return { status: 'refused', path, reason: `cannot keep a backup: ${(e as Error).message}` };
    }
    backup = `${dir}${sep}${bak}`;
  }
  writeFileIn(dir, name, req.content, 0o600);
  return backup ? { status: 'restored', path, backup } : { status: 'restored', path };
}

/** An agent that takes its sessions through its own tools (`restoreSession`), with the same checks and outcomes. */
async function restoreThroughAgent(req: RestoreRequest): Promise<RestoreResult> {
  const problem = agentSessionIdProblemOf(req.sessionId);
  if (problem !== null) return { status: 'refused', path: '', reason: `invalid session id (${problem})` };
  const consent = async (question: string) => req.force || (req.ask ? await req.ask(question) : false);
  try {
    const r = await req.adapter.restoreSession!(req.repo.root, agentSessionId(req.sessionId), req.content, consent);
    return { status: r.status, path: r.where, ...(r.backup ? { backup: r.backup } : {}) };
  } catch (e) {
    return { status: 'refused', path: '', reason: (e as Error).message };
  }
}

/** The line a command prints for a result. */
export function restoreLine(sid: string, r: RestoreResult): string {
  switch (r.status) {
    case 'restored':
      return `Restored transcript of session ${sid} to ${r.path}${r.backup ? ` (previous file kept as ${r.backup})` : ''}`;
    case 'same':
      return `Transcript of session ${sid} is already at ${r.path}`;
    case 'kept':
      return `Kept ${r.path} (differs; --force overwrites)`;
    case 'refused':
      return `Not restoring session ${sid}: ${r.reason ?? 'refused'}`;
  }
}
