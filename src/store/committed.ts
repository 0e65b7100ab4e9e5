/**
 * The committed store: checkpoints on `entire/checkpoints/v1` (SPEC §2.3–2.5,
 * §6.5 condense, §6.6 UpdateCommitted). Writes touch only the checkpoint's
 * shard; reads accept every legacy shape of §2.10.
 */
import { EntireError } from '../errors.js';
import { mark } from '../timing.js';
import type { Repo } from '../git/repo.js';
import { blobOid } from '../git/objects.js';
import type { TreeChange } from '../git/fastimport.js';
import { assertCheckpointId, isHexCheckpointId, shardPath } from '../checkpoint/id.js';
import { METADATA_REF } from '../checkpoint/shadow.js';
import { metadataSources, readerSources, sourceRefs, type MetadataSource } from './sources.js';
import { slotStrictlyExtends } from '../sync/merge.js';
import { condenseMessage, finalizeMessage, STRATEGY } from '../checkpoint/messages.js';
import {
  decodeRootMetadata,
  decodeSessionMetadata,
  formatCreatedAt,
  type RootMetadata,
  type SessionMetadata,
  type TokenUsage,
} from '../checkpoint/metadata.js';
import { aggregateRoot, chooseSlot, isTranscriptFile, slotFiles, type ChunkedTranscript, type SlotFile, type SlotInfo } from '../checkpoint/layout.js';
import { chunkJsonlSource, joinTranscriptChunks, orderedChunkNames, looksLikeJsonDocument, MAX_CHUNK_BYTES, sha256Of } from '../checkpoint/chunks.js';
import { ByteSource } from '../byte-source.js';
import { decodePromptFile } from '../checkpoint/prompts.js';
import type { Layers } from '../context/layers.js';
import { CLI_VERSION } from '../version.js';
import { casWrite, ensureMetadataBranch, type RideAlong } from './branch.js';
import { readBlob, readDir, readTreeByOid, subdirs, files as fileEntries } from './tree.js';
import { PreRedacted, type TranscriptInput, type BlobRef } from './content.js';
import type { TreeEntry } from '../git/objects.js';
import { acceptedEntries } from '../checkpoint/accept.js';
import { sessionIdProblem } from '../trust/ids.js';

export interface SessionWrite {
  checkpointId: string;
  sessionId: string;
  /** The agent's display name. */
  agent?: string;
  /** SPEC-2 §F.1: the session's task (`ENTIRE_TASK_ID`). */
  taskId?: string;
  /** The model of the checkpoint's range (issue 16); an invalid name is left out by the encoder. */
  model?: string;
  /** Whole transcript; plain text is redacted here. null = none stored. */
  transcript: TranscriptInput;
  format: 'jsonl' | 'json';
  /** User prompts (redacted here, unless `promptsRedacted`). */
  prompts: string[];
  /** The prompts come redacted (the transcript cache's): skip loading the redactor. */
  promptsRedacted?: boolean;
  /** SPEC-2 §F.4 layers of `context.md`, derived from the redacted transcript (stored as given). */
  contextLayers?: Layers | null;
  filesTouched: string[];
  checkpointsCount: number;
  branch?: string;
  createdAt?: Date;
  turnId?: string;
  transcriptIdentifierAtStart?: string;
  checkpointTranscriptStart?: number;
  tokenUsage?: TokenUsage;
  summary?: unknown;
  transcriptPath?: string;
  isTask?: boolean;
  toolUseId?: string;
  /** For the commit message's `Ephemeral-branch` trailer. */
  shadowBranch: string;
  /** A shadow branch this write makes obsolete: deleted in the same ref transaction. */
  dropRef?: string;
  /** Prepared ref moves that depend on this checkpoint (its note): carried in the same transaction. */
  alsoMove?: readonly RideAlong[];
}

export interface SessionUpdate {
  checkpointId: string;
  sessionId: string;
  transcript: TranscriptInput;
  format: 'jsonl' | 'json';
  prompts: string[];
  promptsRedacted?: boolean;
  /** SPEC-2 §F.4 layers of `context.md` for the whole transcript (finalization). */
  contextLayers?: Layers | null;
  /** Replace the slot's token usage when given (SPEC §6.6 step 3). */
  tokenUsage?: TokenUsage;
  /** Replace the slot's model when given (the whole turn's range may name a later one). */
  model?: string;
}

