/**
 * The `EditsReader` capability (SPEC-3 §B.1): an agent's file edits, in order, read from one of
 * its transcripts (stored or live). The line-provenance commands (`blame`, `why`, `stats`) build
 * on it; an adapter implements it or not, and `editsReaderOf` (./registry.ts) is the one lookup.
 *
 * Types only (no run-time cost); the readers live in `src/agents/<key>/edits.ts` and the shared
 * parsing in `src/agents/kit/`. A transcript is untrusted input (SPEC-2 §A): readers never throw
 * on its content, bound what they hold, and drop every path that does not land inside the repository.
 */

/**
 * `write`: the call gives the file's whole content; `edit`: it replaces a string (old → new);
 * `patch`: an apply_patch / unified-diff hunk set; `delete`: the file is removed.
 */
export type EditKind = 'write' | 'edit' | 'patch' | 'delete';

/** One file change of one tool call (a patch naming three files is three edits with the same `toolUseId`). */
export interface AgentEdit {
  /**
   * 1-based turn of the transcript read: each turn the agent's own records open (a prompt, or a
   * turn with none, such as a background task's completion) counts; 0 before the first.
   */
  turn: number;
  /** 0-based index of the turn's prompt in the adapter's `analyzeTranscript(text).prompts` of the same transcript; -1 before any. */
  promptIndex: number;
  /** Where the call is, in the agent's position unit (JSONL line index, or message index): compare with `checkpoint_transcript_start`. */
  position: number;
  /** The call's id as the transcript names it (`tool_use_id`, `call_id`, `toolCallId`, `callID`). */
  toolUseId: string;
  /** The agent's tool name (`Edit`, `replace`, `apply_patch`, …). */
  tool: string;
  /** Repo-relative, `/`-separated, never `..`, never inside `.git/`. */
  path: string;
  kind: EditKind;
  /** Lines the edit adds, in order, without line terminators (a `\r` before `\n` is dropped). */
  added: string[];
  /** Lines the edit removes, in order (empty when the transcript does not say, e.g. a delete). */
  removed: string[];
  /**
   * True when `added`/`removed` are the tool's old/new strings rather than whole file lines
   * (a string replacement whose applied diff the transcript does not carry): a line of the
   * file may then contain an added line rather than equal it.
   */
  partial?: boolean;
  /** A patch's `*** Move to:` source: the file was renamed from this (repo-relative) path. */
  movedFrom?: string;
  /** The subagent whose call it is (`opts.subagent`, or an id the transcript gives inline). */
  subagent?: string;
}

export interface ReadEditsOptions {
  /** The repository's work-tree root (absolute): paths under it are kept, relative to it. */
  repoRoot: string;
  /**
   * Other absolute roots that stand for the repository in this transcript (where it was
   * recorded: another clone, a moved worktree). Paths under them map to the same relative path.
   */
  projectRoots?: readonly string[];
  /** Skip calls before this position (the agent's unit); turns and prompts before it still count. */
  from?: number;
  /** Marks every edit as this subagent's (a subagent's own transcript file). */
  subagent?: string;
  /** Transcript bytes read at most (default {@link EDITS_LIMITS.maxTranscriptBytes}); a longer one is read up to it. */
  maxBytes?: number;
}

/** Why calls yielded no edit; counted, never thrown (SPEC-2 §A). */
export interface EditsSkipped {
  /** Path outside the repository (or inside `.git/`, or not a path). */
  outside: number;
  /** An edit tool call whose input has no usable shape. */
  malformed: number;
  /** The call failed or was rejected (its result says so). */
  failed: number;
  /** Over a bound: too many edits or lines, a line too long to parse, a truncated transcript. */
  overBudget: number;
}

export interface EditsResult {
  edits: AgentEdit[];
  skipped: EditsSkipped;
}

/** The capability. Pure: no I/O, deterministic, never throws on transcript content. */
export interface EditsReader {
  /** The agent's tool names whose edits it reads (documentation and tests). */
  readonly tools: readonly string[];
  readEdits(transcript: Buffer | string, opts: ReadEditsOptions): EditsResult;
}

/** Bounds on what one read holds (SPEC-2 §A.6: transcripts are untrusted and may be huge). */
export const EDITS_LIMITS = {
  /** Transcript bytes read (256 MiB). */
  maxTranscriptBytes: 256 * 1024 * 1024,
  /** A JSONL line longer than this is not parsed (16 MiB, as the analysers). */
  maxLineBytes: 16 * 1024 * 1024,
  /** Edits kept per read. */
  maxEdits: 50_000,
  /** Lines (added + removed) kept per edit; a larger edit is dropped. */
  maxLinesPerEdit: 100_000,
  /** Lines kept per read, over all edits. */
  maxTotalLines: 2_000_000,
  /** Path length. */
  maxPathLength: 4096,
} as const;
