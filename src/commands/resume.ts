/**
 * SPEC §8.8 `entire resume <branch> [--force]`: check the branch out, find
 * its newest first-parent commit that links a checkpoint, put that
 * checkpoint's transcripts back where the agent keeps them, and print the
 * command that continues each session.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { openRepo, currentBranch, type Repo } from '../git/repo.js';
import { runGit } from '../git/exec.js';
import { readCheckpoint, readSessionContent, type CheckpointView } from '../store/committed.js';
import { allCheckpointIds } from '../checkpoint/trailers.js';
import { agentByDisplayName, getAgent, DEFAULT_AGENT } from '../agents/registry.js';
import type { AgentAdapter } from '../agents/types.js';
import { homeDir } from '../agents/paths.js';
import { EntireError } from '../errors.js';
import { firstParentCommits } from './doctor.js';
import { enabledOrSay, processIo, type Io } from './common.js';

export { DISABLED_MESSAGE } from './common.js';
/** How far back resume looks for a commit that links a checkpoint. */
export const RESUME_SCAN_COMMITS = 200;

/** The agent's own session id: Go-era sids `YYYY-MM-DD-<uuid>` carry the uuid. */
export function agentSessionId(sid: string): string {
  const m = /^\d{4}-\d{2}-\d{2}-(.+)$/.exec(sid);
  return m && m[1] ? m[1] : sid;
}

/** The adapter for a stored agent display name (unknown/absent → Claude Code, SPEC §2.10). */
export async function adapterForAgentName(name: string | undefined): Promise<AgentAdapter> {
  return getAgent((name ? agentByDisplayName(name)?.key : undefined) ?? DEFAULT_AGENT);
}

/** Where a stored transcript goes back to: `$HOME/<transcript_path>`, else the agent's location for this repo. */
export function transcriptTarget(repo: Repo, adapter: AgentAdapter, sid: string, transcriptPath: string | undefined): string {
  if (transcriptPath && transcriptPath.trim() !== '') {
    const home = homeDir();
    const abs = isAbsolute(transcriptPath) ? transcriptPath : resolve(home, transcriptPath);
    // a stored path never leaves $HOME
    if (abs === home || abs.startsWith(home.endsWith('/') ? home : home + '/')) return abs;
  }
  return adapter.restorePath(repo.root, agentSessionId(sid));
}

/** Length of a transcript in the unit its format counts: JSONL lines, Gemini messages. */
export function transcriptLength(content: Buffer | string, format: 'jsonl' | 'json'): number {
  const text = typeof content === 'string' ? content : content.toString('utf8');
  if (format === 'json') {
    try {
      const v = JSON.parse(text) as { messages?: unknown };
      return Array.isArray(v.messages) ? v.messages.length : 0;
    } catch {
      return 0;
    }
  }
  if (text === '') return 0;
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return text.endsWith('\n') ? n : n + 1;
}

export type RestoreOutcome = { wrote: true; path: string } | { wrote: false; path: string; localLength: number; storedLength: number };

/**
 * Write a stored transcript to `path`. Unless `force`, a local file at least
 * as long as the stored one is kept (SPEC §8.8 Improvement).
 */
export function restoreTranscript(path: string, content: Buffer, format: 'jsonl' | 'json', force: boolean): RestoreOutcome {
  if (!force && existsSync(path)) {
    let local: Buffer | null = null;
    try {
      local = readFileSync(path);
    } catch {
      /* unreadable: overwrite */
    }
    if (local) {
      const localLength = transcriptLength(local, format);
      const storedLength = transcriptLength(content, format);
      if (localLength >= storedLength) return { wrote: false, path, localLength, storedLength };
    }
  }
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
  return { wrote: true, path };
}

async function branchExists(repo: Repo, branch: string): Promise<'local' | 'remote' | null> {
  const local = await runGit(['rev-parse', '--verify', '-q', `refs/heads/${branch}^{commit}`], { cwd: repo.root, allowFailure: true });
  if (local.code === 0) return 'local';
  const remote = await runGit(['for-each-ref', '--format=%(refname)', `refs/remotes/*/${branch}`], { cwd: repo.root, allowFailure: true });
  return remote.code === 0 && remote.stdout.toString('utf8').trim() !== '' ? 'remote' : null;
}

/** The newest first-parent commit of `rev` that links an existing checkpoint, with those checkpoints. */
export async function latestCheckpointedCommit(repo: Repo, rev: string, max: number): Promise<{ sha: string; views: CheckpointView[] } | null> {
  for (const c of await firstParentCommits(repo, rev, max)) {
    const views: CheckpointView[] = [];
    for (const id of allCheckpointIds(c.message)) {
      const v = await readCheckpoint(repo, id).catch(() => null);
      if (v && v.sessions.length > 0) views.push(v);
    }
    if (views.length > 0) return { sha: c.sha, views };
  }
  return null;
}

export async function runResume(cwd: string, branch: string, opts: { force?: boolean }, io: Io = processIo): Promise<number> {
  const repo = await openRepo(cwd);
  try {
    if (!enabledOrSay(repo.root, io)) return 0;
    if (!branch || branch.startsWith('-')) throw new EntireError('INVALID_USAGE', 'resume needs a branch name');
    if (currentBranch(repo) !== branch) {
      if (!(await branchExists(repo, branch))) throw new EntireError('INVALID_INPUT', `branch not found: ${branch}`);
      const r = await runGit(['checkout', '--quiet', branch, '--'], { cwd: repo.root, allowFailure: true });
      if (r.code !== 0) {
        const why = r.stderr.split('\n').find((l) => l.trim() !== '')?.replace(/^(error|fatal): /, '') ?? `exit code ${r.code}`;
        throw new EntireError('GIT_FAILED', `cannot check out ${branch}: ${why.trim()}`);
      }
      io.err(`Switched to branch '${branch}'`);
    }
    const found = await latestCheckpointedCommit(repo, 'HEAD', RESUME_SCAN_COMMITS);
    if (!found) {
      io.out(`No Entire checkpoint found on ${branch}.`);
      return 0;
    }
    // one entry per session; a later checkpoint id of the same commit wins
    const sessions = new Map<string, { id: string; slot: number; agent: string | undefined; transcriptPath: string | undefined }>();
    for (const v of found.views) {
      for (const s of v.sessions) {
        sessions.set(s.metadata.session_id, { id: v.checkpointId, slot: s.slot, agent: s.metadata.agent, transcriptPath: s.metadata.transcript_path });
      }
    }
    const commands: string[] = [];
    for (const [sid, s] of sessions) {
      const adapter = await adapterForAgentName(s.agent);
      const content = await readSessionContent(repo, s.id, { slot: s.slot });
      const target = transcriptTarget(repo, adapter, sid, s.transcriptPath);
      if (!content.transcript) {
        io.err(`No transcript stored for session ${sid} (checkpoint ${s.id}).`);
      } else {
        const r = restoreTranscript(target, content.transcript, content.format, !!opts.force);
        if (r.wrote) io.out(`Restored transcript of session ${sid} to ${target}`);
        else io.out(`Kept local transcript ${target} (${r.localLength} ≥ ${r.storedLength} stored; --force overwrites)`);
      }
      commands.push(adapter.resumeCommand(agentSessionId(sid)));
    }
    io.out('To continue this session, run:');
    for (const c of commands) io.out(`  ${c}`);
    return 0;
  } finally {
    repo.objects.close();
  }
}

