/**
 * `entire status` (SPEC §8.3): whether Entire is set up and enabled, the git
 * hooks, and the live sessions of this worktree. Strictly read-only: it
 * lists state files without the index (which would write its cache), takes
 * no lock and changes no ref (SPEC §11.40).
 */
import { readResumedWork, totalResumed, type ResumedCounts } from '../strategy/resumed-work.js';
import { isEntireError } from '../errors.js';
import { openRepo, currentBranch, type Repo } from '../git/repo.js';
import { readRef } from '../git/refs.js';
import { encodeJson } from '../go-json.js';
import { readPushQueue } from '../sync/push-queue.js';
import { shadowBranchName } from '../checkpoint/shadow.js';
import { checkpointsSettingError } from '../settings/checkpoints.js';
import { loadSettings, isEnabled, strategyWarning, DEFAULT_STRATEGY, type SettingsFile } from '../settings/settings.js';
import { hookStates, type GitHookName, type HookState } from '../install/git-hooks.js';
import { listStates } from '../session/store.js';
import { isLiveState, type SessionState } from '../session/state.js';
import { syncState, syncLines, type SyncStateJson } from '../sync/state.js';
import { agentLabel, inThisWorktree, timeAgo, type Io } from './common.js';
import { agentHooksOutdated, agentTrustGaps } from './agent-trust.js';

export interface StatusOptions {
  detailed?: boolean;
  json?: boolean;
}

export interface StatusSessionJson {
  session_id: string;
  agent: string;
  phase: string;
  worktree_path: string;
  branch: string;
  base_commit: string;
  started_at: string;
  last_interaction_time: string;
  first_prompt: string;
  files_touched: string[];
  pending_finalizations: number;
  pending_condensations: number;
}

export interface StatusJson {
  repository: boolean;
  configured: boolean;
  enabled: boolean;
  strategy: string;
  hooks_dir: string;
  git_hooks: Record<GitHookName, HookState>;
  sessions: StatusSessionJson[];
  /** Installed agent hooks the agent will not run yet (SPEC-2 §C.1); absent when there are none. */
  agent_hooks_untrusted?: { agent: string; detail: string }[];
  /** Installed agent hooks an older Entire wrote (`entire enable` again updates them); absent when there are none. */
  agent_hooks_outdated?: { agent: string; detail: string }[];
  /** SPEC-2 §E: where checkpoints are pushed and how far ahead/behind each checkpoint remote (an addition to v1 §8.3). */
  checkpoint_sync?: SyncStateJson;
  /** The stateful execution contract in numbers (issue 19): pending work resumed by later hooks, and what is still pending. */
  hook_operations: { resumed_pending_work: number; resumed: ResumedCounts; still_pending: number };
  /** SPEC-3 §A.6: checkpoint refs waiting in the push queue (ours or the Go CLI's); pushed by the next `git push`. */
  checkpoint_refs_queued: number;
}

export const NOT_A_REPO_LINE = '✕ not a git repository';
export const NOT_SET_UP_LINE = '○ not set up (run `entire enable` to get started)';

/** The live sessions of this worktree, oldest first (read-only). */
export function worktreeSessions(repo: Repo): { sessions: SessionState[]; corrupt: number } {
  const { states, corrupt } = listStates(repo.commonDir);
  const sessions = states.map((l) => l.state).filter((s) => inThisWorktree(s, repo) && isLiveState(s));
  return { sessions, corrupt: corrupt.length };
}

/** Resumed (counted by the hooks) and still-pending (the states' queues) hook operations. */
export function hookOperations(root: string, sessions: readonly SessionState[]): StatusJson['hook_operations'] {
  const resumed = readResumedWork(root);
  let pending = 0;
  for (const s of sessions) pending += (s.turn_checkpoint_ids?.length ?? 0) + (s.pending_condensations?.length ?? 0);
  return { resumed_pending_work: totalResumed(resumed), resumed, still_pending: pending };
}

/** SPEC-3 §A.6: valid refs in the push queue; an unreadable queue counts as none (doctor's business). */
function queuedRefs(repo: Repo): number {
  try {
    return readPushQueue(repo.commonDir).refs.length;
  } catch {
    return 0;
  }
}

function sessionJson(s: SessionState, repo: Repo, branch: string): StatusSessionJson {
  return {
    session_id: s.session_id,
    agent: s.agent_type ?? '',
    phase: s.phase,
    worktree_path: s.worktree_path ?? repo.root,
    branch,
    base_commit: s.base_commit,
    started_at: s.started_at,
    last_interaction_time: s.last_interaction_time ?? '',
    first_prompt: s.first_prompt ?? '',
    files_touched: s.files_touched ?? [],
    pending_finalizations: s.turn_checkpoint_ids?.length ?? 0,
    pending_condensations: s.pending_condensations?.length ?? 0,
  };
}

