/** Copilot CLI adapter (SPEC-2 §C.0, §C.3). */
import { waitForFlush } from '../kit/flush.js';
import type { AgentAdapter } from '../types.js';
import { copilotContextEvents } from './context-events.js';
import { copilotFlushProbe } from './flush.js';
import { parseCopilotHookInput } from './hook-input.js';
import { copilotHooksInstalled, installCopilotHooks, uninstallCopilotHooks } from './hooks.js';
import { copilotTranscriptEntries } from './render.js';
import {
  analyzeCopilotFile,
  analyzeCopilotText,
  copilotFilePosition,
  copilotProjectRoot,
  copilotTranscriptPath,
  copilotTranscriptRoot,
  isCopilotEventsText,
} from './transcript.js';
import { copilotTrustGaps } from './trust.js';
import { stageCopilotSubagent } from './subagents.js';
import { COPILOT_VERBS } from './verbs.js';
import { chooseTranscriptPath } from '../../trust/transcript-file.js';
import { seedFlagValue } from '../kit/seed-args.js';
import { validAgentSessionId as agentSid } from '../../trust/ids.js';

export const copilotCliAgent: AgentAdapter = {
  key: 'copilot-cli',
  displayName: 'Copilot CLI',
  transcriptFormat: () => 'jsonl',
  hookVerbs: Object.keys(COPILOT_VERBS),
  // its repository configuration is the hook files; the rest of .github/ is the project's own
  configDirs: ['.github/hooks/'],

  installHooks: installCopilotHooks,
  enableNotes: copilotTrustGaps,
  hookTrustGaps: copilotTrustGaps,
  uninstallHooks: uninstallCopilotHooks,
  hooksInstalled: copilotHooksInstalled,

  parseHookInput: parseCopilotHookInput,

  analyzeTranscript: (text, options = {}) => analyzeCopilotText(text, options),
  analyzeTranscriptFile: analyzeCopilotFile,
  transcriptPosition: copilotFilePosition,
  waitForTranscriptFlush: (path, options) => waitForFlush(path, { ...options, probe: copilotFlushProbe }),

  transcriptEntries: copilotTranscriptEntries,
  recognizesTranscript: isCopilotEventsText,
  transcriptProjectRoot: (text) => copilotProjectRoot(text),

  // a subagent's lines live in the session's events.jsonl: Entire stages them (./subagents.ts)
  subagentTranscriptPaths: () => [],
  stageSubagentTranscript: stageCopilotSubagent,
  transcriptRoot: copilotTranscriptRoot,
  resolveTranscriptPath: (repoRoot, sessionId, stdinPath, refused) =>
    chooseTranscriptPath(stdinPath, () => copilotTranscriptPath(repoRoot, sessionId), copilotTranscriptRoot(), refused),
  restorePath: (repoRoot, sessionId) => copilotTranscriptPath(repoRoot, agentSid(sessionId)),
  resumeArgv: (sessionId) => ['copilot', `--resume=${agentSid(sessionId)}`],
  contextEvents: copilotContextEvents,
  contextLineLocal: true,
  startArgv: (seed) => ['copilot', '-i', seed],
  startExecArgv: (seed, args) => ['copilot', ...(seedFlagValue(args, ['-p', '--prompt'], seed) ?? ['-i', seed, ...args])],
  // copilot 1.0: `Error: No session, task, or name matched '<id>'.` on stderr, exit 1
  resumeFailure: ({ status, stderr }) => (status !== 0 && stderr.includes('No session, task, or name matched') ? 'copilot has no such session' : null),
};

export * from './hooks.js';
export * from './transcript.js';