type Redactor = typeof import('../redact/index.js');
let redactor: Redactor | undefined;
async function redact(): Promise<Redactor> {
  redactor ??= await import('../redact/index.js');
  return redactor;
}

async function redactedTranscript(t: TranscriptInput, format: 'jsonl' | 'json'): Promise<Buffer | BlobRef | ChunkedTranscript | null> {
  if (t === null) return null;
  if (t instanceof PreRedacted) {
    // stored already as one blob that fits a chunk: reference it
    if (t.blob && t.blob.bytes <= MAX_CHUNK_BYTES) return t.blob;
    // JSONL is chunked from the bytes on disk, each chunk read when its blob is written (SPEC-2 §A.6)
    if (format === 'jsonl') {
      const bytes = t.bytes();
      return { chunks: chunkJsonlSource(bytes), sha256: sha256Of(bytes) };
    }
    return Buffer.from(await t.text(), 'utf8');
  }
  return Buffer.from((await redact()).redactTranscript(t, format), 'utf8');
}

async function redactedPrompts(prompts: string[], already = false): Promise<string[]> {
  if (prompts.length === 0 || already) return prompts;
  const r = await redact();
  return prompts.map((p) => r.redactString(p));
}

// ------------------------------------------------------------------ reading tree state

interface CheckpointDir {
  /** The checkpoint's directory in the source's tree: v1's `<id[:2]>/<id[2:]>`, `''` for a ref's root (SPEC-3 §A.2). */
  shard: string;
  /** The checkpoint directory's entries the layout accepts (SPEC-2 §A.7). */
  entries: TreeEntry[];
  root: RootMetadata | null;
  slots: SlotInfo[];
  /** Slots left out, and why (a session id failing SPEC-2 §A.2, metadata that is not an object). */
  skipped: string[];
  /** Each kept slot's tree id. */
  slotOids: Map<number, string>;
}

function parseJson(buf: Buffer, path: string, where: string): unknown {
  try {
    return JSON.parse(buf.toString('utf8'));
  } catch (e) {
    throw new EntireError('CORRUPT_METADATA', `corrupt metadata.json at ${path} on ${where}`, { cause: e, detail: { path } });
  }
}

/** `base/name`, or `name` at a tree's root. */
function under(base: string, name: string): string {
  return base === '' ? name : `${base}/${name}`;
}

/** Where a checkpoint's directory is read from: `shard` '' = a ref's root tree (refs-v1), else v1's shard path. */
function describe(shard: string, id: string): string {
  return shard === '' ? `refs/entire/checkpoints/${id.slice(-2)}/${id}` : 'entire/checkpoints/v1';
}

/**
 * A checkpoint directory at `base` in `commit` (v1: `<id[:2]>/<id[2:]>`, the
 * default; refs-v1: `''`, the ref's root tree). The codec is the same for both.
 */
