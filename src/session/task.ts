/**
 * SPEC-2 §F.1: the supervisor's task a thread works on. A supervisor runs an agent with
 * `ENTIRE_TASK_ID=<id>`; each turn started under it counts as one attempt of that thread.
 */
import type { SessionState } from './state.js';
import { isTaskId } from '../trust/ids.js';

export const TASK_ENV = 'ENTIRE_TASK_ID';

/**
 * Count a turn under the environment's task. An absent variable leaves the state alone (a
 * thread keeps its task between supervised runs); an invalid one is ignored and reported.
 * Returns the refused value, for the caller's log.
 */
export function recordTaskTurn(state: SessionState, env: NodeJS.ProcessEnv): { refused?: string } {
  const raw = env[TASK_ENV];
  if (raw === undefined || raw === '') return {};
  if (!isTaskId(raw)) return { refused: String(raw).slice(0, 40) };
  if (state.task_id === raw) {
    state.task_attempts = (state.task_attempts ?? 0) + 1;
  } else {
    state.task_id = raw;
    state.task_attempts = 1;
  }
  return {};
}
