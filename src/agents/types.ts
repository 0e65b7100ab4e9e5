/**
 * The agent adapter contract (SPEC §7). Everything here is types only, so
 * importing it costs nothing at run time; the adapters themselves are loaded
 * lazily through ./registry.ts.
 */

/** An agent's key (`entire hooks <key> …`); the registry (./registry.ts) is the only list of them. */
export type AgentKey = string;
/** The name stored in checkpoints and states (`agent`, `agent_type`). */
export type AgentDisplayName = string;
/**
 * How a transcript is stored (SPEC §2.7): `jsonl`, one JSON value per line (redacted and
 * chunked line by line); `json`, one document with `messages[]`. A property of each file, not
 * of an agent: one agent may write either (legacy documents, JSONL today).
 */
export type TranscriptFormat = 'jsonl' | 'json';

/** Token counts in the shape stored in session `metadata.json` (SPEC §2.5). */
export type { TokenUsage } from '../checkpoint/metadata.js';
import type { TokenUsage } from '../checkpoint/metadata.js';
import type { TranscriptEntry } from './kit/entries.js';

/**
 * What a transcript says, from an offset on (SPEC §7). `position` and
 * `lastIdentifier` always describe the whole transcript; the other fields
 * only the part at or after the offset.
 */
export interface TranscriptAnalysis {
  /** The agent's position unit: JSONL line count (`\n` count, +1 for a non-empty unterminated tail), or messages. */
  position: number;
  /** The agent's last entry id (`""` when its lines carry none). */
  lastIdentifier: string;
  /** Edit-tool paths as written in the transcript (usually absolute), deduplicated, first-seen order. */
  modifiedFiles: string[];
  /** Cleaned user prompts, in order. */
  prompts: string[];
  tokenUsage: TokenUsage;
  /** Last assistant text, `""` when there is none. */
  summary: string;
  /** Subagent ids the transcript names (deduplicated). */
  subagentIds: string[];
  /** The model the range's last model call used, when the transcript says (optional: not every agent does). */
  model?: string;
}

/** Where a JSONL reader stopped: the start of the first line it has not fully read. */
export interface TranscriptCursor {
  /** Byte offset of a line start. */
  byte: number;
  /** Number of complete lines before `byte`. */
  line: number;
  /** Last identifier seen up to `byte` (so a later read of only new bytes still knows it). */
  identifier: string;
}

export interface AnalyzeFileOptions {
  /** Offset to analyse from, in the agent's position unit. */
  from?: number;
  /**
   * JSONL only: a cursor returned by an earlier call on the same file. When it
   * is still valid (the file did not shrink, the cursor is at a line start and
   * not after `from`), only the bytes after it are read.
   */
  cursor?: TranscriptCursor;
}

export interface TranscriptFileResult {
  analysis: TranscriptAnalysis;
  /**
   * Where to resume next time; undefined when the reader always reads the whole file
   * (documents, and JSONL whose records patch earlier ones): callers then cache nothing.
   */
  cursor?: TranscriptCursor;
  /** False when the file does not exist (the analysis is then empty, position 0). */
  exists: boolean;
}

export interface TranscriptPositionResult {
  position: number;
  lastIdentifier: string;
  cursor?: TranscriptCursor;
  exists: boolean;
}

// ---------------------------------------------------------------------------
// Context events (SPEC-2 §F.4): the conversation reduced to what the layered context needs

/** What a tool call did, as far as the layered context cares. */
export type ContextToolKind = 'edit' | 'shell' | 'todo' | 'task' | 'question' | 'plan' | 'other';

export interface ContextTodo {
  text: string;
  status: 'pending' | 'in_progress' | 'completed';
}

/**
 * One normalized event of a transcript, in transcript order. Adapters yield only what the user
 * typed as `prompt` (never IDE tags, meta lines, `/clear`, hook output, task notifications or
 * compaction summaries, which are `compaction`).
 */
export type ContextEvent =
  | { type: 'prompt'; text: string }
  /** User text sent beside a tool result, mid-turn. */
  | { type: 'user-note'; text: string }
  /** The user stopped the agent (`[Request interrupted by user]`). */
  | { type: 'interrupt' }
  | { type: 'assistant'; text: string }
  | {
      type: 'tool';
      /** Pairs the call with its `result`. */
      id: string;
      kind: ContextToolKind;
      /** The agent's tool name (`Edit`, `run_shell_command`, …). */
      name: string;
      /** Files the call writes (edit), as the transcript names them. */
      paths?: string[];
      /** Shell: the command line. */
      command?: string;
      /** Todo: the whole list after the call. */
      todos?: ContextTodo[];
      /** Question / plan / task: what was asked or proposed. */
      text?: string;
      /** Edit: the replaced and the new text, when the call says (self-reverts). */
      edit?: { old: string; new: string };
    }
  | {
      type: 'result';
      id: string;
      status: 'ok' | 'error' | 'rejected';
      /** error: the output (its first meaningful line is kept); rejected: the user's feedback; ok: the answer (questions). */
      text?: string;
    }
  /** The agent compacted the conversation; `text` is its summary. */
  | { type: 'compaction'; text: string };

