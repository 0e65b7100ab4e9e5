/** Codex CLI adapter (SPEC-2 §C.0, §C.1). */
import { waitForFlush } from '../kit/flush.js';
import { jsonlCwd } from '../kit/jsonl.js';
import type { AgentAdapter } from '../types.js';
import { codexContextEvents } from './context-events.js';
import { chooseTranscriptPath } from '../../trust/transcript-file.js';
import { codexFlushProbe } from './flush.js';
import { parseCodexHookInput } from './hook-input.js';
import { codexHooksInstalled, installCodexHooks, uninstallCodexHooks } from './hooks.js';
import { codexTranscriptEntries } from './render.js';
import { codexRestorePath } from './restore.js';
import { analyzeRolloutText } from './rollout.js';
import { analyzeCodexFile, codexFilePosition, codexTranscriptRoot, findRollout, sessionMeta } from './transcript.js';
import { approveCodexHooks, codexTrustGaps } from './trust.js';
import { CODEX_VERBS } from './verbs.js';
import { seedLastArg } from '../kit/seed-args.js';
import { validAgentSessionId as agentSid } from '../../trust/ids.js';

export const codexAgent: AgentAdapter = {
  key: 'codex',
  displayName: 'Codex',
  transcriptFormat: () => 'jsonl',
  hookVerbs: Object.keys(CODEX_VERBS),
  configDirs: ['.codex/'],

  installHooks: installCodexHooks,
  enableNotes: codexTrustGaps,
  hookTrustGaps: codexTrustGaps,
  approveHooks: approveCodexHooks,
  uninstallHooks: uninstallCodexHooks,
  hooksInstalled: codexHooksInstalled,
  // Codex gives SessionEnd 3 s (SPEC-2 §C.1): it records the end; pending work waits for the next hook
  sessionEndStateOnly: true,

  parseHookInput: parseCodexHookInput,

  // a chunk starting at `baseLine` lacks the token snapshot before it: ranges need the whole text
  analyzeTranscript: (text, options = {}) => {
    const base = options.baseLine ?? 0;
    const r = analyzeRolloutText(text, (options.from ?? 0) - base);
    r.position += base;
    return r;
  },
  analyzeTranscriptFile: analyzeCodexFile,
  transcriptPosition: codexFilePosition,
  waitForTranscriptFlush: (path, options) => waitForFlush(path, { ...options, probe: codexFlushProbe(options.response) }),

  transcriptEntries: (text, _format, from) => codexTranscriptEntries(text, from),
  recognizesTranscript: (text) => sessionMeta(text) !== undefined,
  transcriptProjectRoot: (text) => {
    const cwd = sessionMeta(text)?.['cwd'];
    return typeof cwd === 'string' && cwd !== '' ? cwd : jsonlCwd(text);
  },

  subagentTranscriptPaths: () => [],
  transcriptRoot: codexTranscriptRoot,
  resolveTranscriptPath: (_repoRoot, sessionId, stdinPath, refused) =>
    chooseTranscriptPath(stdinPath, () => findRollout(codexTranscriptRoot(), sessionId) ?? '', codexTranscriptRoot(), refused),
  restorePath: (repoRoot, sessionId, content) => codexRestorePath(repoRoot, agentSid(sessionId), content),
  // clap takes `--` before the positional id (`codex resume -- <id>`)
  resumeArgv: (sessionId) => ['codex', 'resume', '--', agentSid(sessionId)],
  contextEvents: codexContextEvents,
  contextLineLocal: true,
  // `codex resume` is its TUI only (`stdin is not a terminal` otherwise): args make it headless
  // the headless form's args (flags, then the prompt) follow the id, so no `--` there: the checked form keeps the id a value
  execResumeArgv: (sessionId, args) =>
    args.length === 0 ? ['codex', 'resume', '--', agentSid(sessionId)] : ['codex', 'exec', 'resume', agentSid(sessionId), ...args],
  startArgv: (seed) => ['codex', seed],
  startExecArgv: (seed, args) => (args.length === 0 ? ['codex', seed] : ['codex', 'exec', ...seedLastArg(args, seed)]),
  // codex 0.169: `thread/resume failed: no rollout found for thread id <id>` on stderr, exit 1
  resumeFailure: ({ status, stderr }) => (status !== 0 && stderr.includes('no rollout found') ? 'codex found no rollout for it' : null),
};
