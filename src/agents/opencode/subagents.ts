/**
 * OpenCode subagents. The `task` tool runs a child session (its own id,
 * `parentID` = the session's) and returns when the child is done; the child's
 * messages are not in the parent's export. Our plugin reports the call as
 * `pre-task` / `post-task` (tool_use_id = the call id, subagent_id = the
 * child session's id from the tool's `metadata.sessionId`), and Entire stages
 * the child's own export beside the parent's, as the task's transcript.
 * Child ids come from the agent: they name a file only once they pass both
 * the agent-id and the session-id validators (SPEC-2 §A.2).
 */
import { dirname, join } from 'node:path';
import { isAgentId, isSessionId } from '../../trust/ids.js';
import { str } from '../kit/entries.js';
import { isObj } from '../kit/obj.js';
import { invalid, nonEmpty, setIf } from '../kit/hook-input.js';
import type { HookEvent } from '../types.js';
import { refreshOpenCodeTranscript, stagedExportPath } from './cli.js';

/** A child session id that may name a staged export (and a task transcript file). */
export function isChildSessionId(id: unknown): boolean {
  return typeof id === 'string' && isAgentId(id) && isSessionId(id);
}

/** pre-task / post-task: the call id (required), the child session, the task's label and kind. */
export function setTaskFields(
  ev: HookEvent,
  label: string,
  input: { tool_use_id?: string | null; subagent_id?: string | null; tool_input?: Record<string, unknown> | null },
): void {
  const toolUseId = nonEmpty(input.tool_use_id);
  if (toolUseId === undefined) throw invalid(`${label}: hook input has no tool_use_id`);
  if (!isAgentId(toolUseId)) throw invalid(`${label}: invalid tool_use_id ${JSON.stringify(toolUseId.slice(0, 80))}`);
  ev.toolUseId = toolUseId;
  ev.toolName = 'task';
  const child = nonEmpty(input.subagent_id);
  if (child !== undefined && isChildSessionId(child)) ev.subagentId = child;
  else if (child !== undefined) (ev.refused ??= []).push(`subagent_id ${JSON.stringify(child.slice(0, 80))} is not a valid child session id`);
  const toolInput = input.tool_input ?? undefined;
  if (toolInput) {
    const description = toolInput['description'];
    const type = toolInput['subagent_type'];
    setIf(ev, 'taskDescription', typeof description === 'string' ? description : undefined);
    setIf(ev, 'subagentType', typeof type === 'string' ? type : undefined);
  }
}

/** Where a child session's export is staged: beside the parent's (`.entire/tmp/<child id>.json`). */
export function childExportPaths(transcriptPath: string, childId: string): string[] {
  return isChildSessionId(childId) ? [join(dirname(transcriptPath), `${childId}.json`)] : [];
}

/** The adapter's `stageSubagentTranscript`: the child session's export, staged beside the parent's. */
export async function stageChildExport(repoRoot: string, _sessionId: string, childId: string, transcriptPath: string): Promise<string | null> {
  if (!isChildSessionId(childId)) throw invalid(`invalid child session id ${JSON.stringify(childId.slice(0, 80))}`);
  const path = stagedExportPath(repoRoot, childId);
  await refreshOpenCodeTranscript(repoRoot, childId, path);
  // the tokens of the parent's analysis find it beside the parent's export
  return childExportPaths(transcriptPath, childId)[0] === path ? path : null;
}

/** The child sessions a message's finished `task` calls ran (`state.metadata.sessionId`), valid ids only. */
export function childSessionIdsOf(parts: readonly Record<string, unknown>[]): string[] {
  const out: string[] = [];
  for (const p of parts) {
    if (p['type'] !== 'tool' || p['tool'] !== 'task') continue;
    const state = isObj(p['state']) ? p['state'] : {};
    const meta = isObj(state['metadata']) ? state['metadata'] : {};
    const id = str(meta['sessionId']);
    if (isChildSessionId(id)) out.push(id);
  }
  return out;
}
