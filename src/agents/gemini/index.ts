/** Gemini CLI adapter (SPEC §7.2). */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readTail, waitForFlush, type FlushProbe } from '../flush.js';
import { isMessagesDocument } from '../jsonl.js';
import type { AgentAdapter } from '../types.js';
import { parseGeminiHookInput } from './hook-input.js';
import { geminiHooksInstalled, installGeminiHooks, uninstallGeminiHooks } from './hooks.js';
import { geminiTranscriptEntries } from './render.js';
import {
  analyzeGeminiFile,
  analyzeGeminiJson,
  geminiChatsDir,
  geminiFilePosition,
  geminiProjectRoot,
  geminiRestorePath,
  geminiTranscriptRoot,
  parseGeminiTranscript,
} from './transcript.js';
import { GEMINI_VERBS } from './verbs.js';
import { chooseTranscriptPath, readTranscriptFile } from '../../trust/transcript-file.js';

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

/** A JSON document is on disk once it parses; until then a settled size proves nothing. */
function documentProbe(path: string): FlushProbe {
  const size = readTail(path, 0).size;
  if (size < 0) return { size, flushed: false };
  try {
    JSON.parse(readTranscriptFile(path)?.toString('utf8') ?? '');
    return { size, flushed: true };
  } catch {
    return { size, flushed: false, mayStabilise: false };
  }
}

export const geminiAgent: AgentAdapter = {
  key: 'gemini',
  displayName: 'Gemini CLI',
  transcriptFormat: 'json',
  hookVerbs: Object.keys(GEMINI_VERBS),
  configDirs: ['.gemini/'],

  installHooks: installGeminiHooks,
  uninstallHooks: uninstallGeminiHooks,
  hooksInstalled: geminiHooksInstalled,

  parseHookInput: parseGeminiHookInput,

  analyzeTranscript: (text, options = {}) => analyzeGeminiJson(text, options.from !== undefined ? { from: options.from } : {}),
  analyzeTranscriptFile: analyzeGeminiFile,
  transcriptPosition: (path) => geminiFilePosition(path),
  waitForTranscriptFlush: (path, options) => waitForFlush(path, { ...options, probe: documentProbe }),

  transcriptEntries: (text, _format, from) => geminiTranscriptEntries(text, from),
  recognizesTranscript: (text) => isMessagesDocument(text),
  transcriptProjectRoot: (text, modifiedFiles) => {
    try {
      return geminiProjectRoot(parseGeminiTranscript(text), modifiedFiles);
    } catch {
      return undefined;
    }
  },

  subagentTranscriptPaths: () => [],
  transcriptRoot: geminiTranscriptRoot,
  resolveTranscriptPath: (repoRoot, sessionId, stdinPath, refused) =>
    chooseTranscriptPath(stdinPath, () => findGeminiTranscript(repoRoot, sessionId), geminiTranscriptRoot(), refused),
  restorePath: geminiRestorePath,
  resumeArgv: (sessionId) => ['gemini', '--resume', sessionId],
};

export * from './hooks.js';
export * from './transcript.js';
