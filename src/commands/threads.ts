/**
 * SPEC-2 §F.1: threads (agent, session id) and the supervisor tasks they worked on, gathered
 * from this repository's session states (live work) and from the checkpoints linked by the
 * current branch's newest first-parent commits (work already committed). `entire tasks` lists
 * them; `entire resume --task` picks the newest thread of one task.
 */
import type { Repo } from '../git/repo.js';
import { listStates } from '../session/store.js';
import { readCheckpoint } from '../store/routing.js';
import { linkedIds } from '../links/commit-ids.js';
import { isCheckpointId, isTaskId, sessionIdProblem } from '../trust/ids.js';
import { firstParentCommits } from './doctor.js';

/** How far back the branch is searched for checkpoints (SPEC-2 §F.1). */
export const THREAD_SCAN_COMMITS = 200;

export interface ThreadCheckpoint {
  checkpointId: string;
  slot: number;
  /** The commit that links it (first-parent order: newest first). */
  commit: string;
  createdAt: string;
}

export interface Thread {
  sessionId: string;
  /** The agent's display name as stored. */
  agent: string;
  taskId?: string;
  createdAt: string;
  lastUsedAt: string;
  /** Turns of this thread under `taskId` (0 without a task). */
  attemptCount: number;
  /** Its checkpoints on this branch, newest first. */
  checkpoints: ThreadCheckpoint[];
  /** True when a session state for it exists in this repository. */
  live: boolean;
}

const later = (a: string, b: string): string => (a === '' ? b : b === '' ? a : Date.parse(b) > Date.parse(a) ? b : a);
const earlier = (a: string, b: string): string => (a === '' ? b : b === '' ? a : Date.parse(b) < Date.parse(a) ? b : a);

/** Every thread this repository knows, newest (last used) first; ties by session id. */
export async function collectThreads(repo: Repo, opts: { rev?: string; warn?: (line: string) => void } = {}): Promise<Thread[]> {
  const threads = new Map<string, Thread & { turns: Set<string> }>();
  const get = (sid: string, agent: string): Thread & { turns: Set<string> } => {
    let t = threads.get(sid);
    if (!t) {
      t = { sessionId: sid, agent, createdAt: '', lastUsedAt: '', attemptCount: 0, checkpoints: [], live: false, turns: new Set() };
      threads.set(sid, t);
    }
    if (!t.agent && agent) t.agent = agent;
    return t;
  };

  const seen = new Set<string>();
  for (const c of await firstParentCommits(repo, opts.rev ?? 'HEAD', THREAD_SCAN_COMMITS)) {
    // trailers and notes (SPEC-2 §D.5): a commit made with hooks off is linked by a note (§D.3)
    for (const id of await linkedIds(repo, c.sha, c.message)) {
      if (!isCheckpointId(id) || seen.has(id)) continue;
      seen.add(id);
      const view = await readCheckpoint(repo, id).catch(() => null);
      if (!view) continue;
      for (const w of view.skipped) opts.warn?.(`[entire] Warning: checkpoint ${id}: skipped ${w}`);
      for (const s of view.sessions) {
        const m = s.metadata;
        if (sessionIdProblem(m.session_id) !== null) continue;
        const t = get(m.session_id, m.agent ?? '');
        t.checkpoints.push({ checkpointId: id, slot: s.slot < 0 ? 0 : s.slot, commit: c.sha, createdAt: m.created_at });
        t.createdAt = earlier(t.createdAt, m.created_at);
        t.lastUsedAt = later(t.lastUsedAt, m.created_at);
        if (m.task_id) {
          // a thread's newest checkpoint names its current task
          if (t.taskId === undefined) t.taskId = m.task_id;
          if (m.task_id === t.taskId) t.turns.add(m.turn_id ?? `${id}/${s.slot}`);
        }
      }
    }
  }

  for (const { state } of listStates(repo.commonDir).states) {
    const t = get(state.session_id, state.agent_type ?? '');
    t.live = true;
    t.createdAt = earlier(t.createdAt, state.started_at);
    t.lastUsedAt = later(t.lastUsedAt, state.last_interaction_time ?? state.started_at);
    if (state.task_id && isTaskId(state.task_id)) {
      // the state counts every turn under its task; checkpoints only the committed ones
      if (t.taskId !== state.task_id) t.turns.clear();
      t.taskId = state.task_id;
      t.attemptCount = Math.max(state.task_attempts ?? 0, t.turns.size);
    }
  }

  const out: Thread[] = [];
  for (const t of threads.values()) {
    const { turns, ...thread } = t;
    if (!t.live && thread.taskId) thread.attemptCount = turns.size;
    out.push(thread);
  }
  return out.sort((a, b) => Date.parse(b.lastUsedAt || '0') - Date.parse(a.lastUsedAt || '0') || (a.sessionId < b.sessionId ? -1 : 1));
}

export interface TaskThreads {
  taskId: string;
  threads: Thread[];
}

/** Threads grouped by task, newest task (by its newest thread) first. */
export function groupByTask(threads: readonly Thread[]): TaskThreads[] {
  const byTask = new Map<string, Thread[]>();
  for (const t of threads) {
    if (!t.taskId) continue;
    const list = byTask.get(t.taskId) ?? [];
    list.push(t);
    byTask.set(t.taskId, list);
  }
  // threads arrive newest first, so each list and the map's insertion order already are
  return [...byTask].map(([taskId, list]) => ({ taskId, threads: list }));
}
