/**
 * Cursor transcripts (SPEC §7.3, experimental): Claude-shaped JSONL whose
 * lines carry `role` instead of `type`, no uuids and no token usage, at
 * `~/.cursor/projects/<root without leading '/', non-alphanumerics → '-'>/agent-transcripts/<sid>.jsonl`
 * (the IDE nests `<sid>/<sid>.jsonl`).
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { analyzeJsonl, analyzeJsonlFile, jsonlFilePosition, type JsonlDialect } from '../kit/jsonl.js';
import { homeDir, sanitizePathForDir } from '../kit/home-paths.js';
import { cleanCursorPrompt } from './text.js';
import type { AnalyzeFileOptions, TranscriptAnalysis, TranscriptCursor, TranscriptFileResult, TranscriptPositionResult } from '../types.js';

export const CURSOR_DIALECT: JsonlDialect = {
  roleKey: 'role',
  editTools: new Set(['Write', 'StrReplace']),
  pathKeys: ['path', 'file_path'],
  hasUuid: false,
  hasUsage: false,
  hasSubagents: false,
  cleanPrompt: cleanCursorPrompt,
};

export function analyzeCursorJsonl(text: string, options: { fromLine?: number; baseLine?: number } = {}): TranscriptAnalysis {
  return analyzeJsonl(text, CURSOR_DIALECT, options);
}

export function analyzeCursorFile(path: string, options: AnalyzeFileOptions = {}): TranscriptFileResult {
  return analyzeJsonlFile(path, CURSOR_DIALECT, options);
}

export function cursorFilePosition(path: string, cursor?: TranscriptCursor): TranscriptPositionResult {
  return jsonlFilePosition(path, CURSOR_DIALECT, cursor);
}

/** Where Cursor keeps transcripts (SPEC-2 §A.5): `~/.cursor/projects` (override: ENTIRE_TEST_CURSOR_PROJECT_DIR). */
export function cursorTranscriptRoot(): string {
  return process.env['ENTIRE_TEST_CURSOR_PROJECT_DIR'] || join(homeDir(), '.cursor', 'projects');
}

/** The agent-transcripts directory (override: ENTIRE_TEST_CURSOR_PROJECT_DIR). */
export function cursorTranscriptDir(repoRoot: string): string {
  const override = process.env['ENTIRE_TEST_CURSOR_PROJECT_DIR'];
  if (override) return override;
  const root = resolve(repoRoot).replace(/^\/+/, '');
  return join(homeDir(), '.cursor', 'projects', sanitizePathForDir(root), 'agent-transcripts');
}

/** CLI layout `<dir>/<sid>.jsonl`; the IDE's `<dir>/<sid>/<sid>.jsonl` when only that exists. */
export function cursorTranscriptPath(repoRoot: string, sessionId: string): string {
  const dir = cursorTranscriptDir(repoRoot);
  const flat = join(dir, `${sessionId}.jsonl`);
  if (existsSync(flat)) return flat;
  const nested = join(dir, sessionId, `${sessionId}.jsonl`);
  return existsSync(nested) ? nested : flat;
}
