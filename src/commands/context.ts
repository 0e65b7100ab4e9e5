/**
 * SPEC-2 §F.5 `entire context [<commit|checkpoint>] [--session <sid>] [--full] [--json]`: the
 * Execution Register (and with `--full` the Cognitive Cache) of this worktree's live sessions,
 * or of a checkpoint's slots, or of a commit's checkpoints. Never the prompts. Read-only.
 */
import { openRepo, revParse, type Repo } from '../git/repo.js';
import { readCheckpoint } from '../store/routing.js';
import { allCheckpointIds } from '../checkpoint/trailers.js';
import { isCheckpointId } from '../trust/ids.js';
import { sessionsForWorktree } from '../session/index.js';
import { EntireError } from '../errors.js';
import { encodeJson } from '../go-json.js';
import { liveLayers, slotLayers, type SessionLayers } from '../context/stored.js';
import { firstParentCommits } from '../git/first-parent.js';
import { processIo, type Io } from './common.js';

export interface ContextOptions {
  session?: string;
  full?: boolean;
  json?: boolean;
}

interface Found {
  checkpointId?: string;
  sessions: SessionLayers[];
}

/** Every slot's layers of checkpoint `id` (warnings for skipped slots). */
export async function checkpointLayers(repo: Repo, id: string, warn: (l: string) => void): Promise<SessionLayers[]> {
  const view = await readCheckpoint(repo, id);
  if (!view) return [];
  for (const s of view.skipped) warn(`[entire] Warning: checkpoint ${id}: skipped ${s}`);
  const out: SessionLayers[] = [];
  for (const s of view.sessions) {
    const l = await slotLayers(repo, id, s.slot < 0 ? 0 : s.slot).catch(() => null);
    if (l) out.push(l);
  }
  return out;
}

/** The newest checkpoint linked by `rev`'s first-parent history (≤ `max` commits), with its layers. */
export async function newestCheckpointLayers(repo: Repo, rev: string, max: number, warn: (l: string) => void): Promise<Found | null> {
  for (const c of await firstParentCommits(repo, rev, max)) {
    const ids = allCheckpointIds(c.message).filter(isCheckpointId);
    // a commit's last trailer is its newest checkpoint
    for (const id of ids.reverse()) {
      const sessions = await checkpointLayers(repo, id, warn);
      if (sessions.length > 0) return { checkpointId: id, sessions };
    }
  }
  return null;
}

async function find(repo: Repo, target: string | undefined, io: Io): Promise<Found> {
  if (target === undefined) {
    const live: SessionLayers[] = [];
    for (const w of sessionsForWorktree(repo.commonDir, repo.root, repo.worktreeId).sessions) {
      if (w.state.phase === 'ended') continue;
      const l = await liveLayers(repo, w.state).catch(() => null);
      if (l) live.push(l);
    }
    if (live.length > 0) return { sessions: live };
    return (await newestCheckpointLayers(repo, 'HEAD', 200, io.err)) ?? { sessions: [] };
  }
  if (isCheckpointId(target) && (await readCheckpoint(repo, target))) return { checkpointId: target, sessions: await checkpointLayers(repo, target, io.err) };
  const sha = target.startsWith('-') ? null : await revParse(repo, `${target}^{commit}`);
  if (!sha) throw new EntireError('INVALID_INPUT', `not a checkpoint or commit: ${target}`);
  const commit = (await firstParentCommits(repo, sha, 1))[0];
  const sessions: SessionLayers[] = [];
  let checkpointId: string | undefined;
  for (const id of allCheckpointIds(commit?.message ?? '').filter(isCheckpointId)) {
    const found = await checkpointLayers(repo, id, io.err);
    if (found.length > 0) checkpointId ??= id;
    sessions.push(...found);
  }
  return { checkpointId, sessions };
}

export async function runContext(cwd: string, target: string | undefined, opts: ContextOptions, io: Io = processIo): Promise<number> {
  const repo = await openRepo(cwd);
  try {
    const found = await find(repo, target, io);
    let sessions = found.sessions;
    if (opts.session) {
      const want = opts.session;
      sessions = sessions.filter((s) => s.sessionId === want || (want.length >= 8 && s.sessionId.startsWith(want)));
    }
    if (sessions.length === 0) throw new EntireError('CONTEXT_NOT_FOUND', target ? `no context found for ${target}` : 'no live session and no checkpoint on this branch');
    if (opts.json) {
      const doc: Record<string, unknown> = {};
      if (found.checkpointId) doc['checkpoint_id'] = found.checkpointId;
      doc['sessions'] = sessions.map((s) => ({ session_id: s.sessionId, agent: s.agent, l1: s.l1, ...(opts.full ? { l2: s.l2 } : {}) }));
      io.raw(encodeJson(doc));
      return 0;
    }
    sessions.forEach((s, i) => {
      if (i > 0) io.out('');
      io.out(`Session ${s.sessionId}${s.agent ? ` (${s.agent})` : ''}${found.checkpointId ? `, checkpoint ${found.checkpointId}` : ''}`);
      io.out('');
      io.out(s.l1);
      if (opts.full && s.l2) {
        io.out('');
        io.out(s.l2);
      }
    });
    return 0;
  } finally {
    repo.objects.close();
  }
}