/** A stored transcript handed to `contextEvents`: read it in windows of whole lines, or whole. */
export interface TranscriptText {
  readonly format: TranscriptFormat;
  /** JSONL: consecutive pieces of whole lines, each at most ~1 MiB (a longer line alone). */
  windows(): Iterable<string>;
  /** Everything at once (documents, and JSONL whose lines patch earlier ones). */
  whole(): string;
}

// ---------------------------------------------------------------------------
// Hook events

export type HookEventKind =
  | 'session-start'
  | 'session-end'
  | 'turn-start'
  | 'turn-end'
  | 'pre-task'
  | 'post-task'
  | 'post-todo'
  | 'noop';

/** An agent hook's stdin, normalised across agents. */
export interface HookEvent {
  kind: HookEventKind;
  agent: AgentKey;
  /** The verb as given on the command line (`stop`, `after-agent`, …). */
  verb: string;
  /** `""` only for `noop` events. */
  sessionId: string;
  transcriptPath?: string;
  cwd?: string;
  /** Turn start: the prompt with IDE/system tags removed (SPEC §7.1 prompt rules). */
  prompt?: string;
  /** Turn start: the prompt exactly as the agent sent it. */
  rawPrompt?: string;
  toolUseId?: string;
  toolName?: string;
  toolInput?: Record<string, unknown>;
  toolResponse?: unknown;
  /** Post-task: the subagent's id (`tool_response.agentId`). */
  subagentId?: string;
  /** Pre/post-task: the subagent's type. */
  subagentType?: string;
  /** Pre/post-task: the task's description. */
  taskDescription?: string;
  /** Post-todo: the todo list. */
  todos?: unknown[];
  /** SessionStart `source` (startup|resume|clear|compact). */
  source?: string;
  /** SessionEnd `reason`. */
  reason?: string;
  /** Turn end: the agent's last answer as its payload carries it, when sent. */
  response?: string;
  /** Post-task: the subagent was launched in the background and has not run yet (SPEC-2 §B.5). */
  backgroundLaunch?: boolean;
  /** Turn start: not a prompt but a background subagent's completion (SPEC-2 §B.5). */
  completes?: { agentId: string; toolUseId?: string };
  /** The model the agent's payload names (issue 16), when valid (`isModelName`); the transcript's wins. */
  model?: string;
  /** Fields dropped because they failed a check (SPEC-2 §A.2): the hook logs them. */
  refused?: string[];
}

// ---------------------------------------------------------------------------
// Settings files

export interface HookInstallOptions {
  /** Write the agent's local (unshared) settings file, when it has one. */
  local?: boolean;
  /** Remove our entries first, then add them again. */
  force?: boolean;
}

export interface HookInstallResult {
  /** Repo-relative path of the settings file (for messages). */
  file: string;
  /** Absolute path of the settings file. */
  path: string;
  /** False when the file already had every entry (nothing written). */
  changed: boolean;
}

export interface HookUninstallResult {
  /** Repo-relative paths of the files that were rewritten. */
  files: string[];
  changed: boolean;
}

// ---------------------------------------------------------------------------
// The adapter

export interface AgentAdapter {
  readonly key: AgentKey;
  readonly displayName: AgentDisplayName;
  /** How the transcript at `path` is stored (and so redacted, chunked and restored). */
  transcriptFormat(path: string): TranscriptFormat;
  /** Verbs accepted by `entire hooks <key> <verb>`. */
  readonly hookVerbs: readonly string[];
  /** Repo-relative directories holding the agent's own configuration (never rewound; trailing `/`). */
  readonly configDirs: readonly string[];
  /**
   * Files this agent keeps for a session in the worktree's `.entire/tmp/` (names relative to
   * it), removed with the session's other scratch files when the session is pruned. Optional.
   */
  sessionScratch?(sessionId: string): readonly string[];

