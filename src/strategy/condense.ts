/**
 * SPEC §6.5 step 2 Condense: write one session's redacted transcript,
 * prompts and metadata into a commit's checkpoint. Also replays a pending
 * condensation recorded when an earlier write failed (P1, P3).
 */
import type { HookContext } from './context.js';
import type { SessionState, PendingCondensation } from '../session/state.js';
import { writeCommittedSession } from '../store/committed.js';
import type { RideAlong } from '../store/branch.js';
import { readShadowTranscript, shadowTranscriptChunks } from '../store/shadow.js';
import { writePrivateFile } from './scratch.js';
import { FileRangeSource } from '../byte-source.js';
import { PreRedacted } from '../store/content.js';
import { shadowBranchName } from '../checkpoint/shadow.js';
import type { TranscriptFormat } from '../agents/types.js';
import { adapterFor, analyze, positionOf, promptsOf, redactedTranscript, readableTranscript, homeRelative, firstLinesOf } from './transcript.js';
import { copyUsage, type TokenUsage } from '../checkpoint/metadata.js';
import { EntireError } from '../errors.js';
import { mark } from '../timing.js';
import { layersForStore } from './context-layers.js';
import { checkpointModel } from '../redact/model-name.js';

/** Transcript usage as stored in metadata (the counters only). */
export const toMetaUsage = copyUsage;

export interface CondenseRequest {
  checkpointId: string;
  state: SessionState;
  /** C(s): this commit's files of the session. */
  files: string[];
  /** Replay: stop the transcript at this position (pending condensations). */
  transcriptEnd?: number;
  transcriptStart?: number;
  stepCount?: number;
  turnId?: string;
  shadowBranch?: string;
  /** Delete this shadow ref together with the checkpoint write (the caller knows nothing else needs it). */
  dropShadowRef?: string;
  /** Ref moves prepared for this checkpoint (its note): they join the checkpoint's ref transaction. */
  alsoMove?: readonly RideAlong[];
}

export async function condenseSession(ctx: HookContext, req: CondenseRequest): Promise<{ slot: number; position: number }> {
  const { state } = req;
  const adapter = await adapterFor(state);
  const path = state.transcript_path;
  const start = req.transcriptStart ?? state.checkpoint_transcript_start ?? 0;
  const shadow = req.shadowBranch ?? (state.base_commit ? shadowBranchName(state.base_commit, ctx.repo.worktreeId) : '');
  let transcript: PreRedacted | string | null = null;
  let format: TranscriptFormat = 'jsonl';
  let prompts: string[] = [];
  let promptsRedacted = false;
  let usage: TokenUsage | undefined;
  let model: string | undefined;
  let position = start;
  if (path && readableTranscript(adapter, path, ctx.repo.root)) {
    const owner = { root: ctx.repo.root, sessionId: state.session_id };
    mark('condense: start');
    const whole = await redactedTranscript(ctx.repo.root, state.session_id, adapter, path);
    mark('condense: redacted transcript');
    position = positionOf(adapter, path, owner).position || start;
    transcript = whole;
    format = adapter.transcriptFormat(path);
    if (req.transcriptEnd !== undefined && format === 'jsonl' && req.transcriptEnd < position) {
      transcript = PreRedacted.fromRedactedBytes(firstLinesOf(whole.bytes(), req.transcriptEnd));
      position = req.transcriptEnd;
    }
    prompts = await promptsOf(adapter, path, owner);
    promptsRedacted = true; // the transcript cache redacts them
    const ranged = analyze(adapter, path, start, owner);
    mark('condense: analysed');
    usage = toMetaUsage(ranged?.tokenUsage);
    model = ranged?.model;
  } else if (shadow) {
    // live transcript gone: the copy on the shadow branch (already redacted)
    // the copy is stored as the live file was (its name says the format, SPEC §2.7)
    format = adapter.transcriptFormat(path ?? '');
    if (format === 'jsonl') {
      const copy = await shadowCopyOnDisk(ctx, shadow, state.session_id).catch(() => null);
      if (copy) {
        transcript = PreRedacted.fromRedactedBytes(FileRangeSource.open(copy.path, 0, copy.size));
        prompts = adapter.analyzeTranscriptFile(copy.path).analysis.prompts;
      }
    } else {
      const copy = await readShadowTranscript(ctx.repo, `refs/heads/${shadow}`, state.session_id, format).catch(() => null);
      if (copy) {
        transcript = PreRedacted.fromRedactor(copy.toString('utf8'));
        prompts = adapter.analyzeTranscript(copy.toString('utf8')).prompts;
      }
    }
  }
  if (!ctx.head) throw new EntireError('NO_COMMITS', 'no HEAD to link');
  const stored = typeof transcript === 'string' ? null : transcript;
  const contextLayers = layersForStore(ctx, { adapter, transcript: stored, format, prompts, sessionId: state.session_id });
  const res = await writeCommittedSession(ctx.repo, {
    checkpointId: req.checkpointId,
    sessionId: state.session_id,
    agent: adapter.displayName,
    taskId: state.task_id,
    model: checkpointModel(model, state.model),
    transcript,
    format,
    prompts,
    promptsRedacted,
    contextLayers,
    filesTouched: req.files,
    checkpointsCount: req.stepCount ?? state.checkpoint_count ?? 0,
    branch: ctx.branch ?? undefined,
    turnId: req.turnId ?? state.turn_id,
    transcriptIdentifierAtStart: state.transcript_identifier_at_start,
    checkpointTranscriptStart: start,
    tokenUsage: usage,
    transcriptPath: homeRelative(path),
    shadowBranch: shadow,
    dropRef: req.dropShadowRef,
    alsoMove: req.alsoMove,
  });
  mark('condense: written');
  return { slot: res.slot, position };
}

/**
 * A JSONL copy on the shadow branch, joined into a private file one chunk at
 * a time (SPEC-2 §A.6: never held whole); null when the branch has none.
 */
async function shadowCopyOnDisk(ctx: HookContext, shadow: string, sessionId: string): Promise<{ path: string; size: number } | null> {
  let any = false;
  async function* joined(): AsyncGenerator<Buffer> {
    for await (const c of shadowTranscriptChunks(ctx.repo, `refs/heads/${shadow}`, sessionId)) {
      if (any) yield Buffer.from('\n');
      any = true;
      yield c;
    }
  }
  const file = await writePrivateFile(ctx.repo.root, 'redact', 'shadow-copy', joined());
  return any ? file : null;
}

/** Build a pending entry sufficient to write exactly this checkpoint later (SPEC §6.5 step 3). */
export function pendingEntry(o: {
  checkpointId: string;
  commit: string;
  files: string[];
  state: SessionState;
  position: number;
  shadowBranch: string;
  error: unknown;
  now: Date;
}): PendingCondensation {
  return {
    checkpoint_id: o.checkpointId,
    commit: o.commit,
    files: o.files,
    transcript_start: o.state.checkpoint_transcript_start ?? 0,
    transcript_end: o.position,
    step_count: o.state.checkpoint_count ?? 0,
    turn_id: o.state.turn_id ?? '',
    shadow_branch: o.shadowBranch,
    attempts: 1,
    last_error: o.error instanceof Error ? o.error.message : String(o.error),
    first_failed_at: o.now.toISOString(),
  };
}
