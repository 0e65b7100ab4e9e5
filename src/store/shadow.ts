/**
 * The shadow store: work-in-progress steps on `entire/<base7>-<wt6>`
 * (SPEC §2.1, §2.8, §6.2 step 3, §6.10). Local only, never pushed.
 */
import type { Repo } from '../git/repo.js';
import { EMPTY_TREE } from '../git/repo.js';
import { blobOid, isTreeMode } from '../git/objects.js';
import type { TreeChange } from '../git/fastimport.js';
import { snapshotChanges } from '../git/snapshot.js';
import { readRef, updateRefs } from '../git/refs.js';
import { runGit } from '../git/exec.js';
import { shadowBranchName } from '../checkpoint/shadow.js';
import { shadowStepMessage } from '../checkpoint/messages.js';
import { chunkFileName, chunkTranscript, chunkJsonlSource, chunkIndexOf, joinTranscriptChunks, looksLikeJsonDocument, MAX_CHUNK_BYTES } from '../checkpoint/chunks.js';
import { ByteSource } from '../byte-source.js';
import { encodeContextFile, encodePromptFile } from '../checkpoint/prompts.js';
import { casPrepare, casWrite, type BuildResult } from './branch.js';
import { mark } from '../timing.js';
import { readCommit, readDir, readBlob, entriesAt } from './tree.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { forgetWrittenObjects } from '../git/odb.js';
import { gcRunning as gcAlive } from './recover.js';
import { PreRedacted, type TranscriptInput } from './content.js';

export interface StepMetadata {
  transcript: TranscriptInput;
  /** Already-redacted chunks of the transcript (content, read when written, or blobs already in git); wins over `transcript`. */
  chunks?: Array<Buffer | ByteSource | { oid: string }>;
  format: 'jsonl' | 'json';
  prompts: string[];
  /** The prompts come redacted (the transcript cache's): no redactor load for them. */
  promptsRedacted?: boolean;
  /** Last assistant text. */
  summary?: string;
  /** SPEC-2 §F.4 layers of `context.md`, derived from the redacted transcript (stored as given). */
  contextLayers?: { l1: string; l2: string } | null;
}

export interface StepWrite {
  baseCommit: string;
  worktreeId: string;
  sessionId: string;
  /** F(s) paths of this step, taken from the work tree. */
  paths: string[];
  /** For a new branch: every path git status lists (the rest of the dirty tree). */
  statusPaths?: string[];
  metadata: StepMetadata | null;
  subject: string;
  taskToolUseId?: string;
  /** Subagent files (already named relative to the task dir) → content (plain text is redacted here). */
  taskFiles?: Record<string, string | PreRedacted>;
}

export function metadataDir(sessionId: string): string {
  return `.entire/metadata/${sessionId}`;
}

async function redactText(text: string, format: 'jsonl' | 'json' | 'text'): Promise<string> {
  const r = await import('../redact/index.js');
  return format === 'text' ? r.redactString(text) : r.redactTranscript(text, format);
}

type OverlayFile = Buffer | string | ByteSource | { oid: string };

async function overlayFiles(sessionId: string, m: StepMetadata): Promise<Map<string, OverlayFile>> {
  const dir = metadataDir(sessionId);
  const out = new Map<string, OverlayFile>();
  if (m.chunks) {
    m.chunks.forEach((c, i) => out.set(`${dir}/${chunkFileName(i)}`, c));
  } else if (m.transcript instanceof PreRedacted && m.transcript.blob && m.transcript.blob.bytes <= MAX_CHUNK_BYTES) {
    // already in git as one blob: refer to it
    out.set(`${dir}/${chunkFileName(0)}`, { oid: m.transcript.blob.oid });
  } else if (m.transcript instanceof PreRedacted && m.format === 'jsonl') {
    // chunked from the bytes on disk, each chunk read when its blob is written (SPEC-2 §A.6)
    chunkJsonlSource(m.transcript.bytes()).forEach((c, i) => out.set(`${dir}/${chunkFileName(i)}`, c));
  } else if (m.transcript !== null) {
    const text = m.transcript instanceof PreRedacted ? await m.transcript.text() : await redactText(m.transcript, m.format);
    const buf = Buffer.from(text, 'utf8');
    const chunks = chunkTranscript(buf, m.format);
    chunks.forEach((c, i) => out.set(`${dir}/${chunkFileName(i)}`, c));
  }
  const prompts = m.promptsRedacted ? m.prompts : await Promise.all(m.prompts.map((p) => redactText(p, 'text')));
  const prompt = encodePromptFile(prompts);
  if (prompt) out.set(`${dir}/prompt.txt`, prompt);
  const context = encodeContextFile(prompts, m.contextLayers);
  if (context) out.set(`${dir}/context.md`, context);
  if (m.summary) out.set(`${dir}/summary.txt`, await redactText(m.summary, 'text'));
  return out;
}