async function loadCheckpointDir(repo: Repo, commit: string, id: string, base?: string): Promise<CheckpointDir | null> {
  const shard = base ?? shardPath(id);
  const where = describe(shard, id);
  const all = await readDir(repo, commit, shard);
  if (!all) return null;
  // whatever the branch holds (a teammate's data too), only the §2.3 layout is read (SPEC-2 §A.7)
  const entries = acceptedEntries('checkpoint', all).kept;
  const rootBlob = entries.find((e) => e.name === 'metadata.json');
  let root: RootMetadata | null = null;
  if (rootBlob) {
    const data = await repo.objects.read(rootBlob.oid);
    if (data) root = decodeRootMetadata(parseJson(data.data, under(shard, 'metadata.json'), where), id);
  }
  const numeric = subdirs(entries).sort((a, b) => Number(a.name) - Number(b.name));
  const skipped: string[] = [];
  const slots = await Promise.all(
    numeric.map(async (e): Promise<SlotInfo | null> => {
      const list = await readTreeByOid(repo, e.oid);
      if (!list) return null;
      const mdEntry = list.find((x) => x.name === 'metadata.json' && x.mode === '100644');
      if (!mdEntry) return null;
      const md = await repo.objects.read(mdEntry.oid);
      if (!md) return null;
      const raw = parseJson(md.data, under(shard, `${e.name}/metadata.json`), where);
      if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
        skipped.push(`slot ${e.name}: metadata.json is not an object`);
        return null;
      }
      const metadata = decodeSessionMetadata(raw, id);
      const problem = sessionIdProblem(metadata.session_id);
      if (problem !== null) {
        skipped.push(`slot ${e.name}: ${problem}`);
        return null;
      }
      const files = acceptedEntries('slot', fileEntries(list)).kept.map((x) => x.name);
      return { slot: Number(e.name), sessionId: metadata.session_id, metadata, files };
    }),
  );
  const slotOids = new Map(numeric.map((e) => [Number(e.name), e.oid]));
  return { shard, entries, root, slots: slots.filter((s): s is SlotInfo => s !== null), skipped, slotOids };
}

// ------------------------------------------------------------------ writing

function toChange(path: string, content: SlotFile): TreeChange {
  if (isOidRef(content)) return { op: 'put-oid', path, oid: content.oid, mode: '100644' };
  return { op: 'put', path, content };
}

function isOidRef(content: SlotFile): content is { oid: string } {
  return typeof content === 'object' && !Buffer.isBuffer(content) && !(content instanceof ByteSource);
}

/** SPEC §6.5 Condense: write (or replace) one session's slot in checkpoint `id`. */
export async function writeCommittedSession(repo: Repo, w: SessionWrite): Promise<{ slot: number; commit: string | null }> {
  assertCheckpointId(w.checkpointId);
  // a checkpoint links a commit; without one there is nothing to link
  if (!(await repo.objects.read('HEAD^{commit}'))) throw new EntireError('NO_COMMITS', 'the repository has no commits yet');
  const transcript = await redactedTranscript(w.transcript, w.format);
  const prompts = await redactedPrompts(w.prompts, w.promptsRedacted);
  mark('store: redacted inputs');
  await ensureMetadataBranch(repo);
  mark('store: branch ensured');
  let chosen = 0;
  const res = await casWrite(repo, METADATA_REF, async (tip) => {
    const dir = tip ? await loadCheckpointDir(repo, tip, w.checkpointId) : null;
    const slots = dir?.slots ?? [];
    const { slot } = chooseSlot(slots, w.sessionId);
    chosen = slot;
    const metadata: SessionMetadata = {
      cli_version: CLI_VERSION,
      checkpoint_id: w.checkpointId,
      session_id: w.sessionId,
      strategy: STRATEGY,
      created_at: formatCreatedAt(w.createdAt ?? new Date()),
      checkpoints_count: w.checkpointsCount,
      files_touched: [...new Set(w.filesTouched)].sort(),
    };
    if (w.branch) metadata.branch = w.branch;
    if (w.agent) metadata.agent = w.agent;
    if (w.taskId) metadata.task_id = w.taskId;
    if (w.model) metadata.model = w.model;
    if (w.turnId) metadata.turn_id = w.turnId;
    if (w.isTask) metadata.is_task = true;
    if (w.toolUseId) metadata.tool_use_id = w.toolUseId;
    if (w.transcriptIdentifierAtStart) metadata.transcript_identifier_at_start = w.transcriptIdentifierAtStart;
    if (w.checkpointTranscriptStart) metadata.checkpoint_transcript_start = w.checkpointTranscriptStart;
    if (w.tokenUsage) metadata.token_usage = w.tokenUsage;
    if (w.summary !== undefined) metadata.summary = w.summary;
    if (w.transcriptPath) metadata.transcript_path = w.transcriptPath;
    mark('store: slot chosen');
    const filesMap = slotFiles({ metadata, transcript, format: w.format, prompts, layers: w.contextLayers });
    mark('store: files built');
    const base = `${shardPath(w.checkpointId)}/${slot}`;
    const changes: TreeChange[] = [{ op: 'delete', path: base }];
    for (const [name, content] of filesMap) changes.push(toChange(`${base}/${name}`, content));
    const newSlot: SlotInfo = { slot, sessionId: w.sessionId, metadata, files: [...filesMap.keys()] };
    const allSlots = [...slots.filter((s) => s.slot !== slot), newSlot];
    changes.push({
      op: 'put',
      path: `${shardPath(w.checkpointId)}/metadata.json`,
      content: aggregateRoot({
        checkpointId: w.checkpointId,
        shard: shardPath(w.checkpointId),
        cliVersion: CLI_VERSION,
        strategy: STRATEGY,
        branch: w.branch,
        slots: allSlots,
        previous: dir?.root ?? null,
      }),
    });
    return {
      message: condenseMessage({ checkpointId: w.checkpointId, sessionId: w.sessionId, agent: w.agent, shadowBranch: w.shadowBranch }),
      changes,
    };
  }, { alsoDelete: w.dropRef, alsoMove: w.alsoMove });
  return { slot: chosen, commit: res.changed ? res.oid : null };
}

