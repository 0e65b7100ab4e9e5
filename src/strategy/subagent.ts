/**
 * SPEC §6.8 subagents: `pre-task` snapshots the work tree, `post-task`
 * writes a subagent step if files changed since, `post-todo` (only inside a
 * subagent) an incremental step. An agent whose subagent transcript is slow
 * to stage (`subagentStepsAtTurnEnd`: a child session exported by the agent's CLI) has its
 * `post-task` only record the finished task; the turn end writes its step.
 */
import { join } from 'node:path';
import type { HookContext } from './context.js';
import type { HookEvent, AgentAdapter } from '../agents/types.js';
import { loadState, updateState } from '../session/store.js';
import type { SessionState } from '../session/state.js';
import { writeShadowStep } from '../store/shadow.js';
import { stepSubject } from '../checkpoint/messages.js';
import { listScratch, writeScratch, readScratch, removeScratch } from './scratch.js';
import { viewWorkTree, turnCandidates, filesTouched } from './worktree.js';
import { migrateIfMoved } from './migrate.js';
import { encodeJson } from '../go-json.js';
import { EntireError } from '../errors.js';
import { isAgentId } from '../trust/ids.js';
import { readTranscriptFile, transcriptOpens, transcriptPathProblem } from '../trust/transcript-file.js';
import { PreRedacted } from '../store/content.js';
import { safeTmpDir } from './scratch.js';
import { FileRangeSource, ConcatSource, bytesOf, type ByteSource } from '../byte-source.js';

export function preTaskName(toolUseId: string): string {
  if (!isAgentId(toolUseId)) throw new EntireError('INVALID_INPUT', 'invalid tool_use_id');
  return `pre-task-${toolUseId}.json`;
}

/** A task `post-task` recorded for the turn end to write (`subagentStepsAtTurnEnd`). */
export function finishedTaskName(toolUseId: string): string {
  if (!isAgentId(toolUseId)) throw new EntireError('INVALID_INPUT', 'invalid tool_use_id');
  return `task-done-${toolUseId}.json`;
}

/** What the turn end needs of a finished task: its ids, label, and the pre-task snapshot. */
export interface FinishedTask {
  session_id: string;
  tool_use_id: string;
  subagent_id?: string;
  description?: string;
  subagent_type?: string;
  finished_at: string;
  pre: PreTask | null;
}

/** The path of the subagent's own transcript where the agent keeps it; null when none opens. */
export function subagentTranscript(adapter: AgentAdapter, transcriptPath: string, sid: string, agentId: string, repoRoot: string): string | null {
  if (!isAgentId(agentId)) return null;
  for (const p of adapter.subagentTranscriptPaths(transcriptPath, sid, agentId)) {
    if (transcriptPathProblem(p, adapter.transcriptRoot(repoRoot)) !== null) continue;
    // a FIFO, a link, too big: not read
    if (transcriptOpens(p)) return p;
  }
  return null;
}

/**
 * An agent that keeps no file per subagent stages one under `.entire/tmp/` (a child session's
 * export, the subagent's lines of the session's file); the path must stay there. A failure
 * only loses the transcript.
 */
async function stagedSubagentTranscript(ctx: HookContext, adapter: AgentAdapter, transcriptPath: string, sid: string, agentId: string): Promise<string | null> {
  if (!adapter.stageSubagentTranscript || !isAgentId(agentId)) return null;
  try {
    const p = await adapter.stageSubagentTranscript(ctx.repo.root, sid, agentId, transcriptPath);
    if (p === null || transcriptPathProblem(p, join(ctx.repo.root, '.entire', 'tmp')) !== null) return null;
    return transcriptOpens(p) ? p : null;
  } catch (e) {
    ctx.log.warn('could not stage the subagent transcript', { session_id: sid, details: { agent_id: agentId }, error: e });
    return null;
  }
}

/** The stored name of a subagent's transcript in its task directory (the extension follows its format). */
function subagentFileName(adapter: AgentAdapter, path: string, agentId: string): string {
  return `agent-${agentId}.${adapter.transcriptFormat(path) === 'json' ? 'json' : 'jsonl'}`;
}

/** The subagent's transcript redacted, left on disk for the store to read in pieces (SPEC-2 §A.6). */
async function redactedSubagentTranscript(root: string, adapter: AgentAdapter, path: string, agentId: string): Promise<PreRedacted | null> {
  try {
    const format = adapter.transcriptFormat(path);
    if (format !== 'jsonl') {
      // a document (a child session's export) is redacted whole, as the session's own is
      const bytes = readTranscriptFile(path);
      if (bytes === null) return null;
      const redact = await import('../redact/index.js');
      return PreRedacted.fromRedactor(redact.redactTranscript(bytes.toString('utf8'), format));
    }
    const { redactJsonlFileOnce } = await import('../redact/incremental.js');
    const u = await redactJsonlFileOnce({ sourcePath: path, cacheDir: safeTmpDir(root, 'redact'), key: `agent-${agentId}` });
    const parts: ByteSource[] = [];
    if (u.outputBytes > 0) parts.push(FileRangeSource.open(u.outputPath, 0, u.outputBytes));
    if (u.tail) parts.push(bytesOf(u.tail));
    return PreRedacted.fromRedactedBytes(parts.length === 1 ? parts[0]! : new ConcatSource(parts));
  } catch {
    return null;
  }
}