/**
 * Write one step. Returns the new tip, or `changed: false` when the tree
 * would equal the tip's (no empty steps).
 */
export async function writeShadowStep(repo: Repo, w: StepWrite): Promise<StepWritten> {
  const gcBefore = gcRunning(repo);
  const before = await readRef(repo, `refs/heads/${shadowBranchName(w.baseCommit, w.worktreeId)}`);
  const s = await stepBuilder(repo, w);
  const res = await casWrite(repo, s.ref, s.build, STEP_CAS);
  if (res.changed && res.oid && (gcBefore || gcRunning(repo)) && !(await stepComplete(repo, s.ref, res.oid, before))) {
    // written once more from the work tree: every object again, none taken as already written
    forgetWrittenObjects(repo);
    const again = await stepBuilder(repo, w);
    const r2 = await casWrite(repo, again.ref, again.build, STEP_CAS);
    return { branch: again.branch, commit: r2.oid, changed: r2.changed };
  }
  return { branch: s.branch, commit: res.oid, changed: res.changed };
}

/** `git gc` holds `gc.pid` while it runs (any gc, `--prune=now` included). */
function gcRunning(repo: Repo): boolean {
  return existsSync(join(repo.commonDir, 'gc.pid'));
}

const GC_WAIT_MS = 10_000;

/**
 * SPEC-2 §A.11 for the shadow writer (issue 25 point 7): casWrite's check (the new commit and
 * its root tree exist) passes while a `git gc --prune=now` that listed the refs before our move
 * is still to delete the step's loose blobs and subtrees, which left a branch naming a commit
 * that reaches missing objects (seen with refs written through git, ENTIRE_LOCAL_REFS=0). Only
 * when a gc ran beside the write: wait for it to end (bounded), ask git whether the step
 * reaches a missing object, and if so put the branch back on its previous tip (or delete it, as
 * `doctor --force` would) for the caller to write the step again. True when the step is whole
 * (or the check could not tell).
 */
async function stepComplete(repo: Repo, ref: string, oid: string, before: string | null): Promise<boolean> {
  const deadline = Date.now() + GC_WAIT_MS;
  // (a gc.pid whose process is gone, a gc killed, is not waited for)
  while (gcAlive(repo.commonDir) && Date.now() < deadline) await new Promise((res) => setTimeout(res, 25));
  if (!(await reachesMissing(repo, oid, before ? ['--not', before] : ['--not', `--exclude=${ref}`, '--all']))) return true;
  mark('shadow: step lost objects to gc');
  const back = before && !(await reachesMissing(repo, before, [])) ? before : null;
  await updateRefs(repo, [{ ref, newOid: back, oldOid: oid }]).catch(() => undefined);
  return false;
}

/** Whether `rev` reaches an object the store no longer has (git's walk; false when git cannot tell). */
async function reachesMissing(repo: Repo, rev: string, not: string[]): Promise<boolean> {
  const r = await runGit(['rev-list', '--objects', '--missing=print', rev, ...not], { cwd: repo.root, allowFailure: true });
  if (r.code === 0) return /^\?/m.test(r.stdout.toString('utf8'));
  return /missing|bad object|unable to read|could not/i.test(r.stderr);
}

