/**
 * OpenCode adapter (SPEC-2 §C.2). OpenCode reports through our plugin
 * (`.opencode/plugins/entire.ts`, ./plugin.ts) and keeps its sessions in its
 * own database: Entire fetches a session with `opencode export` into
 * `.entire/tmp/<sid>.json` (its transcript here, one JSON document) and gives
 * one back with `opencode import` (./cli.ts, ./restore.ts).
 */
import { delimiter, join } from 'node:path';
import { accessSync, constants } from 'node:fs';
import type { AgentAdapter } from '../types.js';
import { openCodeContextEvents } from './context-events.js';
import { parseOpenCodeHookInput } from './hook-input.js';
import { installOpenCodePlugin, openCodePluginInstalled, openCodePluginOutdated, uninstallOpenCodePlugin } from './plugin.js';
import { openCodeStagingDir, refreshOpenCodeTranscript, stagedExportPath } from './cli.js';
import { restoreOpenCodeSession } from './restore.js';
import { stageChildExport } from './subagents.js';
import {
  analyzeOpenCodeFile,
  analyzeOpenCodeText,
  isOpenCodeExport,
  openCodeFilePosition,
  openCodeProjectRoot,
  openCodeTranscriptEntries,
} from './transcript.js';
import { OPENCODE_VERBS } from './verbs.js';
import { validAgentSessionId as agentSid } from '../../trust/ids.js';

/** Whether an `opencode` executable is on PATH (Entire needs it to read sessions). */
function openCodeOnPath(env: NodeJS.ProcessEnv): boolean {
  for (const dir of (env['PATH'] ?? '').split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, 'opencode'), constants.X_OK);
      return true;
    } catch {
      /* not here */
    }
  }
  return false;
}

export const openCodeAgent: AgentAdapter = {
  key: 'opencode',
  displayName: 'OpenCode',
  transcriptFormat: () => 'json',
  hookVerbs: Object.keys(OPENCODE_VERBS),
  configDirs: ['.opencode/'],
  // the staged export (cli.ts), its transcript while the session lives
  sessionScratch: (sessionId) => [`${sessionId}.json`],

  installHooks: installOpenCodePlugin,
  uninstallHooks: uninstallOpenCodePlugin,
  hooksInstalled: openCodePluginInstalled,
  hooksOutdated: openCodePluginOutdated,
  enableNotes: async (_repoRoot, env) =>
    openCodeOnPath(env) ? [] : ['! OpenCode sessions are read with `opencode export`: put `opencode` on PATH for Entire to record them'],

  parseHookInput: parseOpenCodeHookInput,

  analyzeTranscript: (text, options = {}) => analyzeOpenCodeText(text, options.from ?? 0),
  analyzeTranscriptFile: analyzeOpenCodeFile,
  transcriptPosition: (path) => openCodeFilePosition(path),
  // the export is written whole before the turn end reads it: nothing to wait for
  waitForTranscriptFlush: async () => ({ outcome: 'flushed', waitedMs: 0 }),

  transcriptEntries: (text, _format, from) => openCodeTranscriptEntries(text, from),
  recognizesTranscript: isOpenCodeExport,
  transcriptProjectRoot: (text) => openCodeProjectRoot(text),

  // a subagent is a child session: Entire stages its export beside the parent's (./subagents.ts)
  subagentTranscriptPaths: () => [],
  stageSubagentTranscript: stageChildExport,
  // the export takes seconds and OpenCode waits for post-task: the turn-end worker runs it
  subagentStepsAtTurnEnd: true,
  transcriptRoot: (repoRoot) => openCodeStagingDir(repoRoot),
  refreshTranscript: refreshOpenCodeTranscript,
  // OpenCode names no transcript file: the staged export is the only one read
  resolveTranscriptPath: (repoRoot, sessionId) => stagedExportPath(repoRoot, sessionId),
  restorePath: (repoRoot, sessionId) => stagedExportPath(repoRoot, agentSid(sessionId)),
  restoreSession: restoreOpenCodeSession,
  // yargs, as Gemini: no `--` between `-s` and its value; the checked form keeps the id a value
  resumeArgv: (sessionId) => ['opencode', '-s', agentSid(sessionId)],
  contextEvents: openCodeContextEvents,
  // `opencode -s` opens the TUI; its headless resume is the `run` command, args = its words and flags
  execResumeArgv: (sessionId, args) =>
    args.length === 0 ? ['opencode', '-s', agentSid(sessionId)] : ['opencode', 'run', '--session', agentSid(sessionId), ...args],
  startArgv: (seed) => ['opencode', '--prompt', seed],
  // `run` joins its words into the message: the seed as the first word puts it before the ask
  startExecArgv: (seed, args) => (args.length === 0 ? ['opencode', '--prompt', seed] : ['opencode', 'run', seed, ...args]),
  // opencode 1.18: `Error: Session not found` on stderr, exit 1
  resumeFailure: ({ status, stderr }) => (status !== 0 && stderr.includes('Session not found') ? 'opencode has no such session' : null),
};