export interface PreTask {
  session_id: string;
  tool_use_id: string;
  timestamp: string;
  dirty_files: Record<string, string>;
  untracked_files: string[];
}

export async function subagentHook(ctx: HookContext, event: HookEvent, adapter: AgentAdapter): Promise<void> {
  if (!ctx.head) return;
  const toolUseId = event.toolUseId ?? '';
  if (event.kind === 'pre-task') {
    const view = await viewWorkTree(ctx.repo);
    const snap: PreTask = {
      session_id: event.sessionId,
      tool_use_id: toolUseId,
      timestamp: ctx.now().toISOString(),
      dirty_files: view.signatures,
      untracked_files: view.untracked,
    };
    writeScratch(ctx.repo.root, preTaskName(toolUseId), snap);
    return;
  }
  if (event.kind === 'post-todo') {
    // only inside a subagent: some pre-task marker of this session exists
    const markers = listScratch(ctx.repo.root).filter((n) => n.startsWith('pre-task-') && n.endsWith('.json'));
    const mine = markers
      .map((n) => readScratch<PreTask>(ctx.repo.root, n))
      .filter((m): m is PreTask => m !== null && m.session_id === event.sessionId);
    if (mine.length === 0) return;
    const todos = (event.todos ?? []) as { content?: string; status?: string }[];
    const done = todos.filter((t) => t.status === 'completed').pop();
    const label = done?.content ?? `Planning: ${todos.length} todos`;
    await writeTaskStep(ctx, event, adapter, mine[mine.length - 1]!, label, false);
    return;
  }
  if (event.kind === 'post-task' && event.backgroundLaunch && event.subagentId) {
    // launched, not run (SPEC-2 §B.5): no step now; its pre-task snapshot stays until it completes
    await recordBackgroundLaunch(ctx, event.sessionId, event.subagentId, toolUseId);
    return;
  }
  if (event.kind === 'post-task') {
    const name = preTaskName(toolUseId);
    const pre = readScratch<PreTask>(ctx.repo.root, name);
    if (adapter.subagentStepsAtTurnEnd) {
      // the agent waits for this hook: no export, no git here; the turn end writes the step
      const done: FinishedTask = { session_id: event.sessionId, tool_use_id: toolUseId, finished_at: ctx.now().toISOString(), pre };
      if (event.subagentId) done.subagent_id = event.subagentId;
      if (event.taskDescription !== undefined) done.description = event.taskDescription;
      if (event.subagentType !== undefined) done.subagent_type = event.subagentType;
      writeScratch(ctx.repo.root, finishedTaskName(toolUseId), done);
      removeScratch(ctx.repo.root, name);
      return;
    }
    await writeTaskStep(ctx, event, adapter, pre, event.taskDescription ?? 'Subagent task', true);
    removeScratch(ctx.repo.root, name);
  }
}

/**
 * The turn end (or the next hook that records an open turn) of an agent with
 * `subagentStepsAtTurnEnd`: each task `post-task` recorded for the session, in
 * the order they finished, gets its transcript staged and its step written,
 * before the turn's own step. `state` is the session's, under its lock (the
 * caller saves it). A task whose step fails is logged and dropped, as a
 * failed `post-task` would be.
 */
export async function writeFinishedTasks(ctx: HookContext, state: SessionState, adapter: AgentAdapter): Promise<void> {
  const names = listScratch(ctx.repo.root).filter((n) => n.startsWith('task-done-') && n.endsWith('.json'));
  const tasks = names
    .map((n) => ({ n, t: readScratch<FinishedTask>(ctx.repo.root, n) }))
    .filter((x): x is { n: string; t: FinishedTask } => x.t !== null && x.t.session_id === state.session_id && isAgentId(x.t.tool_use_id))
    .sort((a, b) => (a.t.finished_at < b.t.finished_at ? -1 : a.t.finished_at > b.t.finished_at ? 1 : 0));
  for (const { n, t } of tasks) {
    const event: HookEvent = { kind: 'post-task', agent: adapter.key, verb: 'post-task', sessionId: state.session_id, toolUseId: t.tool_use_id, toolName: 'task' };
    if (typeof t.subagent_id === 'string' && isAgentId(t.subagent_id)) event.subagentId = t.subagent_id;
    if (typeof t.subagent_type === 'string') event.subagentType = t.subagent_type;
    if (state.transcript_path) event.transcriptPath = state.transcript_path;
    try {
      await writeTaskStep(ctx, event, adapter, t.pre, typeof t.description === 'string' ? t.description : 'Subagent task', true, state);
    } catch (e) {
      ctx.log.warn('could not write the subagent step', { session_id: state.session_id, details: { tool_use_id: t.tool_use_id }, error: e });
    }
    removeScratch(ctx.repo.root, n);
  }
}

