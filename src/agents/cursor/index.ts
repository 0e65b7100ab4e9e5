/** Cursor adapter (SPEC §7.3, experimental). */
import { waitForTranscriptFlush } from '../flush.js';
import { parseHookInput } from '../hook-input.js';
import { HOOK_VERBS } from '../hook-verbs.js';
import type { AgentAdapter } from '../types.js';
import { cursorHooksInstalled, installCursorHooks, uninstallCursorHooks } from './hooks.js';
import { analyzeCursorFile, analyzeCursorJsonl, cursorFilePosition, cursorTranscriptPath, cursorTranscriptRoot } from './transcript.js';
import { chooseTranscriptPath } from '../../trust/transcript-file.js';

export const cursorAgent: AgentAdapter = {
  key: 'cursor',
  displayName: 'Cursor',
  transcriptFormat: 'jsonl',
  hookVerbs: Object.keys(HOOK_VERBS.cursor),

  installHooks: installCursorHooks,
  uninstallHooks: uninstallCursorHooks,
  hooksInstalled: cursorHooksInstalled,

  parseHookInput: (verb, stdinText) => parseHookInput('cursor', verb, stdinText),

  analyzeTranscript: (text, options = {}) =>
    analyzeCursorJsonl(text, {
      ...(options.from !== undefined ? { fromLine: options.from } : {}),
      ...(options.baseLine !== undefined ? { baseLine: options.baseLine } : {}),
    }),
  analyzeTranscriptFile: analyzeCursorFile,
  transcriptPosition: cursorFilePosition,
  // No sentinel line: wait for the size to settle.
  waitForTranscriptFlush: (path, options) => waitForTranscriptFlush(path, { ...options, mode: 'jsonl' }),

  transcriptRoot: cursorTranscriptRoot,
  resolveTranscriptPath: (repoRoot, sessionId, stdinPath, refused) =>
    chooseTranscriptPath(stdinPath, () => cursorTranscriptPath(repoRoot, sessionId), cursorTranscriptRoot(), refused),
  restorePath: (repoRoot, sessionId) => cursorTranscriptPath(repoRoot, sessionId),
  resumeArgv: (sessionId) => ['cursor-agent', '--resume', sessionId],
};

export * from './hooks.js';
export * from './transcript.js';
