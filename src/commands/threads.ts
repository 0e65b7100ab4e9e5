/**
 * SPEC-2 §F.1: threads (agent, session id) and the supervisor tasks they worked on, gathered
 * from this repository's session states (live work) and from the checkpoints linked by the
 * current branch's newest first-parent commits (work already committed). `entire tasks` lists
 * them; `entire resume --task` picks the newest thread of one task.
 */
import type { Repo } from '../git/repo.js';
import { listStates } from '../session/store.js';
import { readCheckpoint } from '../store/routing.js';
import { linkedIdsWithSource, type LinkVia } from './session-claims.js';
import { isCheckpointId, isTaskId, sessionIdProblem } from '../trust/ids.js';
import { firstParentCommits } from '../git/first-parent.js';

/** How far back the branch is searched for checkpoints (SPEC-2 §F.1). */
export const THREAD_SCAN_COMMITS = 200;

export interface ThreadCheckpoint {
  checkpointId: string;
  slot: number;
  /** The commit that links it (first-parent order: newest first) and that commit's position (0 = newest). */
  commit: string;
  commitIndex: number;
  /** Linked by the commit's own trailer, or only by a note (issue 25 #2). */
  via: LinkVia;
  /** As the slot claims it (untrusted: display only, never for ranking). */
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
  /** When our own hooks last saw it (its session state's times), for live threads only. */
  observedAt?: string;
  /** The transcript path its session state names (live threads only). */
  liveTranscriptPath?: string;
}

const later = (a: string, b: string): string => (a === '' ? b : b === '' ? a : Date.parse(b) > Date.parse(a) ? b : a);
const earlier = (a: string, b: string): string => (a === '' ? b : b === '' ? a : Date.parse(b) < Date.parse(a) ? b : a);

/** Every thread this repository knows, newest (last used) first; ties by session id. */
export async function collectThreads(repo: Repo, opts: { rev?: string; warn?: (line: string) => void } = {}): Promise<Thread[]> {
  const threads = new Map<string, Thread & { turns: Set<string>; agentVia?: LinkVia }>();
  const get = (sid: string, agent: string, via?: LinkVia): Thread & { turns: Set<string>; agentVia?: LinkVia } => {
    let t = threads.get(sid);
    if (!t) {
      t = { sessionId: sid, agent: '', createdAt: '', lastUsedAt: '', attemptCount: 0, checkpoints: [], live: false, turns: new Set() };
      threads.set(sid, t);
    }
    // a trailer-linked slot names the agent over a note-only one (issue 25 #2)
    if (agent && (!t.agent || (via === 'trailer' && t.agentVia === 'note'))) {
      t.agent = agent;
      if (via) t.agentVia = via;
    }
    return t;
  };

  const seen = new Set<string>();
  const commits = await firstParentCommits(repo, opts.rev ?? 'HEAD', THREAD_SCAN_COMMITS);
  for (let index = 0; index < commits.length; index++) {
    const c = commits[index]!;
    // trailers and notes (SPEC-2 §D.5): a commit made with hooks off is linked by a note (§D.3)
    for (const { id, via } of await linkedIdsWithSource(repo, c.sha, c.message)) {
      if (!isCheckpointId(id) || seen.has(id)) continue;
      seen.add(id);
      const view = await readCheckpoint(repo, id).catch(() => null);
      if (!view) continue;
      for (const w of view.skipped) opts.warn?.(`[entire] Warning: checkpoint ${id}: skipped ${w}`);
      for (const s of view.sessions) {
        const m = s.metadata;
        if (sessionIdProblem(m.session_id) !== null) continue;
        const t = get(m.session_id, m.agent ?? '', via);
        t.checkpoints.push({ checkpointId: id, slot: s.slot < 0 ? 0 : s.slot, commit: c.sha, commitIndex: index, via, createdAt: m.created_at });
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
    const t = get(state.session_id, '');
    // our own session state names the agent, whatever a slot claims (issue 25 #3c)
    if (state.agent_type) t.agent = state.agent_type;
    t.live = true;
    const observed = state.last_interaction_time ?? state.started_at;
    t.observedAt = later(t.observedAt ?? '', observed);
    if (state.transcript_path) t.liveTranscriptPath = state.transcript_path;
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
    const { turns, ...rest } = t;
    const thread: Thread & { agentVia?: LinkVia } = rest;
    delete thread.agentVia;
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

/**
 * Threads in the order `resume` trusts them (issue 25 #3b): this repository's own threads (a
 * session state exists) first, newest by the times our hooks recorded; then threads known only
 * from checkpoints, by the first-parent position of their newest linking commit. Times a slot
 * claims (`created_at`, a teammate can write 2099) never rank.
 */
export function rankByObservation(threads: readonly Thread[]): Thread[] {
  const commitOrder = (t: Thread): number => Math.min(...t.checkpoints.map((c) => c.commitIndex), Number.MAX_SAFE_INTEGER);
  return [...threads].sort((a, b) => {
    if (a.live !== b.live) return a.live ? -1 : 1;
    if (a.live) return Date.parse(b.observedAt || '0') - Date.parse(a.observedAt || '0') || (a.sessionId < b.sessionId ? -1 : 1);
    return commitOrder(a) - commitOrder(b) || (a.sessionId < b.sessionId ? -1 : 1);
  });
}
