/** Gemini CLI adapter (SPEC §7.2, SPEC-2 §B.6–§B.8). */
import { geminiContextEvents } from './context.js';
import { waitForFlush } from '../kit/flush.js';
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
import { seedFlagValue } from '../kit/seed-args.js';
import { validAgentSessionId as agentSid } from '../../trust/ids.js';

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
  restorePath: (repoRoot, sessionId, content) => geminiRestorePath(repoRoot, agentSid(sessionId), content),
  prepareRestore: registerGeminiProject,
  // `--resume -- <id>` does not hand the id to --resume (checked on 0.61); the checked form keeps it a value
  resumeArgv: (sessionId) => ['gemini', '--resume', agentSid(sessionId)],
  startArgv: (seed) => ['gemini', '-i', seed],
  // `-i` and `-p` exclude each other: headless, the seed goes into `-p`
  startExecArgv: (seed, args) => ['gemini', ...(seedFlagValue(args, ['-p', '--prompt'], seed) ?? ['-i', seed, ...args])],
  // gemini 0.61 exits 42 when `--resume` finds no such session in the project
  resumeFailure: ({ status }) => (status === 42 ? 'gemini found no such session (exit 42)' : null),
  contextEvents: geminiContextEvents,
};

export * from './hooks.js';
export * from './layout.js';
export * from './transcript.js';
