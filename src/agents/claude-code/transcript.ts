/**
 * Claude Code transcripts (SPEC §7.1): JSONL at
 * `~/.claude/projects/<sanitised repo root>/<sid>.jsonl`.
 */
import { existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import {
  addTokenUsage,
  analyzeJsonl,
  analyzeJsonlFile,
  countLines,
  emptyTokenUsage,
  jsonlFilePosition,
  lastUuid,
  type JsonlDialect,
} from '../kit/jsonl.js';
import { homeDir, sanitizePathForDir } from '../kit/home-paths.js';
import { cleanClaudePrompt, isSystemUserLine } from './prompts.js';
import type {
  AnalyzeFileOptions,
  TokenUsage,
  TranscriptAnalysis,
  TranscriptCursor,
  TranscriptFileResult,
  TranscriptPositionResult,
} from '../types.js';

export const CLAUDE_EDIT_TOOLS: ReadonlySet<string> = new Set([
  'Write',
  'Edit',
  'MultiEdit',
  'NotebookEdit',
  'mcp__acp__Write',
  'mcp__acp__Edit',
]);

/** `message.model` of an assistant line; `<synthetic>` marks a message Claude Code wrote itself, not a model call. */
function claudeModelOf(message: Record<string, unknown>): string | undefined {
  const m = message['model'];
  return typeof m === 'string' && m !== '' && m !== '<synthetic>' ? m : undefined;
}

export const CLAUDE_DIALECT: JsonlDialect = {
  roleKey: 'type',
  editTools: CLAUDE_EDIT_TOOLS,
  pathKeys: ['file_path', 'notebook_path'],
  hasUuid: true,
  hasUsage: true,
  hasSubagents: true,
  cleanPrompt: cleanClaudePrompt,
  isSystemUserLine,
  modelOf: claudeModelOf,
};

export { countLines, lastUuid };

/**
 * Analyse Claude JSONL `text` whose first line is transcript line `baseLine`
 * (default 0), from absolute line `fromLine` on (default: all). Pure; no
 * subagent files are read (their ids are in `subagentIds`).
 */
export function analyzeClaudeJsonl(text: string, options: { fromLine?: number; baseLine?: number } = {}): TranscriptAnalysis {
  return analyzeJsonl(text, CLAUDE_DIALECT, options);
}

const SUBAGENT_ID_RE = /^[A-Za-z0-9_-]+$/;

/** `agent-<id>.jsonl` beside the transcript, else under `<sid>/subagents/`. */
export function subagentTranscriptPath(transcriptPath: string, agentId: string): string | undefined {
  if (!SUBAGENT_ID_RE.test(agentId)) return undefined;
  const dir = dirname(transcriptPath);
  const sid = basename(transcriptPath).replace(/\.jsonl$/, '');
  for (const p of [join(dir, `agent-${agentId}.jsonl`), join(dir, sid, 'subagents', `agent-${agentId}.jsonl`)]) {
    if (existsSync(p)) return p;
  }
  return undefined;
}

/** Summed token usage of the subagent transcripts; undefined when none was found. */
export function subagentTokenUsage(transcriptPath: string, agentIds: readonly string[]): TokenUsage | undefined {
  let total: TokenUsage | undefined;
  for (const id of agentIds) {
    const p = subagentTranscriptPath(transcriptPath, id);
    if (p === undefined) continue;
    try {
      const r = analyzeJsonlFile(p, CLAUDE_DIALECT);
      if (!r.exists) continue;
      total = addTokenUsage(total ?? emptyTokenUsage(), r.analysis.tokenUsage);
    } catch {
      // an unreadable subagent file only loses its tokens
    }
  }
  return total;
}

/**
 * Analyse a Claude transcript file from line `from`, reading only the bytes
 * after a still-valid cursor; adds `subagent_tokens` from the subagent files
 * the analysed lines name.
 */
export function analyzeClaudeFile(path: string, options: AnalyzeFileOptions = {}): TranscriptFileResult {
  const r = analyzeJsonlFile(path, CLAUDE_DIALECT, options);
  if (r.analysis.subagentIds.length > 0) {
    const sub = subagentTokenUsage(path, r.analysis.subagentIds);
    if (sub !== undefined) r.analysis.tokenUsage.subagent_tokens = sub;
  }
  return r;
}

export function claudeFilePosition(path: string, cursor?: TranscriptCursor): TranscriptPositionResult {
  return jsonlFilePosition(path, CLAUDE_DIALECT, cursor);
}

/**
 * Where Claude Code keeps transcripts (SPEC-2 §A.5): `${CLAUDE_CONFIG_DIR:-~/.claude}/projects`
 * (override: ENTIRE_TEST_CLAUDE_PROJECT_DIR, which names the project dir itself).
 */
export function claudeTranscriptRoot(): string {
  const override = process.env['ENTIRE_TEST_CLAUDE_PROJECT_DIR'];
  if (override) return override;
  return join(process.env['CLAUDE_CONFIG_DIR'] || join(homeDir(), '.claude'), 'projects');
}

/** `~/.claude/projects/<abs root, non-alphanumerics → '-'>` (override: ENTIRE_TEST_CLAUDE_PROJECT_DIR). */
export function claudeProjectDir(repoRoot: string): string {
  const override = process.env['ENTIRE_TEST_CLAUDE_PROJECT_DIR'];
  if (override) return override;
  return join(claudeTranscriptRoot(), sanitizePathForDir(resolve(repoRoot)));
}

export function claudeTranscriptPath(repoRoot: string, sessionId: string): string {
  return join(claudeProjectDir(repoRoot), `${sessionId}.jsonl`);
}
