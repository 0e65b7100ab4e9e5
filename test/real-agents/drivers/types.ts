/**
 * How the tier drives one real agent CLI headless (SPEC-2 §G). Adding an
 * agent = one driver file here + one dialect in ../dialects/ for its model
 * API (docs/testing.md has the checklist).
 */
import type { Dialect } from '../dialects/types.js';
import type { Usage } from '../scripts.js';
import type { ProcResult } from '../world.js';

/** Token usage as Entire records it in a checkpoint's `token_usage`. */
export interface RecordedUsage {
  input_tokens: number;
  cache_creation_tokens: number;
  cache_read_tokens: number;
  output_tokens: number;
}

export interface AgentRun extends ProcResult {
  argv: string[];
  /** The session the run used (fixed by the driver, or read from the CLI's output). */
  sessionId: string;
}

export interface AgentDriver {
  /** Entire's agent key (`entire enable --agent <key>`), also the key in versions.json. */
  key: string;
  /** The display name Entire records in checkpoints. */
  displayName: string;
  /** The model API the CLI speaks, as the scripted server answers it. */
  dialect: Dialect;
  /** Capabilities that select scenarios: a foreground subagent (a task that edits a file), … */
  subagents: boolean;
  /** …one launched in the background whose completion comes back as a new turn (SPEC-2 §B.5). */
  backgroundSubagents: boolean;
  /**
   * Where a subagent's model calls are counted: `separate`, in `token_usage.subagent_tokens` (its own
   * transcript); `session`, in the session's own counts (the session's file records them).
   */
  subagentTokens: 'separate' | 'session';
  /**
   * False when the agent's shell runs git with hooks off (Gemini CLI: an empty core.hooksPath,
   * SPEC-2 §B.8): its own commits get no trailer and are linked at turn end by a note (SPEC-2 §D.3).
   */
  agentCommitsRunHooks: boolean;
  /** Files `entire enable --agent <key>` writes that the repository commits. */
  enableFiles: string[];
  /** The hook verb that ends a turn (its log line carries `flush_wait_ms`, SPEC-2 §B.4). */
  turnEndVerb: string;
  /** What Entire should record for one model call that reported `u` (the agent's own accounting in between). */
  recordedUsagePerCall(u: Usage): RecordedUsage;
  /**
   * The `model` Entire should record in a checkpoint (issue 16) when the CLI's requests name
   * `sent` (their body's `model`, or Gemini's URL); the same name unless the agent qualifies it.
   */
  recordedModel?(sent: string): string;

  /**
   * Agent home files a user would have: onboarding done, auth chosen, these project roots trusted
   * (and, for agents that read it from a file, `serverUrl`, the scripted model server, as their API).
   */
  prepareHome(home: string, projectRoots: string[], apiKey: string, serverUrl?: string): void;
  /** The agent's environment: our server as its API, a fake key, no telemetry or updates. */
  env(serverUrl: string, apiKey: string): Record<string, string>;

  /** argv of a new headless session; `sessionId` is a fresh uuid the driver may impose. */
  startArgv(bin: string, prompt: string, sessionId: string): string[];
  /** argv of the agent's own headless resume of `sessionId` with a new prompt. */
  resumeArgv(bin: string, sessionId: string, prompt: string): string[];
  /** The session id a run used: the imposed one, or what the CLI printed. */
  sessionIdOf(run: { stdout: string; stderr: string }, imposed: string): string;
  /** The final answer the CLI printed. */
  answerOf(run: { stdout: string }): string;

  /** What `entire resume` prints to continue the session. */
  resumeHint(sessionId: string): string;
  /**
   * Problems with a restore (`entire resume`) into `projectRoot` with this
   * HOME: the transcript must be where the agent looks for it. [] = none.
   */
  restoreProblems(home: string, projectRoot: string, sessionId: string, restoredPath: string): string[];

  /** The session's transcript files (main and subagents) under this HOME, for the drift report. */
  transcriptFiles(home: string, sessionId: string): string[];
  /** The kind of one transcript line (`type[/subtype]`) for the drift report. */
  lineKind(line: Record<string, unknown>): string;
}
