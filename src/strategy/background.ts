/**
 * Background subagents (SPEC-2 §B.5). An agent may start a subagent that
 * writes its files after the turn has ended; its completion comes back later
 * as a new user turn. Until then the edit paths in its own transcript are
 * candidates of the session (also while it is idle), and its completion
 * turns them, with whatever changed since the last snapshot, into
 * `files_touched` and a subagent step.
 */
import type { AgentAdapter, HookEvent } from '../agents/types.js';
import { liveBackgroundAgents, type SessionState } from '../session/state.js';
import { loadState, updateState } from '../session/store.js';
import type { HookContext } from './context.js';
import { readPrePrompt, readScratch, removeScratch } from './scratch.js';
import { preTaskName, subagentTranscript, writeTaskStep, type PreTask } from './subagent.js';
import { viewWorkTree, filesTouched } from './worktree.js';

/** Edit paths (as written, usually absolute) the running background subagents' transcripts name after their cursors. */
export function backgroundEditPaths(s: SessionState, adapter: AgentAdapter, now: Date): string[] {
  const out: string[] = [];
  if (!s.transcript_path) return out;
  for (const b of liveBackgroundAgents(s, now)) {
    const file = subagentTranscript(adapter, s.transcript_path, s.session_id, b.agent_id, s.worktree_path ?? '');
    if (file === null) continue;
    try {
      out.push(...adapter.analyzeTranscriptFile(file, { from: b.cursor }).analysis.modifiedFiles);
    } catch {
      /* unreadable now: no edits from it */
    }
  }
  return out;
}

/**
 * A turn start that is a background subagent's completion: before the turn's
 * own snapshot, its paths join `files_touched`, a subagent step with its
 * transcript is written, and the record goes. A completion naming no record
 * (already completed, or never seen) changes nothing.
 */
export async function completeBackgroundAgent(ctx: HookContext, event: HookEvent, adapter: AgentAdapter, transcriptPath: string): Promise<void> {
  const done = event.completes;
  if (!done || !ctx.head) return;
  const state = loadState(ctx.repo.commonDir, event.sessionId)?.state;
  const rec = state?.background_agents?.find((b) => b.agent_id === done.agentId);
  if (!state || !rec) return;
  // "changed since the last snapshot": the last turn start's snapshot, else the launch's
  const prePrompt = readPrePrompt(ctx.repo.root, state.session_id);
  const launch = readScratch<PreTask>(ctx.repo.root, preTaskName(rec.tool_use_id));
  const pre: PreTask = {
    session_id: state.session_id,
    tool_use_id: rec.tool_use_id,
    timestamp: ctx.now().toISOString(),
    dirty_files: prePrompt?.dirty_files ?? launch?.dirty_files ?? {},
    untracked_files: prePrompt?.untracked_files ?? launch?.untracked_files ?? [],
  };
  const stepEvent: HookEvent = { ...event, kind: 'post-task', toolUseId: rec.tool_use_id, subagentId: rec.agent_id, transcriptPath };
  let paths: string[] = [];
  try {
    paths = await writeTaskStep(ctx, stepEvent, adapter, pre, 'Background subagent completed', true);
  } catch (e) {
    ctx.log.warn('could not write the background subagent step', { session_id: state.session_id, details: { agent_id: rec.agent_id }, error: e });
  }
  const view = paths.length > 0 ? await viewWorkTree(ctx.repo) : null;
  await updateState(ctx.repo.commonDir, event.sessionId, (s) => {
    if (!s) return null;
    if (view) {
      const fs = filesTouched(s.files_touched, paths, view.differing);
      if (fs.length > 0) s.files_touched = fs;
    }
    const left = (s.background_agents ?? []).filter((b) => b.agent_id !== rec.agent_id);
    if (left.length > 0) s.background_agents = left;
    else delete s.background_agents;
    return s;
  });
  removeScratch(ctx.repo.root, preTaskName(rec.tool_use_id));
  ctx.log.info('background subagent completed', { session_id: state.session_id, details: { agent_id: rec.agent_id, files: paths.length } });
}
