/**
 * `entire reset [--force] [--session <id>]` (SPEC §8.5). **Improvement:**
 * this worktree only. Deletes the states of this worktree's sessions based
 * on HEAD (or the one `--session`), their pending side files and pre-prompt
 * scratch files, then the shadow branch `entire/<HEAD7>-<wt6>` unless a
 * remaining state or pending entry still names it. ACTIVE sessions are
 * refused without `--force`; without `--force` a TTY confirmation is needed.
 */
import { prePromptName, removeScratch } from '../strategy/scratch.js';
import { EntireError, isEntireError } from '../errors.js';
import { openRepo, headCommit, type Repo } from '../git/repo.js';
import { readRef, updateRefs } from '../git/refs.js';
import { shadowBranchName } from '../checkpoint/shadow.js';
import { listStates, deleteState, readPendingSideFiles } from '../session/store.js';
import { withSessionLock } from '../session/lock.js';
import { tryUnlink } from '../session/paths.js';
import { validateSessionId, type SessionState } from '../session/state.js';
import { ShadowReferences, agentLabel, confirm, inThisWorktree, listSideFiles, timeAgo, type Io } from './common.js';

export interface ResetOptions {
  force?: boolean;
  session?: string;
}

export const NEEDS_FORCE_MESSAGE = 'reset requires --force when not interactive';

interface Plan {
  targets: SessionState[];
  /** Shadow branch to consider deleting (short name), or null. */
  branch: string | null;
  branchTip: string | null;
  /** What the targets are based on, for messages. */
  scope: string;
}

async function plan(repo: Repo, opts: ResetOptions): Promise<Plan> {
  const { states } = listStates(repo.commonDir);
  const all = states.map((l) => l.state);
  const mine = all.filter((s) => inThisWorktree(s, repo));
  if (opts.session !== undefined) {
    validateSessionId(opts.session);
    const t = mine.find((s) => s.session_id === opts.session);
    if (!t) {
      const elsewhere = all.find((s) => s.session_id === opts.session);
      if (elsewhere) {
        throw new EntireError('REFUSED', `session ${opts.session} belongs to another worktree (${elsewhere.worktree_path ?? 'unknown path'}); run reset there`);
      }
      throw new EntireError('SESSION_NOT_FOUND', `session not found: ${opts.session}`);
    }
    const branch = t.base_commit ? shadowBranchName(t.base_commit, repo.worktreeId) : null;
    const branchTip = branch ? await readRef(repo, `refs/heads/${branch}`) : null;
    return { targets: [t], branch, branchTip, scope: `session ${t.session_id}` };
  }
  const head = (await headCommit(repo)) ?? '';
  const targets = mine.filter((s) => s.base_commit === head);
  const branch = head ? shadowBranchName(head, repo.worktreeId) : null;
  const branchTip = branch ? await readRef(repo, `refs/heads/${branch}`) : null;
  return { targets, branch, branchTip, scope: head ? `HEAD ${head.slice(0, 7)}` : 'HEAD (no commits yet)' };
}

/** Delete one session's state, side files and pre-prompt file under its lock. */
async function clearSession(repo: Repo, s: SessionState): Promise<void> {
  await withSessionLock(repo.commonDir, s.session_id, () => {
    const side = readPendingSideFiles(repo.commonDir, s.session_id);
    for (const f of side.files) tryUnlink(f.path);
    for (const p of side.corrupt) tryUnlink(p);
    deleteState(repo.commonDir, s.session_id);
  });
  for (const root of new Set([repo.root, s.worktree_path ?? repo.root])) {
    removeScratch(root, prePromptName(s.session_id));
  }
}

/** Returns the exit code (refusals print their own lines). */
export async function runReset(cwd: string, opts: ResetOptions, io: Io, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const repo = await openRepo(cwd);
  try {
    return await reset(repo, opts, io, env);
  } finally {
    repo.objects.close();
  }
}

async function reset(repo: Repo, opts: ResetOptions, io: Io, env: NodeJS.ProcessEnv): Promise<number> {
  const p = await plan(repo, opts);
  if (p.targets.length === 0 && !p.branchTip) {
    io.out(`Nothing to reset: no sessions or shadow branch for ${p.scope} in this worktree.`);
    return 0;
  }
  const active = p.targets.filter((s) => s.phase === 'active');
  if (active.length > 0 && !opts.force) {
    io.err('Active sessions detected on current HEAD:');
    for (const s of active) io.err(`  [${agentLabel(s.agent_type)}] ${s.session_id} (started ${timeAgo(s.started_at)})`);
    io.err('An agent may still be working. Run `entire reset --force` to reset anyway.');
    return 1;
  }
  if (!opts.force) {
    const what = [
      p.targets.length > 0 ? `clear ${p.targets.length} session state(s)` : '',
      p.branchTip && p.branch ? `delete ${p.branch}` : '',
    ]
      .filter((x) => x !== '')
      .join(' and ');
    const answer = await confirm(`Reset ${p.scope}: ${what}?`, env);
    if (answer === 'no-tty') throw new EntireError('NEEDS_FORCE', NEEDS_FORCE_MESSAGE);
    if (answer === 'no') {
      io.out('Reset cancelled; nothing changed.');
      return 0;
    }
  }

  let failed = 0;
  for (const s of p.targets) {
    try {
      await clearSession(repo, s);
      io.out(`Cleared session state for ${s.session_id}`);
    } catch (e) {
      failed++;
      const why = isEntireError(e, 'LOCK_TIMEOUT') ? 'its state is locked by a running hook' : e instanceof Error ? e.message : String(e);
      io.err(`[entire] Warning: could not clear session ${s.session_id}: ${why}`);
    }
  }

  if (p.branch && p.branchTip) {
    // what is left (every worktree) decides whether the branch is still needed
    const remaining = listStates(repo.commonDir).states.map((l) => l.state);
    const refs = new ShadowReferences(remaining, listSideFiles(repo.commonDir));
    if (refs.has(p.branch)) {
      io.out(`Kept shadow branch ${p.branch} (still used by another session)`);
    } else {
      const r = await updateRefs(repo, [{ ref: `refs/heads/${p.branch}`, newOid: null, oldOid: p.branchTip }], 'entire reset');
      if (r === 'ok') io.out(`Deleted shadow branch ${p.branch}`);
      else {
        failed++;
        io.err(`[entire] Warning: shadow branch ${p.branch} changed while resetting; kept`);
      }
    }
  }
  return failed > 0 ? 1 : 0;
}