/**
 * SPEC §6.6 UpdateCommitted: replace a committed session's transcript and
 * prompts. The slot is found by session id only; empty values clear files.
 */
export async function updateCommittedSession(repo: Repo, u: SessionUpdate): Promise<{ changed: boolean; commit: string | null }> {
  assertCheckpointId(u.checkpointId);
  const transcript = await redactedTranscript(u.transcript, u.format);
  const prompts = await redactedPrompts(u.prompts, u.promptsRedacted);
  const res = await casWrite(repo, METADATA_REF, async (tip) => {
    const dir = tip ? await loadCheckpointDir(repo, tip, u.checkpointId) : null;
    if (!tip || !dir) throw new EntireError('CHECKPOINT_NOT_FOUND', `checkpoint ${u.checkpointId} not found`);
    const slotInfo = dir.slots.find((s) => s.sessionId === u.sessionId);
    if (!slotInfo) {
      throw new EntireError('SESSION_NOT_FOUND', `session ${u.sessionId} has no slot in checkpoint ${u.checkpointId}`);
    }
    const base = `${dir.shard}/${slotInfo.slot}`;
    const slotTree = await readDir(repo, tip, base);
    const existing = new Map((slotTree ?? []).map((e) => [e.name, e.oid]));
    const metadata: SessionMetadata = { ...slotInfo.metadata };
    if (u.tokenUsage) metadata.token_usage = u.tokenUsage;
    if (u.model) metadata.model = u.model;
    const wanted = slotFiles({ metadata, transcript, format: u.format, prompts, layers: u.contextLayers });
    // metadata.json is rewritten only when usage or model changed, so its bytes (and
    // unknown keys, as decoded) are otherwise left exactly as stored
    if (!u.tokenUsage && !u.model) wanted.delete('metadata.json');
    const changes: TreeChange[] = [];
    for (const name of existing.keys()) {
      const managed = isTranscriptFile(name) || name === 'prompt.txt' || name === 'context.md';
      if (managed && !wanted.has(name)) changes.push({ op: 'delete', path: `${base}/${name}` });
    }
    for (const [name, content] of wanted) {
      const had = existing.get(name);
      // hashed only to compare with what the slot holds
      if (had === undefined || had !== (isOidRef(content) ? content.oid : blobOid(content, repo.objectFormat))) {
        changes.push(toChange(`${base}/${name}`, content));
      }
    }
    const files = new Set(existing.keys());
    for (const c of changes) {
      const n = c.path.slice(base.length + 1);
      if (c.op === 'delete') files.delete(n);
      else files.add(n);
    }
    const slots = dir.slots.map((s) => (s.slot === slotInfo.slot ? { ...s, metadata, files: [...files] } : s));
    const rootText = aggregateRoot({
      checkpointId: u.checkpointId,
      shard: dir.shard,
      cliVersion: dir.root?.cli_version ?? CLI_VERSION,
      strategy: dir.root?.strategy ?? STRATEGY,
      branch: dir.root?.branch,
      slots,
      previous: dir.root,
    });
    const rootEntry = dir.entries.find((e) => e.name === 'metadata.json');
    if (!rootEntry || rootEntry.oid !== blobOid(rootText, repo.objectFormat)) {
      changes.push({ op: 'put', path: `${dir.shard}/metadata.json`, content: rootText });
    }
    if (changes.length === 0) return null;
    return { message: finalizeMessage(u.checkpointId), changes };
  });
  return { changed: res.changed, commit: res.changed ? res.oid : null };
}

