/**
 * Copilot CLI subagents (the `task` tool: explore, general-purpose, …). A
 * subagent gets an id of its own (`agentId`, a uuid) and fires the repository's
 * userPromptSubmitted and agentStop hooks itself, with `sessionId` = its own id
 * and `parentAgentId` = the session's; sessionStart and sessionEnd fire for the
 * session only. Its events go into the session's events.jsonl, each line
 * tagged with a top-level `agentId` (and `data.parentToolCallId` = the task
 * call). So: its prompt hook is the session's `pre-task`, its stop hook the
 * session's `post-task` (the task keyed by the subagent's id, the only id both
 * hooks carry), never a session of its own; its transcript is its lines of
 * the session's file, staged in `.entire/tmp/`. Ids come from the agent and
 * pass the validators before they name anything (SPEC-2 §A.2).
 */
import { closeSync } from 'node:fs';
import { isAgentId } from '../../trust/ids.js';
import { confinedDir, writeFileIn } from '../../trust/confined.js';
import { openTranscript } from '../../trust/transcript-file.js';
import { lineWindows } from '../../trust/transcript-lines.js';
import { invalid, nonEmpty, requireSessionId, setIf } from '../kit/hook-input.js';
import { waitForFlush } from '../kit/flush.js';
import { copilotFlushProbe } from './flush.js';
import type { HookEvent } from '../types.js';
import { join } from 'node:path';

export interface CopilotSubagentInput {
  sessionId?: string | null;
  agentId?: string | null;
  agentType?: string | null;
  parentAgentId?: string | null;
}

/**
 * A prompt or stop hook of a subagent (it names a parent) becomes the parent
 * session's pre-task / post-task; anything else is left as it is. Returns
 * whether it did.
 */
export function asSubagentHook(ev: HookEvent, label: string, input: CopilotSubagentInput): boolean {
  const parent = nonEmpty(input.parentAgentId);
  if (parent === undefined || (ev.kind !== 'turn-start' && ev.kind !== 'turn-end')) return false;
  const agentId = nonEmpty(input.agentId) ?? ev.sessionId;
  if (!isAgentId(agentId)) throw invalid(`${label}: invalid agentId ${JSON.stringify(agentId.slice(0, 80))}`);
  ev.sessionId = requireSessionId(label, parent, 'parentAgentId');
  ev.kind = ev.kind === 'turn-start' ? 'pre-task' : 'post-task';
  ev.toolUseId = agentId;
  ev.subagentId = agentId;
  ev.toolName = 'task';
  // the subagent's prompt is its task, not the user's
  delete ev.prompt;
  delete ev.rawPrompt;
  setIf(ev, 'subagentType', input.agentType);
  if (input.agentType) ev.taskDescription = `Subagent ${input.agentType}`;
  return true;
}

/** The staged copy of one subagent's lines. */
export function subagentStageName(agentId: string): string {
  return `copilot-subagent-${agentId}.jsonl`;
}

/** Whether one events.jsonl line belongs to the subagent (its top-level `agentId`). */
function isSubagentLine(line: string, agentId: string): boolean {
  if (!line.includes(agentId)) return false;
  try {
    const v = JSON.parse(line) as unknown;
    return v !== null && typeof v === 'object' && (v as { agentId?: unknown }).agentId === agentId;
  } catch {
    return false;
  }
}

/**
 * The adapter's `stageSubagentTranscript`: the subagent's lines of the
 * session's events.jsonl, in order, as `.entire/tmp/copilot-subagent-<id>.jsonl`;
 * null when the file holds none. Waits (bounded) for the subagent's stop to be
 * on disk first; read window by window (SPEC-2 §A.6).
 */
export async function stageCopilotSubagent(repoRoot: string, _sessionId: string, agentId: string, transcriptPath: string): Promise<string | null> {
  if (!isAgentId(agentId)) throw invalid(`invalid agent id ${JSON.stringify(agentId.slice(0, 80))}`);
  // the stop hook can run before the subagent's lines reach the file (SPEC-2 §B.4's wait, capped)
  await waitForFlush(transcriptPath, { probe: (path) => copilotFlushProbe(path, agentId) });
  const o = openTranscript(transcriptPath);
  if (o === null) return null;
  const kept: string[] = [];
  try {
    for (const w of lineWindows(o.fd, 0, o.size)) {
      if (w.kind !== 'lines') continue; // a line over 16 MiB is left out
      const lines = w.buf.toString('utf8').split('\n');
      // the file's last line without its newline may still be being written
      if (!w.terminated) lines.pop();
      for (const line of lines) if (line !== '' && isSubagentLine(line, agentId)) kept.push(line);
    }
  } finally {
    closeSync(o.fd);
  }
  if (kept.length === 0) return null;
  const dir = confinedDir(repoRoot, '.entire/tmp', { mode: 0o750 });
  const name = subagentStageName(agentId);
  writeFileIn(dir, name, kept.join('\n') + '\n');
  return join(dir, name);
}
