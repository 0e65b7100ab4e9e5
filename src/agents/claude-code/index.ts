/** Claude Code adapter (SPEC §7.1, SPEC-2 §B). */
import { claudeContextEvents } from './context.js';
import { dirname, join } from 'node:path';
import { waitForFlush } from '../kit/flush.js';
import { jsonlEntries } from '../kit/entries.js';
import { isMessagesDocument, jsonlCwd } from '../kit/jsonl.js';
import { cleanClaudePrompt } from './prompts.js';
import type { AgentAdapter } from '../types.js';
import { claudeFlushProbe } from './flush.js';
import { parseClaudeHookInput } from './hook-input.js';
import { claudeHooksInstalled, installClaudeHooks, uninstallClaudeHooks } from './hooks.js';
import { analyzeClaudeFile, analyzeClaudeJsonl, claudeFilePosition, claudeTranscriptPath, claudeTranscriptRoot } from './transcript.js';
import { CLAUDE_VERBS } from './verbs.js';
import { chooseTranscriptPath } from '../../trust/transcript-file.js';
import { seedFlagValue } from '../kit/seed-args.js';
import { validAgentSessionId as agentSid } from '../../trust/ids.js';

export const claudeCodeAgent: AgentAdapter = {
  key: 'claude-code',
  displayName: 'Claude Code',
  transcriptFormat: () => 'jsonl',
  hookVerbs: Object.keys(CLAUDE_VERBS),
  configDirs: ['.claude/'],

  installHooks: installClaudeHooks,
  uninstallHooks: uninstallClaudeHooks,
  hooksInstalled: claudeHooksInstalled,

  parseHookInput: parseClaudeHookInput,

  analyzeTranscript: (text, options = {}) =>
    analyzeClaudeJsonl(text, {
      ...(options.from !== undefined ? { fromLine: options.from } : {}),
      ...(options.baseLine !== undefined ? { baseLine: options.baseLine } : {}),
    }),
  analyzeTranscriptFile: analyzeClaudeFile,
  transcriptPosition: claudeFilePosition,
  waitForTranscriptFlush: (path, options) => waitForFlush(path, { ...options, probe: claudeFlushProbe(options.response) }),

  transcriptEntries: (text, _format, from) => jsonlEntries(text, from, cleanClaudePrompt),
  // JSONL is the default reading of a slot that names no agent (SPEC §2.10)
  recognizesTranscript: (text) => text.trim() !== '' && !isMessagesDocument(text),
  transcriptProjectRoot: (text) => jsonlCwd(text),

  subagentTranscriptPaths: (transcriptPath, sessionId, agentId) => [
    join(dirname(transcriptPath), `agent-${agentId}.jsonl`),
    join(dirname(transcriptPath), sessionId, 'subagents', `agent-${agentId}.jsonl`),
  ],
  transcriptRoot: claudeTranscriptRoot,
  resolveTranscriptPath: (repoRoot, sessionId, stdinPath, refused) =>
    chooseTranscriptPath(stdinPath, () => claudeTranscriptPath(repoRoot, sessionId), claudeTranscriptRoot(), refused),
  restorePath: (repoRoot, sessionId) => claudeTranscriptPath(repoRoot, agentSid(sessionId)),
  // `-r [value]`: `-r -- <id>` resumes no id (checked on 2.1.332: the picker); the checked form keeps the id a value
  resumeArgv: (sessionId) => ['claude', '-r', agentSid(sessionId)],
  startArgv: (seed) => ['claude', seed],
  // `claude -r <sid> -p <prompt>` is its headless resume: the args are appended as they are
  startExecArgv: (seed, args) => ['claude', ...(seedFlagValue(args, ['-p', '--print'], seed) ?? [seed, ...args])],
  // claude 2.1: `No conversation found with session ID: <sid>` on stderr, exit 1
  resumeFailure: ({ status, stderr }) => (status !== 0 && stderr.includes('No conversation found with session ID') ? 'claude has no such conversation' : null),
  contextEvents: claudeContextEvents,
  contextLineLocal: true,
  sessionStartContext: (text) => ({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: text } }),
};

export * from './hooks.js';
export * from './transcript.js';