// ------------------------------------------------------------------ reading

export interface CommittedSessionView {
  /** The slot number shown (a union's sessions from other sources follow the local ones). */
  slot: number;
  metadata: SessionMetadata;
  files: string[];
  /** Where its files are read: the source commit and the slot's directory in it (SPEC-2 §E.1). */
  tip: string;
  dir: string;
  /** The slot's tree id (equal ids: the same slot in two sources). */
  oid: string;
}

export interface CheckpointView {
  checkpointId: string;
  root: RootMetadata;
  sessions: CommittedSessionView[];
  /** Slots a reader left out, and why (SPEC-2 §A.2: skip the record, warn once, show the rest). */
  skipped: string[];
}

/**
 * Resolve the slots of a checkpoint the way readers must (§2.10): the root's
 * `sessions[]` paths that exist, plus unreferenced numeric dirs with a
 * `metadata.json`, numerically; a root without sessions is one session.
 */
async function sessionsOf(repo: Repo, commit: string, id: string, dir: CheckpointDir): Promise<CommittedSessionView[]> {
  if (dir.slots.length > 0) {
    return dir.slots.map((s) => ({ slot: s.slot, metadata: s.metadata, files: s.files, tip: commit, dir: under(dir.shard, String(s.slot)), oid: dir.slotOids.get(s.slot) ?? '' }));
  }
  // legacy: the checkpoint dir itself holds one session
  const md = await readBlob(repo, commit, under(dir.shard, 'metadata.json'));
  if (!md) return [];
  const metadata = decodeSessionMetadata(parseJson(md, under(dir.shard, 'metadata.json'), describe(dir.shard, id)), id);
  if (sessionIdProblem(metadata.session_id) !== null) return [];
  return [{ slot: -1, metadata, files: fileEntries(dir.entries).map((e) => e.name), tip: commit, dir: dir.shard, oid: '' }];
}

/**
 * One source's view of checkpoint `id`, or null when that source lacks it.
 * `base`: the checkpoint's directory in `tip` (default v1's shard path; `''`
 * for a refs-v1 ref, whose root tree is the checkpoint).
 */
export async function viewAt(repo: Repo, tip: string, id: string, base?: string): Promise<CheckpointView | null> {
  const dir = await loadCheckpointDir(repo, tip, id, base);
  if (!dir) return null;
  const sessions = await sessionsOf(repo, tip, id, dir);
  const root: RootMetadata = dir.root ?? {
    checkpoint_id: id,
    strategy: STRATEGY,
    checkpoints_count: 0,
    files_touched: null,
    sessions: [],
  };
  return { checkpointId: id, root, sessions, skipped: dir.skipped };
}

export interface ReadScope {
  /**
   * Writers asking about their own data (finalize, pending work): the local
   * branch, else (no readable local branch) the first tracking copy. Readers
   * (the default) see the union of SPEC-2 §E.1.
   */
  localOnly?: boolean;
}

async function scopeSources(repo: Repo, scope: ReadScope): Promise<MetadataSource[]> {
  if (scope.localOnly) return (await metadataSources(repo)).slice(0, 1);
  return readerSources(repo);
}

/**
 * Checkpoint `id` as readers see it (SPEC-2 §E.1): local ∪ tracking copies,
 * each filtered by the accepted layout (SPEC-2 §A.7). Sessions match by
 * session id: the local slot wins unless the other copy strictly extends its
 * transcript (its content hash verifying), in which case the transcript,
 * prompts and context are read from there (metadata stays local); other
 * sessions all show, numbered after the local ones.
 */
