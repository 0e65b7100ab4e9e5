/** Gemini CLI adapter (SPEC §7.2). */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { waitForTranscriptFlush } from '../flush.js';
import { parseHookInput } from '../hook-input.js';
import { HOOK_VERBS } from '../hook-verbs.js';
import type { AgentAdapter } from '../types.js';
import { geminiHooksInstalled, installGeminiHooks, uninstallGeminiHooks } from './hooks.js';
import { analyzeGeminiFile, analyzeGeminiJson, geminiChatsDir, geminiFilePosition, geminiRestorePath, geminiTranscriptRoot } from './transcript.js';
import { chooseTranscriptPath } from '../../trust/transcript-file.js';

/**
 * Without `transcript_path`: the newest `chats/session-*-<sid[0:8]>.json`
 * (Gemini's own naming) or `session-<sid>.json` (our restore name).
 */
export function findGeminiTranscript(repoRoot: string, sessionId: string): string {
  const dir = geminiChatsDir(repoRoot);
  const restored = `session-${sessionId}.json`;
  const suffix = `-${sessionId.slice(0, 8)}.json`;
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return geminiRestorePath(repoRoot, sessionId);
  }
  const matches = names.filter((n) => n === restored || (n.startsWith('session-') && n.endsWith(suffix))).sort();
  const newest = matches[matches.length - 1];
  return newest !== undefined ? join(dir, newest) : geminiRestorePath(repoRoot, sessionId);
}

export const geminiAgent: AgentAdapter = {
  key: 'gemini',
  displayName: 'Gemini CLI',
  transcriptFormat: 'json',
  hookVerbs: Object.keys(HOOK_VERBS.gemini),

  installHooks: installGeminiHooks,
  uninstallHooks: uninstallGeminiHooks,
  hooksInstalled: geminiHooksInstalled,

  parseHookInput: (verb, stdinText) => parseHookInput('gemini', verb, stdinText),

  analyzeTranscript: (text, options = {}) => analyzeGeminiJson(text, options.from !== undefined ? { from: options.from } : {}),
  analyzeTranscriptFile: analyzeGeminiFile,
  transcriptPosition: (path) => geminiFilePosition(path),
  waitForTranscriptFlush: (path, options) => waitForTranscriptFlush(path, { ...options, mode: 'json' }),

  transcriptRoot: geminiTranscriptRoot,
  resolveTranscriptPath: (repoRoot, sessionId, stdinPath, refused) =>
    chooseTranscriptPath(stdinPath, () => findGeminiTranscript(repoRoot, sessionId), geminiTranscriptRoot(), refused),
  restorePath: geminiRestorePath,
  resumeArgv: (sessionId) => ['gemini', '--resume', sessionId],
};

export * from './hooks.js';
export * from './transcript.js';