  /** Install our hook entries into the repo's agent settings file (merge, idempotent). */
  installHooks(repoRoot: string, options?: HookInstallOptions): HookInstallResult;
  /**
   * Lines `enable` prints after installing the hooks: what still stands between them and the
   * agent (a folder the agent does not trust, a setting it needs). Optional; never throws.
   */
  enableNotes?(repoRoot: string, env: NodeJS.ProcessEnv): Promise<string[]>;
  /**
   * What keeps our installed hooks from running when the agent gates them behind trust or
   * approval (SPEC-2 §C.1), one `! …` line each saying how to grant it; [] when nothing does.
   * `status` and `doctor` (`agent-hooks-untrusted`) report them. Optional; bounded; never throws.
   */
  hookTrustGaps?(repoRoot: string, env: NodeJS.ProcessEnv): Promise<string[]>;
  /**
   * `enable --approve-agent-hooks`, after a terminal confirmation: approve our handlers (those
   * whose command is byte-for-byte ours) in the agent's own configuration, nothing else. Trusting
   * the whole project is a wider grant (the agent then honours the clone's own configuration):
   * it is made only when `ask` — a separate question naming that consequence — says yes
   * (issue 25, point 5). Returns the lines to print.
   */
  approveHooks?(repoRoot: string, env: NodeJS.ProcessEnv, ask: (question: string) => Promise<boolean>): Promise<string[]>;
  /**
   * Our hooks are installed but as an older Entire wrote them (a plugin version this one has
   * replaced): one `! …` line each saying what and the fix (`entire enable --agent <key>` again);
   * [] when current. `status` and `doctor` (`agent-hooks-outdated`; `--force` reinstalls) report
   * them. Optional; never throws.
   */
  hooksOutdated?(repoRoot: string): string[];
  /** Remove exactly our entries (current and legacy spellings) from every settings file we may have written. */
  uninstallHooks(repoRoot: string): HookUninstallResult;
  /** True when our turn-end hook is installed (legacy spellings count). Never throws. */
  hooksInstalled(repoRoot: string): boolean;
  /**
   * The agent kills its session-end hook after a few seconds (SPEC-2 §C.1: 3 s): that hook only
   * records the end, and pending work (condensations, finalizations) waits for the next hook.
   */
  readonly sessionEndStateOnly?: boolean;

  /** stdin JSON → normalised event; throws EntireError INVALID_INPUT / INVALID_USAGE. */
  parseHookInput(verb: string, stdinText: string): HookEvent;

  /** Pure analysis of transcript content (whole file or, for JSONL, a chunk starting at a line start). */
  analyzeTranscript(text: string, options?: { from?: number; baseLine?: number }): TranscriptAnalysis;
  /** Analysis of a transcript file; JSONL reads only the bytes after a valid cursor. */
  analyzeTranscriptFile(path: string, options?: AnalyzeFileOptions): TranscriptFileResult;
  /** Cheap position + last identifier (JSONL: no JSON parsing except the last lines). */
  transcriptPosition(path: string, cursor?: TranscriptCursor): TranscriptPositionResult;
  /**
   * Turn end: wait until the agent has flushed the transcript (SPEC §6.2 step 1,
   * SPEC-2 §B.4); `response` is the last answer from the hook payload.
   */
  waitForTranscriptFlush(path: string, options: { startedAt: number; capMs?: number; response?: string }): Promise<FlushResult>;

  /** `explain`'s view of a stored transcript (SPEC §8.9), from offset `from` in the agent's unit. */
  transcriptEntries(text: string, format: TranscriptFormat, from: number): TranscriptEntry[];
  /** True when `text` is recognisably this agent's transcript (slots that name no agent). */
  recognizesTranscript(text: string): boolean;
  /** The project root a transcript names (for repo-relative paths), when it names one. */
  transcriptProjectRoot(text: string, modifiedFiles: readonly string[]): string | undefined;

  /** Where a subagent's own transcript may be, in preference order (none: the agent has no such files). */
  subagentTranscriptPaths(transcriptPath: string, sessionId: string, agentId: string): string[];
  /**
   * For an agent that keeps no file per subagent (a child session in its database, the subagent's
   * lines inside the session's own file): stage the subagent's transcript under
   * `<repoRoot>/.entire/tmp/` and return its path, or null when there is none. `agentId` is
   * validated (SPEC-2 §A.2); `transcriptPath` is the session's checked transcript. Throws
   * EntireError on failure (the subagent step goes on without a transcript). Optional: without
   * it subagent files are read where `subagentTranscriptPaths` says.
   */
  stageSubagentTranscript?(repoRoot: string, sessionId: string, agentId: string, transcriptPath: string): Promise<string | null>;
  /**
   * `stageSubagentTranscript` is slow (a child session's export through the agent's CLI) and the
   * agent waits for `post-task`: that hook then only records the finished task
   * (`.entire/tmp/task-done-<tool use id>.json`), and the turn end (its worker) stages the
   * transcript and writes the task step, before the turn's own step. Optional.
   */
  readonly subagentStepsAtTurnEnd?: boolean;