/**
 * writeShadowStep built now and committed later: the step's small objects wait
 * for the next commit write of this process (post-commit builds its
 * carry-forward step, then writes the checkpoint: one pack for both).
 * `commit()` writes whatever is still held and moves the branch.
 */
export async function prepareShadowStep(repo: Repo, w: StepWrite): Promise<{ commit(): Promise<StepWritten> }> {
  const s = await stepBuilder(repo, w);
  const prepared = await casPrepare(repo, s.ref, s.build, STEP_CAS);
  return {
    commit: async () => {
      const res = await prepared.commit();
      return { branch: s.branch, commit: res.oid, changed: res.changed };
    },
  };
}

interface StepWritten {
  branch: string;
  commit: string | null;
  changed: boolean;
}

// A shadow branch lives for one base commit and git deletes a reflog with its ref:
// starting one would cost a file creation per base commit for a log of a linear chain
const STEP_CAS = { fastCompression: true, startReflog: false };

/** A step's branch and its builder (a pure function of the branch tip, for the CAS loop). */
async function stepBuilder(repo: Repo, w: StepWrite): Promise<{ branch: string; ref: string; build: (tip: string | null) => Promise<BuildResult> }> {
  const branch = shadowBranchName(w.baseCommit, w.worktreeId);
  const ref = `refs/heads/${branch}`;
  const overlay = w.metadata ? await overlayFiles(w.sessionId, w.metadata) : new Map<string, OverlayFile>();
  mark('shadow: overlay');
  if (w.taskToolUseId && w.taskFiles) {
    for (const [name, content] of Object.entries(w.taskFiles)) {
      const path = `${metadataDir(w.sessionId)}/tasks/${w.taskToolUseId}/${name}`;
      if (content instanceof PreRedacted) overlay.set(path, content.bytes());
      else overlay.set(path, name.endsWith('.jsonl') ? await redactText(content, 'jsonl') : await redactText(content, 'text'));
    }
  }
  const build = async (tip: string | null): Promise<BuildResult> => {
    const tipCommit = tip ? await readCommit(repo, tip) : null;
    let baseTree: string | undefined;
    let paths = w.paths;
    if (!tipCommit) {
      // a new branch: HEAD's tree plus everything git status lists
      const head = await readCommit(repo, w.baseCommit);
      baseTree = head?.tree ?? EMPTY_TREE[repo.objectFormat];
      paths = [...new Set([...(w.statusPaths ?? []), ...w.paths])];
    }
    const fileChanges = await snapshotChanges(repo, { paths, trustedPaths: new Set(w.statusPaths ?? []) });
    mark('shadow: snapshot');
    const changes: TreeChange[] = [];
    const dir = metadataDir(w.sessionId);
    const existing = tip ? await listFiles(repo, tip, dir) : new Map<string, string>();
    // replace the session's transcript files wholesale (chunk count may shrink)
    for (const [path] of existing) {
      const name = path.slice(dir.length + 1);
      const managed = chunkIndexOf(name) !== null || ['prompt.txt', 'context.md', 'summary.txt'].includes(name);
      if (managed && w.metadata && !overlay.has(path)) changes.push({ op: 'delete', path });
    }
    for (const [path, content] of overlay) {
      const isRef = typeof content === 'object' && !Buffer.isBuffer(content) && !(content instanceof ByteSource);
      const had = existing.get(path);
      // hashed only to compare: a new branch (every carry-forward) has nothing to compare with
      if (had !== undefined && had === (isRef ? content.oid : blobOid(content, repo.objectFormat))) continue;
      changes.push(isRef ? { op: 'put-oid', path, oid: content.oid, mode: '100644' } : { op: 'put', path, content });
    }
    // an unchanged tree is no step
    const current = tip ? await entriesAt(repo, tip, fileChanges.map((c) => c.path)) : new Map();
    for (const c of fileChanges) {
      const e = current.get(c.path) ?? null;
      if (c.op === 'delete' ? e === null : c.op === 'put-oid' && e !== null && e.oid === c.oid && e.mode === c.mode) continue;
      changes.push(c);
    }
    if (tipCommit && changes.length === 0) return null;
    return {
      message: shadowStepMessage({ subject: w.subject, sessionId: w.sessionId, taskToolUseId: w.taskToolUseId }),
      baseTree,
      changes,
    };
  };
  return { branch, ref, build };
}

