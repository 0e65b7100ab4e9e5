/**
 * The checkpoint sync state `entire status` shows (SPEC-2 §E): where
 * checkpoints are pushed, and for each checkpoint remote how far the local
 * `entire/checkpoints/v1` is ahead of (not yet pushed) or behind (fetched,
 * read by the union readers, merged on the next push) its tracking copy.
 * Read-only and offline: it is as of the last fetch or push.
 */
import type { Repo } from '../git/repo.js';
import { runGit } from '../git/exec.js';
import { readRef } from '../git/refs.js';
import { METADATA_REF } from '../checkpoint/shadow.js';
import { trackingRef } from '../store/sources.js';
import { listRemotes } from '../install/fetch-refspecs.js';
import { pushSessionsEnabled, type EntireSettings } from '../settings/settings.js';
import { checkpointRemoteSetting } from './checkpoint-remote.js';

export interface RemoteSyncJson {
  remote: string;
  /** A tracking copy exists (the remote has been fetched or pushed since it had the branch). */
  tracked: boolean;
  /** Local metadata commits the remote lacks (pushed by the next `git push`). */
  ahead: number;
  /** Tracking commits the local branch lacks (read by explain/resume/rewind; merged on the next push). */
  behind: number;
}

export interface SyncStateJson {
  push_sessions: boolean;
  /** The checkpoint remote when set, else null (checkpoints go with the code). */
  checkpoint_remote: string | null;
  /** Why nothing is pushed, when the setting fails closed. */
  problem: string | null;
  remotes: RemoteSyncJson[];
}

async function counts(repo: Repo, local: string | null, tracking: string | null): Promise<{ ahead: number; behind: number }> {
  if (!local && !tracking) return { ahead: 0, behind: 0 };
  if (!tracking) return { ahead: local ? await commitsIn(repo, [local]) : 0, behind: 0 };
  if (!local) return { ahead: 0, behind: await commitsIn(repo, [tracking]) };
  const r = await runGit(['rev-list', '--left-right', '--count', `${local}...${tracking}`], { cwd: repo.root, allowFailure: true });
  const [a, b] = r.stdout.toString('utf8').trim().split(/\s+/).map(Number);
  return { ahead: a ?? 0, behind: b ?? 0 };
}

async function commitsIn(repo: Repo, revs: string[]): Promise<number> {
  const r = await runGit(['rev-list', '--count', ...revs], { cwd: repo.root, allowFailure: true });
  return Number(r.stdout.toString('utf8').trim()) || 0;
}

export async function syncState(repo: Repo, settings: EntireSettings): Promise<SyncStateJson> {
  const cr = checkpointRemoteSetting(settings);
  const all = await listRemotes(repo);
  let problem: string | null = null;
  let remotes = all;
  if (cr.kind === 'invalid') {
    problem = 'checkpoint_remote does not name a git remote: nothing is pushed';
    remotes = [];
  } else if (cr.kind === 'remote') {
    remotes = all.includes(cr.name) ? [cr.name] : [];
    if (!all.includes(cr.name)) problem = `checkpoint remote ${cr.name} is not configured (git remote add ${cr.name} <url>): nothing is pushed`;
  }
  const local = await readRef(repo, METADATA_REF);
  const out: RemoteSyncJson[] = [];
  for (const remote of remotes) {
    const tracking = await readRef(repo, trackingRef(remote));
    out.push({ remote, tracked: tracking !== null, ...(await counts(repo, local, tracking)) });
  }
  return {
    push_sessions: pushSessionsEnabled(settings),
    checkpoint_remote: cr.kind === 'remote' ? cr.name : null,
    problem,
    remotes: out,
  };
}

/** The status lines for `s` (none when there is no remote to sync with and nothing to say). */
export function syncLines(s: SyncStateJson): string[] {
  if (s.remotes.length === 0 && !s.problem && !s.checkpoint_remote) return [];
  const lines: string[] = [];
  if (!s.push_sessions) lines.push('Checkpoints: not pushed (push_sessions is false)');
  else if (s.problem) lines.push(`Checkpoints: ${s.problem}`);
  else if (s.checkpoint_remote) lines.push(`Checkpoints: pushed only to ${s.checkpoint_remote} (checkpoint_remote), on every git push`);
  else lines.push('Checkpoints: pushed with every git push, to the remote pushed');
  for (const r of s.remotes) {
    if (!r.tracked) {
      lines.push(`  ${r.remote}: not there yet as of the last fetch/push${r.ahead > 0 ? ` (${r.ahead} local commit(s) to push)` : ''}`);
      continue;
    }
    const where = r.ahead === 0 && r.behind === 0 ? 'in sync' : `${r.ahead} ahead, ${r.behind} behind`;
    lines.push(`  ${r.remote}: ${where} (as of the last fetch/push)`);
  }
  return lines;
}
