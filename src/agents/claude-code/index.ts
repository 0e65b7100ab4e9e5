/** Claude Code adapter (SPEC §7.1). */
import { waitForTranscriptFlush } from '../flush.js';
import { parseHookInput } from '../hook-input.js';
import { HOOK_VERBS } from '../hook-verbs.js';
import type { AgentAdapter } from '../types.js';
import { claudeHooksInstalled, installClaudeHooks, uninstallClaudeHooks } from './hooks.js';
import { analyzeClaudeFile, analyzeClaudeJsonl, claudeFilePosition, claudeTranscriptPath, claudeTranscriptRoot } from './transcript.js';
import { chooseTranscriptPath } from '../../trust/transcript-file.js';

export const claudeCodeAgent: AgentAdapter = {
  key: 'claude-code',
  displayName: 'Claude Code',
  transcriptFormat: 'jsonl',
  hookVerbs: Object.keys(HOOK_VERBS['claude-code']),

  installHooks: installClaudeHooks,
  uninstallHooks: uninstallClaudeHooks,
  hooksInstalled: claudeHooksInstalled,

  parseHookInput: (verb, stdinText) => parseHookInput('claude-code', verb, stdinText),

  analyzeTranscript: (text, options = {}) =>
    analyzeClaudeJsonl(text, {
      ...(options.from !== undefined ? { fromLine: options.from } : {}),
      ...(options.baseLine !== undefined ? { baseLine: options.baseLine } : {}),
    }),
  analyzeTranscriptFile: analyzeClaudeFile,
  transcriptPosition: claudeFilePosition,
  waitForTranscriptFlush: (path, options) => waitForTranscriptFlush(path, { ...options, mode: 'claude' }),

  transcriptRoot: claudeTranscriptRoot,
  resolveTranscriptPath: (repoRoot, sessionId, stdinPath, refused) =>
    chooseTranscriptPath(stdinPath, () => claudeTranscriptPath(repoRoot, sessionId), claudeTranscriptRoot(), refused),
  restorePath: claudeTranscriptPath,
  resumeArgv: (sessionId) => ['claude', '-r', sessionId],
};

export * from './hooks.js';
export * from './transcript.js';