  /**
   * The directory every transcript of this agent lives under (SPEC-2 §A.5); null: none on disk.
   * `repoRoot`: the repository at hand, for an agent whose transcript Entire itself stages there
   * (`refreshTranscript`); the others ignore it.
   */
  transcriptRoot(repoRoot: string): string | null;
  /**
   * For an agent whose transcript Entire fetches rather than reads where the agent writes it
   * (an export through the agent's CLI): bring the copy at `path` (a `resolveTranscriptPath`
   * result) up to date. Called at turn end before the flush wait, and before a commit condenses a
   * session in the middle of its turn. A failure leaves the old copy as it was and throws
   * EntireError (the hook logs it and goes on). Optional.
   */
  refreshTranscript?(repoRoot: string, sessionId: string, path: string): Promise<void>;
  /**
   * `transcript_path` from stdin when it passes SPEC-2 §A.5's root check, else the agent's
   * default location for the session (checked too), else `''` (no transcript).
   * `refused` hears why a stdin path was not used.
   */
  resolveTranscriptPath(repoRoot: string, sessionId: string, stdinPath?: string, refused?: (why: string) => void): string;
  /**
   * Where `resume`/`rewind` restore a session's transcript when no stored path applies;
   * `content` (the stored transcript) may decide the file's name and extension.
   */
  restorePath(repoRoot: string, sessionId: string, content?: Buffer): string;
  /**
   * Called before a restore uses `target` (a `restorePath` result inside `transcriptRoot()`):
   * an agent that finds sessions only in projects it knows records the project here.
   * Optional; throws EntireError when the target cannot be made findable (nothing restored).
   */
  prepareRestore?(repoRoot: string, target: string): void;
  /**
   * For an agent that keeps its sessions where Entire writes no file (a database of its own):
   * `resume`/`rewind` hand it the stored (redacted) transcript here instead of writing
   * `restorePath`. Applies SPEC-2 §A.10 itself: a session the agent already holds with other
   * content is replaced only after `consent` (which says yes for `--force`), its old content kept
   * as `backup`. `where` names the place for messages. Throws EntireError when the agent refuses.
   * Optional.
   */
  restoreSession?(
    repoRoot: string,
    sessionId: string,
    content: Buffer,
    consent: (question: string) => Promise<boolean>,
  ): Promise<{ status: 'restored' | 'same' | 'kept'; where: string; backup?: string }>;
  /** argv that resumes the session in the agent (printed shell-quoted, SPEC-2 §A.8). */
  resumeArgv(sessionId: string): string[];
  /**
   * SPEC-2 §F.2: argv `resume --exec -- <agentArgs>` runs. Optional: by default `resumeArgv` with
   * the args appended; an agent whose resume command only opens its TUI maps non-empty args to
   * its headless resume (`<agent> exec resume <sid> <args>`).
   */
  execResumeArgv?(sessionId: string, agentArgs: string[]): string[];
  /**
   * SPEC-2 §F.3: why a resume run `--exec` started failed because the agent has no such session
   * (its exit status, its stderr's tail), else null. Optional: without it a failed run is only
   * its exit status.
   */
  resumeFailure?(run: { status: number; stderr: string }): string | null;

  /**
   * SPEC-2 §F.4: the transcript's conversation as normalized events, in order, for the layered
   * `context.md` (src/context/). Optional: without it an agent's context holds its prompts only.
   * Never throws on malformed lines (they yield nothing).
   */
  contextEvents?(transcript: TranscriptText): Iterable<ContextEvent>;
  /**
   * `contextEvents` reads `windows()` only and a line's events depend on that line alone, so
   * the fold may stop at a line end and resume there on the next call (SPEC-2 §F.4's
   * incremental state). Unset: every derivation folds the whole transcript.
   */
  contextLineLocal?: boolean;
  /**
   * SPEC-2 §F.6: the fields to add to the session-start hook's stdout JSON that hand `text` to
   * a new session. Optional: agents without a verified mechanism get nothing.
   */
  sessionStartContext?(text: string): Record<string, unknown>;
  /**
   * SPEC-2 §F.3: argv that starts a NEW session whose first prompt is `seed` (the fallback when
   * a thread cannot be resumed). Optional: without it the seed is written to a file.
   */
  startArgv?(seed: string): string[];
  /**
   * SPEC-2 §F.3 under `--exec -- <agentArgs>` (args written for the headless resume): argv of the
   * headless new session whose first prompt is `seed` followed by the args' prompt. Optional: by
   * default `startArgv(seed)` with the args appended.
   */
  startExecArgv?(seed: string, agentArgs: string[]): string[];
}

export type FlushOutcome = 'disabled' | 'flushed' | 'stable' | 'timeout';
export interface FlushResult {
  outcome: FlushOutcome;
  waitedMs: number;
}

// ---------------------------------------------------------------------------
// Capabilities found by lookup (SPEC-3 §F.2), declared in their own modules

export type { AgentEdit, EditKind, EditsReader, EditsResult, ReadEditsOptions } from './edits.js';
