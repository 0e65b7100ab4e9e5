/** Gemini CLI adapter (SPEC §7.2, SPEC-2 §B.6–§B.8). */
import { geminiContextEvents } from './context.js';
import { waitForFlush } from '../flush.js';
import type { AgentAdapter } from '../types.js';
import { geminiDocumentProbe, geminiJsonlProbe } from './flush.js';
import { parseGeminiHookInput } from './hook-input.js';
import { geminiHooksInstalled, installGeminiHooks, uninstallGeminiHooks } from './hooks.js';
import { findGeminiTranscript, geminiTranscriptRoot } from './layout.js';
import { geminiTranscriptEntries } from './render.js';
import { geminiRestorePath, registerGeminiProject } from './restore.js';
import {
  analyzeGeminiFile,
  analyzeGeminiText,
  geminiFileFormat,
  geminiFilePosition,
  geminiTextProjectRoot,
  isGeminiSessionText,
} from './transcript.js';
import { geminiEnableNotes } from './trust.js';
import { GEMINI_VERBS } from './verbs.js';
import { chooseTranscriptPath } from '../../trust/transcript-file.js';

export const geminiAgent: AgentAdapter = {
  key: 'gemini',
  displayName: 'Gemini CLI',
  transcriptFormat: geminiFileFormat,
  hookVerbs: Object.keys(GEMINI_VERBS),
  configDirs: ['.gemini/'],

  installHooks: installGeminiHooks,
  enableNotes: geminiEnableNotes,
  uninstallHooks: uninstallGeminiHooks,
  hooksInstalled: geminiHooksInstalled,

  parseHookInput: parseGeminiHookInput,

  analyzeTranscript: (text, options = {}) => analyzeGeminiText(text, options.from !== undefined ? { from: options.from } : {}),
  analyzeTranscriptFile: analyzeGeminiFile,
  transcriptPosition: (path) => geminiFilePosition(path),
  waitForTranscriptFlush: (path, options) =>
    waitForFlush(path, { ...options, probe: geminiFileFormat(path) === 'json' ? geminiDocumentProbe : geminiJsonlProbe(options.response) }),

  transcriptEntries: geminiTranscriptEntries,
  recognizesTranscript: isGeminiSessionText,
  transcriptProjectRoot: geminiTextProjectRoot,

  subagentTranscriptPaths: () => [],
  transcriptRoot: geminiTranscriptRoot,
  resolveTranscriptPath: (repoRoot, sessionId, stdinPath, refused) =>
    chooseTranscriptPath(stdinPath, () => findGeminiTranscript(repoRoot, sessionId), geminiTranscriptRoot(), refused),
  restorePath: geminiRestorePath,
  prepareRestore: registerGeminiProject,
  resumeArgv: (sessionId) => ['gemini', '--resume', sessionId],
  startArgv: (seed) => ['gemini', '-i', seed],
  contextEvents: geminiContextEvents,
};

export * from './hooks.js';
export * from './layout.js';
export * from './transcript.js';
