/**
 * Copilot CLI's turn end on disk (SPEC-2 §B.4, §C.3). agentStop carries no
 * answer, but the CLI records each hook run in the transcript before the
 * hook's own output: the turn is on disk once the last record that is not
 * another hook's is the `hook.start` of agentStop. Until then, B.4's size
 * rule (stable 300 ms, capped).
 */
import { linesFromEnd, readTail, type FlushProbe } from '../kit/flush.js';
import { isObj } from '../kit/obj.js';

/**
 * True: the tail ends with this turn's agentStop record (with `agentId`: the stop of that
 * subagent, whose records carry its id); false: not (yet), or unreadable.
 */
export function endsWithAgentStop(tail: string, startsAtFileStart: boolean, agentId?: string): boolean {
  for (const line of linesFromEnd(tail, startsAtFileStart)) {
    if (line.trim() === '') continue;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      return false; // a line still being written
    }
    if (!isObj(v)) return false;
    const type = v['type'];
    const data = isObj(v['data']) ? v['data'] : {};
    if (type === 'hook.start' && data['hookType'] === 'agentStop' && (agentId === undefined || v['agentId'] === agentId)) return true;
    if (type === 'hook.start' || type === 'hook.end') continue; // other hooks (sessionEnd's, a tool's)
    return false;
  }
  return false;
}

/** The turn's (or, with `agentId`, that subagent's) stop on disk, for waitForFlush. */
export function copilotFlushProbe(path: string, agentId?: string): FlushProbe {
  const r = readTail(path);
  if (r.size <= 0) return { size: r.size, flushed: false };
  return { size: r.size, flushed: endsWithAgentStop(r.tail, r.whole, agentId) };
}
