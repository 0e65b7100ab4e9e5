/**
 * SPEC §6.8 subagents: `pre-task` snapshots the work tree, `post-task`
 * writes a subagent step if files changed since, `post-todo` (only inside a
 * subagent) an incremental step.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import type { HookContext } from './context.js';
import type { HookEvent, AgentAdapter } from '../agents/types.js';
import { loadState, updateState } from '../session/store.js';
import { writeShadowStep } from '../store/shadow.js';
import { stepSubject } from '../checkpoint/messages.js';
import { tmpDir, writeScratch, readScratch, removeScratch } from './scratch.js';
import { viewWorkTree, turnCandidates, filesTouched } from './worktree.js';
import { migrateIfMoved } from './migrate.js';
import { encodeJson } from '../checkpoint/json.js';
import { EntireError } from '../errors.js';

const TOOL_USE_ID_RE = /^[A-Za-z0-9_-]+$/;

function preTaskPath(root: string, toolUseId: string): string {
  if (!TOOL_USE_ID_RE.test(toolUseId)) throw new EntireError('INVALID_INPUT', 'invalid tool_use_id');
  return join(tmpDir(root), `pre-task-${toolUseId}.json`);
}

interface PreTask {
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
    writeScratch(preTaskPath(ctx.repo.root, toolUseId), snap);
    return;
  }
  if (event.kind === 'post-todo') {
    // only inside a subagent: some pre-task marker of this session exists
    const dir = tmpDir(ctx.repo.root);
    const markers = existsSync(dir) ? readdirSync(dir).filter((n) => n.startsWith('pre-task-') && n.endsWith('.json')) : [];
    const mine = markers
      .map((n) => readScratch<PreTask>(join(dir, n)))
      .filter((m): m is PreTask => m !== null && m.session_id === event.sessionId);
    if (mine.length === 0) return;
    const todos = (event.todos ?? []) as { content?: string; status?: string }[];
    const done = todos.filter((t) => t.status === 'completed').pop();
    const label = done?.content ?? `Planning: ${todos.length} todos`;
    await writeTaskStep(ctx, event, adapter, mine[mine.length - 1]!, label, false);
    return;
  }
  if (event.kind === 'post-task') {
    const path = preTaskPath(ctx.repo.root, toolUseId);
    const pre = readScratch<PreTask>(path);
    await writeTaskStep(ctx, event, adapter, pre, event.taskDescription ?? 'Subagent task', true);
    removeScratch(path);
  }
}

async function writeTaskStep(ctx: HookContext, event: HookEvent, adapter: AgentAdapter, pre: PreTask | null, label: string, final: boolean): Promise<void> {
  const toolUseId = pre?.tool_use_id || event.toolUseId || '';
  if (!TOOL_USE_ID_RE.test(toolUseId)) return;
  const transcriptPath = adapter.resolveTranscriptPath(ctx.repo.root, event.sessionId, event.transcriptPath);
  const sub = event.subagentId ? join(dirname(transcriptPath), `agent-${event.subagentId}.jsonl`) : undefined;
  const subAlt = event.subagentId ? join(dirname(transcriptPath), event.sessionId, 'subagents', `agent-${event.subagentId}.jsonl`) : undefined;
  const subPath = [sub, subAlt].find((p) => p && existsSync(p));
  const view = await viewWorkTree(ctx.repo);
  const subEdits = subPath ? adapter.analyzeTranscript(readFileSync(subPath, 'utf8')).modifiedFiles : [];
  const candidates = turnCandidates({ root: ctx.repo.root, editPaths: subEdits, before: pre?.dirty_files ?? null, now: view });
  const paths = [...candidates].filter((p) => view.differing.has(p));
  if (paths.length === 0) return;
  const state = loadState(ctx.repo.commonDir, event.sessionId)?.state ?? null;
  const taskFiles: Record<string, string> = {
    'checkpoint.json': encodeJson({ session_id: event.sessionId, tool_use_id: toolUseId, agent_id: event.subagentId ?? '', final }),
  };
  if (subPath && event.subagentId) taskFiles[`agent-${event.subagentId}.jsonl`] = readFileSync(subPath, 'utf8');
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
  if (!res.changed) return;
  await updateState(ctx.repo.commonDir, event.sessionId, (s) => {
    if (!s) return null;
    s.checkpoint_count = (s.checkpoint_count ?? 0) + 1;
    const fs = filesTouched(s.files_touched, paths, view.differing);
    if (fs.length > 0) s.files_touched = fs;
    s.base_commit = base;
    s.last_interaction_time = ctx.now().toISOString();
    return s;
  });
}