/**
 * A subagent step: the paths its transcript edits or that changed since
 * `pre`, as they are now, with its transcript. Returns those paths (empty:
 * nothing differs from HEAD, no step). `held`: the session's state, whose
 * lock the caller holds (the turn end): updated in place instead of saved.
 */
export async function writeTaskStep(
  ctx: HookContext,
  event: HookEvent,
  adapter: AgentAdapter,
  pre: PreTask | null,
  label: string,
  final: boolean,
  held?: SessionState,
): Promise<string[]> {
  const toolUseId = pre?.tool_use_id || event.toolUseId || '';
  if (!isAgentId(toolUseId)) return [];
  const transcriptPath = adapter.resolveTranscriptPath(ctx.repo.root, event.sessionId, event.transcriptPath, (why) =>
    ctx.log.warn('transcript path refused', { error: why }),
  );
  // the subagent's file sits beside the (checked) transcript, named by a validated agent id, or Entire stages one
  const subPath =
    transcriptPath && event.subagentId
      ? adapter.stageSubagentTranscript
        ? await stagedSubagentTranscript(ctx, adapter, transcriptPath, event.sessionId, event.subagentId)
        : subagentTranscript(adapter, transcriptPath, event.sessionId, event.subagentId, ctx.repo.root)
      : null;
  const view = await viewWorkTree(ctx.repo);
  let subEdits: string[] = [];
  try {
    if (subPath !== null) subEdits = adapter.analyzeTranscriptFile(subPath).analysis.modifiedFiles;
  } catch {
    /* unreadable now: no edits from it */
  }
  const candidates = turnCandidates({ root: ctx.repo.root, editPaths: subEdits, before: pre?.dirty_files ?? null, now: view });
  const paths = [...candidates].filter((p) => view.differing.has(p));
  if (paths.length === 0) return [];
  const state = held ?? loadState(ctx.repo.commonDir, event.sessionId)?.state ?? null;
  const taskFiles: Record<string, string | PreRedacted> = {
    'checkpoint.json': encodeJson({ session_id: event.sessionId, tool_use_id: toolUseId, agent_id: event.subagentId ?? '', final }),
  };
  const subRedacted = subPath !== null && event.subagentId ? await redactedSubagentTranscript(ctx.repo.root, adapter, subPath, event.subagentId) : null;
  if (subRedacted !== null) taskFiles[subagentFileName(adapter, subPath!, event.subagentId!)] = subRedacted;
  const base = state ? (await migrateIfMoved(ctx, state)).base_commit || ctx.head! : ctx.head!;
  const res = await writeShadowStep(ctx.repo, {
    baseCommit: base,
    worktreeId: ctx.repo.worktreeId,
    sessionId: event.sessionId,
    paths,
    statusPaths: view.status.map((e) => e.path),
    metadata: null,
    subject: stepSubject(label, adapter.displayName),
    taskToolUseId: toolUseId,
    taskFiles,
  });
  if (!res.changed) return paths;
  const apply = (s: SessionState): SessionState => {
    s.checkpoint_count = (s.checkpoint_count ?? 0) + 1;
    const fs = filesTouched(s.files_touched, paths, view.differing);
    if (fs.length > 0) s.files_touched = fs;
    s.base_commit = base;
    s.last_interaction_time = ctx.now().toISOString();
    return s;
  };
  if (held) apply(held);
  else await updateState(ctx.repo.commonDir, event.sessionId, (s) => (s ? apply(s) : null));
  return paths;
}

/** SPEC-2 §B.5: remember a subagent launched in the background (its edits are candidates until it completes). */
async function recordBackgroundLaunch(ctx: HookContext, sid: string, agentId: string, toolUseId: string): Promise<void> {
  if (!isAgentId(toolUseId)) return;
  await updateState(ctx.repo.commonDir, sid, (s) => {
    if (!s) return null;
    const others = (s.background_agents ?? []).filter((b) => b.agent_id !== agentId);
    s.background_agents = [...others, { agent_id: agentId, tool_use_id: toolUseId, started_at: ctx.now().toISOString(), cursor: 0 }];
    return s;
  });
  ctx.log.info('background subagent launched', { session_id: sid, details: { agent_id: agentId, tool_use_id: toolUseId } });
}
