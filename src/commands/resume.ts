/**
 * SPEC §8.8 `entire resume <branch> [--force]`: check the branch out, find
 * its newest first-parent commit that links a checkpoint, put that
 * checkpoint's transcripts back where the agent keeps them, and print the
 * command that continues each session.
 */
import { openRepo, currentBranch, type Repo } from '../git/repo.js';
import { runGit } from '../git/exec.js';
import { readCheckpoint, readSessionContent, type CheckpointView } from '../store/routing.js';
import { linkedIds } from '../links/commit-ids.js';
import { sessionIdProblem } from '../trust/ids.js';
import { adapterForAgentName, resumeCommandLine, restoreLine, restoreSessionTranscript } from './restore.js';
import { EntireError } from '../errors.js';
import { firstParentCommits } from '../git/first-parent.js';
import { preferredClaim, sessionClaims } from './session-claims.js';
import { confirm, enabledOrSay, processIo, type Io } from './common.js';

export { DISABLED_MESSAGE } from './common.js';
/** How far back resume looks for a commit that links a checkpoint. */
export const RESUME_SCAN_COMMITS = 200;

export { agentSessionId, adapterForAgentName } from './restore.js';

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
    for (const id of await linkedIds(repo, c.sha, c.message)) {
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
    const sessions = new Map<string, { id: string; slot: number; agent: string | undefined }>();
    for (const v of found.views) {
      if (v.skipped.length > 0) io.err(`[entire] Warning: checkpoint ${v.checkpointId}: skipped ${v.skipped.join('; ')}`);
      for (const s of v.sessions) sessions.set(s.metadata.session_id, { id: v.checkpointId, slot: s.slot, agent: s.metadata.agent });
    }
    // issue 25 #2: another slot may claim the same session (a teammate's, linked by a note):
    // the session is restored from its preferred claim (trailer-linked first)
    const claims = await sessionClaims(repo, 'HEAD', RESUME_SCAN_COMMITS);
    for (const [sid, s] of sessions) {
      const best = await preferredClaim(repo, claims.get(sid) ?? []);
      if (best && (best.checkpointId !== s.id || best.slot !== s.slot)) sessions.set(sid, { id: best.checkpointId, slot: best.slot, agent: best.agent });
    }
    const ask = async (q: string): Promise<boolean> => (await confirm(q)) === 'yes';
    const commands: string[] = [];
    for (const [sid, s] of sessions) {
      const problem = sessionIdProblem(sid);
      if (problem !== null) {
        io.err(`[entire] Skipping a session of checkpoint ${s.id}: invalid session id (${problem}).`);
        continue;
      }
      const adapter = await adapterForAgentName(s.agent);
      const content = await readSessionContent(repo, s.id, { slot: s.slot });
      if (!content.transcript) {
        io.err(`No transcript stored for session ${sid} (checkpoint ${s.id}).`);
      } else {
        const r = await restoreSessionTranscript({ repo, adapter, sessionId: sid, content: content.transcript, force: !!opts.force, ask });
        (r.status === 'refused' ? io.err : io.out)(restoreLine(sid, r));
      }
      const command = resumeCommandLine(adapter, sid);
      if (command !== null) commands.push(command);
    }
    if (commands.length === 0) return 0;
    io.out('To continue this session, run:');
    for (const c of commands) io.out(`  ${c}`);
    return 0;
  } finally {
    repo.objects.close();
  }
}