/** Files (recursively) under `dir` in `commit`: path → blob oid. */
async function listFiles(repo: Repo, commit: string, dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const entries = await readDir(repo, commit, dir);
  for (const e of entries ?? []) {
    if (e.mode === '40000') continue;
    out.set(`${dir}/${e.name}`, e.oid);
  }
  return out;
}

/**
 * The session's transcript as stored on a shadow branch (chunks joined), or null.
 * Without `format`, the content says it (SPEC §2.7), as for committed slots.
 */
export async function readShadowTranscript(
  repo: Repo,
  rev: string,
  sessionId: string,
  format?: 'jsonl' | 'json',
): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  for await (const b of shadowTranscriptChunks(repo, rev, sessionId)) chunks.push(b);
  if (chunks.length === 0) return null;
  return joinTranscriptChunks(chunks, format ?? (looksLikeJsonDocument(chunks[0]!) ? 'json' : 'jsonl'));
}

/** The transcript chunks stored on a shadow branch, in order, read one at a time (none: no copy). */
export async function* shadowTranscriptChunks(repo: Repo, rev: string, sessionId: string): AsyncGenerator<Buffer> {
  const dir = metadataDir(sessionId);
  const entries = await readDir(repo, rev, dir);
  if (!entries) return;
  const names = entries
    .map((e) => ({ n: e.name, i: chunkIndexOf(e.name) }))
    .filter((x): x is { n: string; i: number } => x.i !== null)
    .sort((a, b) => a.i - b.i);
  for (const c of names) {
    const b = await readBlob(repo, rev, `${dir}/${c.n}`);
    if (b) yield b;
  }
}

/**
 * SPEC §6.10 Migrate: carry a session's shadow work from the branch of its
 * old base to the branch of the new HEAD.
 */
export async function migrateShadow(
  repo: Repo,
  o: { fromBase: string; toBase: string; worktreeId: string; sessionId: string; paths: string[] },
): Promise<{ from: string; to: string; moved: boolean }> {
  const from = shadowBranchName(o.fromBase, o.worktreeId);
  const to = shadowBranchName(o.toBase, o.worktreeId);
  if (from === to) return { from, to, moved: false };
  const fromTip = await readRef(repo, `refs/heads/${from}`);
  if (!fromTip) return { from, to, moved: false };
  const toTip = await readRef(repo, `refs/heads/${to}`);
  if (!toTip) {
    const r = await updateRefs(repo, [{ ref: `refs/heads/${to}`, newOid: fromTip, oldOid: null }]);
    if (r === 'ok') return { from, to, moved: true };
  }
  // the new branch exists (another session's): commit our dir and files onto it
  const dir = metadataDir(o.sessionId);
  const res = await casWrite(repo, `refs/heads/${to}`, async (tip) => {
    if (!tip) return null;
    const changes: TreeChange[] = [{ op: 'delete', path: dir }];
    const meta = await readDir(repo, fromTip, dir);
    if (meta) {
      const sub = await runGit(['rev-parse', `${fromTip}:${dir}`], { cwd: repo.root, allowFailure: true });
      const oid = sub.stdout.toString('utf8').trim();
      if (sub.code === 0 && oid) changes.push({ op: 'put-oid', path: dir, oid, mode: '040000' });
    }
    // the entries through the one tree parser (src/git/tree-format.ts), not `git ls-tree` output
    const found = await entriesAt(repo, fromTip, o.paths);
    for (const p of o.paths) {
      const e = found.get(p);
      if (e && !isTreeMode(e.mode) && e.mode !== '160000') changes.push({ op: 'put-oid', path: p, oid: e.oid, mode: e.mode as '100644' });
      else changes.push({ op: 'delete', path: p });
    }
    return {
      message: shadowStepMessage({ subject: 'carry forward: uncommitted session files', sessionId: o.sessionId }),
      changes,
    };
  });
  return { from, to, moved: res.changed };
}