export async function readCheckpoint(repo: Repo, id: string, scope: ReadScope = {}): Promise<CheckpointView | null> {
  assertCheckpointId(id);
  if (!isHexCheckpointId(id)) return null; // a ULID is never on the branch (SPEC-3 §A.4)
  let view: CheckpointView | null = null;
  let grew = false;
  const seenDirs = new Set<string>();
  for (const src of await scopeSources(repo, scope)) {
    // a copy whose checkpoint directory is the very tree already read adds nothing (the usual
    // case: the tracking ref is where our last push left it); looked up in-process
    const dirOid = repo.objects.treeEntry(src.tip, shardPath(id))?.oid;
    if (dirOid !== undefined) {
      if (seenDirs.has(dirOid)) continue;
      seenDirs.add(dirOid);
    }
    const other = await viewAt(repo, src.tip, id);
    if (!other) continue;
    if (!view) {
      view = other;
      continue;
    }
    view.skipped.push(...other.skipped.filter((x) => !view!.skipped.includes(x)));
    let next = view.sessions.reduce((m, s) => Math.max(m, s.slot), -1) + 1;
    for (const s of other.sessions) {
      const i = view.sessions.findIndex((x) => x.metadata.session_id === s.metadata.session_id);
      if (i < 0) {
        view.sessions.push({ ...s, slot: next++ });
        grew = true;
        continue;
      }
      const mine = view.sessions[i]!;
      if (mine.oid === s.oid || s.slot < 0 || mine.slot < 0) continue;
      if (await slotStrictlyExtends(repo, id, mine.oid, s.oid)) {
        view.sessions[i] = { ...mine, files: s.files, tip: s.tip, dir: s.dir, oid: s.oid };
      }
    }
  }
  if (view && grew) view.root = unionRoot(view);
  return view;
}

/** The root summary of a union view, aggregated as a merge would write it. */
function unionRoot(view: CheckpointView): RootMetadata {
  const id = view.checkpointId;
  const text = aggregateRoot({
    checkpointId: id,
    shard: shardPath(id),
    cliVersion: view.root.cli_version ?? CLI_VERSION,
    strategy: view.root.strategy ?? STRATEGY,
    branch: view.root.branch,
    slots: view.sessions.filter((s) => s.slot >= 0).map((s) => ({ slot: s.slot, sessionId: s.metadata.session_id, metadata: s.metadata, files: s.files })),
    previous: view.root,
  });
  return decodeRootMetadata(JSON.parse(text), id);
}

export interface SessionContent {
  slot: number;
  metadata: SessionMetadata;
  /** Reassembled transcript (chunks joined), or null when none is stored. */
  transcript: Buffer | null;
  format: 'jsonl' | 'json';
  prompts: string[];
  context: string | null;
  contentHash: string | null;
}

/** One session's content, by slot number or session id. */
export async function readSessionContent(repo: Repo, id: string, which: { slot?: number; sessionId?: string }, scope: ReadScope = {}): Promise<SessionContent> {
  const view = await readCheckpoint(repo, id, scope);
  if (!view) throw new EntireError('CHECKPOINT_NOT_FOUND', `checkpoint ${id} not found`);
  return sessionContentOf(repo, view, which);
}

/** One session's content of an already read view (any backend: each session knows its tip and directory). */
export async function sessionContentOf(repo: Repo, view: CheckpointView, which: { slot?: number; sessionId?: string }): Promise<SessionContent> {
  const id = view.checkpointId;
  const s =
    which.sessionId !== undefined
      ? view.sessions.find((x) => x.metadata.session_id === which.sessionId)
      : view.sessions.find((x) => x.slot === which.slot) ??
        (which.slot === 0 && view.sessions.length === 1 && view.sessions[0]!.slot === -1 ? view.sessions[0] : undefined);
  if (!s) {
    if (which.sessionId !== undefined) throw new EntireError('SESSION_NOT_FOUND', `session ${which.sessionId} not in checkpoint ${id}`);
    throw new EntireError('INVALID_SLOT', `checkpoint ${id} has no session slot ${which.slot} (it has ${view.sessions.length})`);
  }
  const tip = s.tip;
  const dirPath = s.dir;
  const chunks: Buffer[] = [];
  for (const n of orderedChunkNames(s.files)) {
    const b = await readBlob(repo, tip, `${dirPath}/${n}`);
    if (b) chunks.push(b);
  }
  const { format, transcript } = joinStoredTranscript(chunks);
  const prompt = await readBlob(repo, tip, `${dirPath}/prompt.txt`);
  const context = await readBlob(repo, tip, `${dirPath}/context.md`);
  const hash = await readBlob(repo, tip, `${dirPath}/content_hash.txt`);
  return {
    slot: s.slot < 0 ? 0 : s.slot,
    metadata: s.metadata,
    transcript,
    format,
    prompts: prompt ? decodePromptFile(prompt.toString('utf8')) : [],
    context: context ? context.toString('utf8') : null,
    contentHash: hash ? hash.toString('utf8').trim() : null,
  };
}

