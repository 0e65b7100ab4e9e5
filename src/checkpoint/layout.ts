/**
 * SPEC §2.3/§2.4: what goes where inside a checkpoint directory. Pure: given
 * what is in the tree and what a session brings, decide the files to write.
 */
import { chunkFileName, chunkTranscript, contentHash, chunkIndexOf } from './chunks.js';
import {
  addUsage,
  encodeRootMetadata,
  encodeSessionMetadata,
  sessionPathsFor,
  type RootMetadata,
  type SessionMetadata,
  type TokenUsage,
} from './metadata.js';
import { encodeContextFile, encodePromptFile } from './prompts.js';
import type { ByteSource } from '../byte-source.js';

export interface SlotInfo {
  slot: number;
  sessionId: string;
  metadata: SessionMetadata;
  /** File names present in the slot directory. */
  files: string[];
}

/** Slot of `sessionId` if present, else (highest numeric slot)+1, else 0. */
export function chooseSlot(slots: readonly SlotInfo[], sessionId: string): { slot: number; existing: boolean } {
  const hit = slots.find((s) => s.sessionId === sessionId);
  if (hit) return { slot: hit.slot, existing: true };
  const max = slots.reduce((m, s) => Math.max(m, s.slot), -1);
  return { slot: max + 1, existing: false };
}

/** Files of one session slot (names relative to the slot dir) → content. */
/** A transcript already stored as one blob: referenced, not re-sent (see store/content.ts). */
export interface StoredTranscript {
  oid: string;
  sha256: string;
}

/**
 * A transcript chunked already, its chunks read from disk when their blobs
 * are written (SPEC-2 §A.6: a big transcript is never held whole).
 */
export interface ChunkedTranscript {
  chunks: ByteSource[];
  /** hex sha256 of the whole transcript. */
  sha256: string;
}

export type SlotFile = Buffer | string | { oid: string } | ByteSource;

export function slotFiles(o: {
  metadata: SessionMetadata;
  transcript: Buffer | StoredTranscript | ChunkedTranscript | null;
  format: 'jsonl' | 'json';
  prompts: readonly string[];
  /** SPEC-2 §F.4 layers of `context.md` (else v1's prompt list). */
  layers?: { l1: string; l2: string } | null;
}): Map<string, SlotFile> {
  const files = new Map<string, SlotFile>();
  files.set('metadata.json', encodeSessionMetadata(o.metadata));
  if (o.transcript !== null && 'chunks' in o.transcript) {
    o.transcript.chunks.forEach((c, i) => files.set(chunkFileName(i), c));
    files.set('content_hash.txt', 'sha256:' + o.transcript.sha256);
  } else if (o.transcript !== null && !Buffer.isBuffer(o.transcript)) {
    files.set(chunkFileName(0), { oid: o.transcript.oid });
    files.set('content_hash.txt', 'sha256:' + o.transcript.sha256);
  } else if (o.transcript !== null) {
    const chunks = chunkTranscript(o.transcript, o.format);
    chunks.forEach((c, i) => files.set(chunkFileName(i), c));
    files.set('content_hash.txt', contentHash(o.transcript));
  }
  const prompt = encodePromptFile(o.prompts);
  if (prompt !== '') files.set('prompt.txt', prompt);
  const context = encodeContextFile(o.prompts, o.layers);
  if (context !== '') files.set('context.md', context);
  return files;
}

/** Transcript-related file names (deleted before a finalize rewrites them). */
export function isTranscriptFile(name: string): boolean {
  return chunkIndexOf(name) !== null || name === 'content_hash.txt';
}

/** Rebuild the root summary from every slot (SPEC §2.4). */
export function aggregateRoot(o: {
  checkpointId: string;
  shard: string;
  cliVersion: string;
  strategy: string;
  branch: string | undefined;
  slots: readonly SlotInfo[];
  previous: RootMetadata | null;
}): string {
  const slots = [...o.slots].sort((a, b) => a.slot - b.slot);
  let count = 0;
  const files = new Set<string>();
  let usage: TokenUsage | undefined;
  for (const s of slots) {
    count += s.metadata.checkpoints_count;
    for (const f of s.metadata.files_touched ?? []) files.add(f);
    if (s.metadata.token_usage) {
      const { subagent_tokens: _omit, ...plain } = s.metadata.token_usage;
      usage = addUsage(usage, plain);
    }
  }
  const root: RootMetadata = {
    cli_version: o.cliVersion,
    checkpoint_id: o.checkpointId,
    strategy: o.strategy,
    checkpoints_count: count,
    files_touched: files.size > 0 ? [...files].sort() : null,
    sessions: slots.map((s) =>
      sessionPathsFor(o.shard, s.slot, { context: s.files.includes('context.md'), prompt: s.files.includes('prompt.txt') }),
    ),
  };
  const branch = o.branch ?? o.previous?.branch;
  if (branch) root.branch = branch;
  if (usage) root.token_usage = usage;
  if (o.previous?.extra) root.extra = o.previous.extra;
  return encodeRootMetadata(root);
}
