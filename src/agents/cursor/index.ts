/** Cursor adapter (SPEC §7.3, experimental). */
import { cursorContextEvents } from './context.js';
import { waitForFlush } from '../kit/flush.js';
import { jsonlEntries } from '../kit/entries.js';
import { jsonlCwd } from '../kit/jsonl.js';
import type { AgentAdapter } from '../types.js';
import { parseCursorHookInput } from './hook-input.js';
import { cursorHooksInstalled, installCursorHooks, uninstallCursorHooks } from './hooks.js';
import { cleanCursorPrompt } from './text.js';
import { analyzeCursorFile, analyzeCursorJsonl, cursorFilePosition, cursorTranscriptPath, cursorTranscriptRoot } from './transcript.js';
import { CURSOR_VERBS } from './verbs.js';
import { chooseTranscriptPath } from '../../trust/transcript-file.js';
import { validAgentSessionId as agentSid } from '../../trust/ids.js';

/** Cursor's stop carries no answer and its transcript no end marker: the size must settle (v1 §6.2). */
const SETTLE_MS = 500;

export const cursorAgent: AgentAdapter = {
  key: 'cursor',
  displayName: 'Cursor',
  transcriptFormat: () => 'jsonl',
  hookVerbs: Object.keys(CURSOR_VERBS),
  configDirs: ['.cursor/'],

  installHooks: installCursorHooks,
  uninstallHooks: uninstallCursorHooks,
  hooksInstalled: cursorHooksInstalled,

  parseHookInput: parseCursorHookInput,

  analyzeTranscript: (text, options = {}) =>
    analyzeCursorJsonl(text, {
      ...(options.from !== undefined ? { fromLine: options.from } : {}),
      ...(options.baseLine !== undefined ? { baseLine: options.baseLine } : {}),
    }),
  analyzeTranscriptFile: analyzeCursorFile,
  transcriptPosition: cursorFilePosition,
  waitForTranscriptFlush: (path, options) => waitForFlush(path, { ...options, settleMs: SETTLE_MS }),

  transcriptEntries: (text, _format, from) => jsonlEntries(text, from, cleanCursorPrompt),
  // its JSONL is not told apart from other agents' by content (SPEC §2.7): never guessed
  recognizesTranscript: () => false,
  transcriptProjectRoot: (text) => jsonlCwd(text),

  subagentTranscriptPaths: () => [],
  transcriptRoot: cursorTranscriptRoot,
  resolveTranscriptPath: (repoRoot, sessionId, stdinPath, refused) =>
    chooseTranscriptPath(stdinPath, () => cursorTranscriptPath(repoRoot, sessionId), cursorTranscriptRoot(), refused),
  restorePath: (repoRoot, sessionId) => cursorTranscriptPath(repoRoot, agentSid(sessionId)),
  resumeArgv: (sessionId) => ['cursor-agent', '--resume', agentSid(sessionId)],
  startArgv: (seed) => ['cursor-agent', seed],
  contextEvents: cursorContextEvents,
  contextLineLocal: true,
};

export * from './hooks.js';
export * from './transcript.js';