/** A slot's transcript chunks (in chunk order) joined back into one transcript, in its format. */
export function joinStoredTranscript(chunks: Buffer[]): { format: 'jsonl' | 'json'; transcript: Buffer | null } {
  // the content says its format (SPEC §2.7): an agent may write either (legacy documents, JSONL today)
  const format: 'jsonl' | 'json' = chunks.length > 0 && looksLikeJsonDocument(chunks[0]!) ? 'json' : 'jsonl';
  if (chunks.length === 0) return { format, transcript: null };
  return { format, transcript: joinTranscriptChunks(chunks, format) };
}

export interface CheckpointListItem {
  checkpointId: string;
  root: RootMetadata | null;
  /** Set when the root metadata could not be parsed. */
  error?: string;
}

/** Every checkpoint in the union of sources (root summaries only, from the first source holding each; pipelined reads). */
export async function listCheckpoints(repo: Repo): Promise<CheckpointListItem[]> {
  const byId = new Map<string, Promise<CheckpointListItem>>();
  for (const { tip } of await readerSources(repo)) {
    const rootEntries = (await readDir(repo, tip, '')) ?? [];
    const shards = subdirs(rootEntries).filter((e) => /^[0-9a-f]{2}$/.test(e.name));
    const shardLists = await Promise.all(shards.map(async (s) => ({ s, list: (await readTreeByOid(repo, s.oid)) ?? [] })));
    for (const { s, list } of shardLists) {
      for (const e of subdirs(list)) {
        const id = s.name + e.name;
        if (!isHexCheckpointId(id) || byId.has(id)) continue;
        byId.set(
          id,
          (async (): Promise<CheckpointListItem> => {
            const md = await repo.objects.read(`${tip}:${s.name}/${e.name}/metadata.json`);
            if (!md) return { checkpointId: id, root: null };
            try {
              return { checkpointId: id, root: decodeRootMetadata(JSON.parse(md.data.toString('utf8')), id) };
            } catch {
              return { checkpointId: id, root: null, error: `corrupt metadata.json at ${s.name}/${e.name}/metadata.json` };
            }
          })(),
        );
      }
    }
  }
  return Promise.all(byId.values());
}

/** Does checkpoint `id` exist locally or in any remote-tracking copy? One tree lookup per ref. */
export async function checkpointExists(repo: Repo, id: string): Promise<boolean> {
  if (!isHexCheckpointId(id)) return false;
  // prepare-commit-msg asks this of every ID it mints: walk the trees to the shard's entry
  // in-process (its mode says enough), without reading the tip commit twice or the shard
  // itself. Taken anywhere, local or any remote's tracking copy, the ID is minted again.
  let decided = true;
  const refs = await sourceRefs(repo);
  for (const ref of refs) {
    const e = repo.objects.treeEntry(ref, shardPath(id));
    if (e === undefined) decided = false;
    else if (e !== null && e.mode === 0o040000) return true;
  }
  if (decided) return false;
  // a ref or an object the in-process reader cannot decide: through git
  for (const { tip } of await metadataSources(repo)) {
    const o = await repo.objects.read(`${tip}:${shardPath(id)}`);
    if (o !== null && o.type === 'tree') return true;
  }
  return false;
}