function settingsFileLine(label: string, f: SettingsFile): string {
  const parts = [f.settings.enabled === false ? 'disabled' : f.settings.enabled === true ? 'enabled' : 'enabled not set'];
  if (f.settings.strategy) parts.push(`strategy ${f.settings.strategy}`);
  if (f.settings.strategy_options?.['push_sessions'] === false) parts.push('push_sessions false');
  return `  ${label} (${f.displayName}): ${parts.join(', ')}`;
}

export async function runStatus(cwd: string, opts: StatusOptions, io: Io): Promise<void> {
  let repo: Repo;
  try {
    repo = await openRepo(cwd);
  } catch (e) {
    if (!isEntireError(e, 'NOT_A_REPO')) throw e;
    if (opts.json) io.raw(encodeJson({ repository: false }));
    else io.out(NOT_A_REPO_LINE);
    return;
  }
  try {
    await status(repo, opts, io);
  } finally {
    repo.objects.close();
  }
}

async function status(repo: Repo, opts: StatusOptions, io: Io): Promise<void> {
  const loaded = loadSettings(repo.root);
  for (const w of loaded.warnings) io.err(w);
  const warn = loaded.configured ? strategyWarning(loaded.settings) : null;
  if (warn) io.err(warn);
  const broken = checkpointsSettingError(loaded.settings);
  if (broken) io.err(broken);
  const enabled = isEnabled(loaded);
  const hooks = hookStates({ hooksDir: repo.hooksDir, root: repo.root });
  const { sessions, corrupt } = worktreeSessions(repo);
  if (corrupt > 0) io.err(`[entire] Warning: ${corrupt} unreadable session state file(s); run \`entire doctor\` for details`);
  const branch = currentBranch(repo) ?? '';
  const gaps = loaded.configured ? await agentTrustGaps(repo.root) : [];
  const outdated = loaded.configured ? await agentHooksOutdated(repo.root) : [];

  if (opts.json) {
    const doc: StatusJson = {
      repository: true,
      configured: loaded.configured,
      enabled,
      strategy: DEFAULT_STRATEGY,
      hooks_dir: repo.hooksDir,
      git_hooks: hooks,
      sessions: sessions.map((s) => sessionJson(s, repo, branch)),
      hook_operations: hookOperations(repo.root, sessions),
      checkpoint_refs_queued: queuedRefs(repo),
    };
    if (gaps.length > 0) doc.agent_hooks_untrusted = gaps.flatMap((g) => g.lines.map((l) => ({ agent: g.agent, detail: l.replace(/^!\s*/, '') })));
    if (outdated.length > 0) doc.agent_hooks_outdated = outdated.flatMap((g) => g.lines.map((l) => ({ agent: g.agent, detail: l.replace(/^!\s*/, '') })));
    if (loaded.configured) doc.checkpoint_sync = await syncState(repo, loaded.settings);
    io.raw(encodeJson(doc));
    return;
  }

  if (!loaded.configured) {
    io.out(NOT_SET_UP_LINE);
    return;
  }
  io.out(`${enabled ? 'Enabled' : 'Disabled'} (${DEFAULT_STRATEGY})`);
  for (const g of [...gaps, ...outdated]) for (const l of g.lines) io.out(l);
  if (opts.detailed) {
    if (loaded.project) io.out(settingsFileLine('Project', loaded.project));
    if (loaded.local) io.out(settingsFileLine('Local', loaded.local));
    const hookList = Object.entries(hooks)
      .map(([h, st]) => `${h} ${st}`)
      .join(', ');
    io.out(`  Git hooks (${repo.hooksDir}): ${hookList}`);
  }
  for (const l of syncLines(await syncState(repo, loaded.settings))) io.out(l);
  const queued = queuedRefs(repo);
  if (queued > 0) io.out(`Checkpoint refs queued for push: ${queued} (sent by the next git push)`);
  io.out();
  if (sessions.length === 0) {
    io.out('No active sessions.');
    return;
  }
  io.out('Active Sessions:');
  const now = Date.now();
  for (const s of sessions) {
    io.out(`[${agentLabel(s.agent_type)}] ${s.session_id.slice(0, 7)} started ${timeAgo(s.started_at, now)}`);
    const activity = s.last_interaction_time ? `, last activity ${timeAgo(s.last_interaction_time, now)}` : '';
    io.out(`    phase: ${s.phase}${activity}`);
    if (s.first_prompt) io.out(`    first prompt: "${s.first_prompt}"`);
    const pf = s.turn_checkpoint_ids?.length ?? 0;
    if (pf > 0) io.out(`    pending finalizations: ${pf}`);
    const pc = s.pending_condensations?.length ?? 0;
    if (pc > 0) io.out(`    pending condensations: ${pc}`);
    if (s.base_commit) {
      const b = shadowBranchName(s.base_commit, repo.worktreeId);
      const exists = (await readRef(repo, `refs/heads/${b}`)) !== null;
      io.out(`    shadow branch: ${b}${exists ? '' : ' (none yet)'}`);
    }
    if (opts.detailed) {
      io.out(`    session id: ${s.session_id}`);
      if ((s.files_touched?.length ?? 0) > 0) io.out(`    files touched: ${s.files_touched!.join(', ')}`);
    }
  }
}
