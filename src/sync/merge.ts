/**
 * SPEC §6.9 step 3 with SPEC-2 §A.7: merge a remote history of
 * `entire/checkpoints/v1` into ours as a tree union, accepting from the
 * remote only the checkpoint layout (src/checkpoint/accept.ts).
 *
 * - A remote checkpoint we lack is taken, minus any entry the layout does not
 *   accept (a dirty subtree is copied entry by entry instead of as a whole),
 *   and minus slots whose `metadata.json` is not an object with a valid
 *   session id.
 * - Both sides hold a checkpoint: slots merge per session. A different
 *   session is appended. The same session keeps the local slot byte for
 *   byte, unless the remote transcript strictly extends the local one (our
 *   joined transcript is a proper prefix of theirs, and their
 *   `content_hash.txt` verifies); then only `full.jsonl*`, `content_hash.txt`,
 *   `prompt.txt` and `context.md` are taken from the remote.
 * - Anything else at the top (other names, other modes): local wins; remote
 *   extras are dropped.
 *
 * `dropped` lists what was refused (for one log line); `ffSafe` says the
 * union equals the remote tree, so a fast-forward to it loses nothing and
 * brings in nothing unaccepted.
 */
import type { Repo } from '../git/repo.js';
import type { TreeChange } from '../git/fastimport.js';
import { isTreeMode, type TreeEntry } from '../git/objects.js';
import { readTreeByOid } from '../store/tree.js';
import { decodeRootMetadata, decodeSessionMetadata, type RootMetadata } from '../checkpoint/metadata.js';
import { aggregateRoot, type SlotInfo } from '../checkpoint/layout.js';
import { chunkIndexOf, orderedChunkNames } from '../checkpoint/chunks.js';
import { acceptEntry, type Level } from '../checkpoint/accept.js';
import { isSessionId } from '../trust/ids.js';
import { CLI_VERSION } from '../version.js';
import { joinStoredTranscript } from '../store/committed.js';
import { strictExtension, type Extension } from './extends.js';

export interface UnionResult {
  changes: TreeChange[];
  /** Remote paths refused by the layout or the slot rules. */
  dropped: string[];
  /** The union is exactly the remote tree. */
  ffSafe: boolean;
}

interface Ctx {
  repo: Repo;
  changes: TreeChange[];
  dropped: string[];
  /** Set when the result keeps something local that differs from the remote. */
  localKept: boolean;
}

async function blob(repo: Repo, oid: string): Promise<Buffer | null> {
  const o = await repo.objects.read(oid);
  return o && o.type === 'blob' ? o.data : null;
}

async function blobJson(repo: Repo, oid: string): Promise<unknown> {
  const b = await blob(repo, oid);
  if (!b) return null;
  try {
    return JSON.parse(b.toString('utf8'));
  } catch {
    return null;
  }
}

async function tree(repo: Repo, oid: string): Promise<TreeEntry[]> {
  return (await readTreeByOid(repo, oid)) ?? [];
}

/**
 * Put the remote entry `e` (accepted at `level`) at `path`: as a whole when
 * everything below it is accepted, else entry by entry. Returns false when
 * nothing of it was kept.
 */
async function putRemote(c: Ctx, path: string, e: TreeEntry, level: Level): Promise<boolean> {
  const ok = acceptEntry(level, e.name, e.mode);
  if (!ok) {
    c.dropped.push(path);
    return false;
  }
  if (!isTreeMode(e.mode)) {
    c.changes.push({ op: 'put-oid', path, oid: e.oid, mode: '100644' });
    return true;
  }
  if (ok.child === 'slot' && !(await slotMetadataOk(c.repo, e.oid))) {
    c.dropped.push(`${path} (slot metadata.json is not an object with a valid session id)`);
    return false;
  }
  if (await clean(c.repo, e.oid, ok.child!)) {
    c.changes.push({ op: 'put-oid', path, oid: e.oid, mode: '040000' });
    return true;
  }
  let any = false;
  for (const child of await tree(c.repo, e.oid)) {
    if (await putRemote(c, `${path}/${child.name}`, child, ok.child!)) any = true;
  }
  return any;
}

/** Is every entry below tree `oid` (at `level`) accepted, slots included? */
async function clean(repo: Repo, oid: string, level: Level): Promise<boolean> {
  for (const e of await tree(repo, oid)) {
    const ok = acceptEntry(level, e.name, e.mode);
    if (!ok) return false;
    if (ok.child === 'slot' && !(await slotMetadataOk(repo, e.oid))) return false;
    if (ok.child && !(await clean(repo, e.oid, ok.child))) return false;
  }
  return true;
}

/** A slot's metadata.json is a JSON object whose `session_id` passes SPEC-2 §A.2. */
async function slotMetadataOk(repo: Repo, slotOid: string): Promise<boolean> {
  const md = (await tree(repo, slotOid)).find((x) => x.name === 'metadata.json' && x.mode === '100644');
  if (!md) return false;
  const v = await blobJson(repo, md.oid);
  return v !== null && typeof v === 'object' && !Array.isArray(v) && isSessionId((v as Record<string, unknown>)['session_id']);
}

/** Changes that turn the local tree into the union with the remote one. */
export async function unionChanges(repo: Repo, localTree: string, remoteTree: string): Promise<UnionResult> {
  const c: Ctx = { repo, changes: [], dropped: [], localKept: false };
  await mergeLevel(c, '', localTree, remoteTree, 'root');
  return { changes: c.changes, dropped: c.dropped, ffSafe: c.dropped.length === 0 && !c.localKept };
}

async function mergeLevel(c: Ctx, prefix: string, localOid: string, remoteOid: string, level: Level): Promise<void> {
  const L = await tree(c.repo, localOid);
  const R = await tree(c.repo, remoteOid);
  const lMap = new Map(L.map((e) => [e.name, e]));
  const rNames = new Set(R.map((e) => e.name));
  // local entries the remote lacks stay: the union keeps them
  if (L.some((e) => !rNames.has(e.name))) c.localKept = true;
  for (const r of R) {
    const path = prefix ? `${prefix}/${r.name}` : r.name;
    const l = lMap.get(r.name);
    if (l && l.oid === r.oid && l.mode === r.mode) continue;
    if (!l) {
      await putRemote(c, path, r, level);
      continue;
    }
    const ok = acceptEntry(level, r.name, r.mode);
    if (!ok) {
      c.dropped.push(path);
      continue;
    }
    if (level === 'root' && ok.child === 'shard' && isTreeMode(l.mode)) {
      await mergeLevel(c, path, l.oid, r.oid, 'shard');
    } else if (level === 'shard' && ok.child === 'checkpoint' && isTreeMode(l.mode)) {
      await mergeCheckpoint(c, path, prefix + r.name, l.oid, r.oid);
    } else {
      c.localKept = true; // other paths: local wins
    }
  }
}

interface SlotTree extends SlotInfo {
  oid: string;
  entries: TreeEntry[];
}

async function slotsOf(repo: Repo, entries: TreeEntry[], id: string): Promise<SlotTree[]> {
  const out: SlotTree[] = [];
  for (const e of entries) {
    if (!isTreeMode(e.mode) || !acceptEntry('checkpoint', e.name, e.mode)) continue;
    const list = await tree(repo, e.oid);
    const md = list.find((x) => x.name === 'metadata.json' && x.mode === '100644');
    if (!md) continue;
    const raw = await blobJson(repo, md.oid);
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) continue;
    const metadata = decodeSessionMetadata(raw, id);
    if (!isSessionId(metadata.session_id)) continue;
    out.push({ slot: Number(e.name), sessionId: metadata.session_id, metadata, files: list.map((x) => x.name), oid: e.oid, entries: list });
  }
  return out.sort((a, b) => a.slot - b.slot);
}

/** The slot's stored transcript chunks, in chunk order (`full.jsonl` before a legacy `full.log`), read one at a time. */
async function* chunkBlobs(repo: Repo, s: SlotTree): AsyncGenerator<Buffer> {
  const blobs = new Map(s.entries.filter((e) => e.mode === '100644').map((e) => [e.name, e.oid]));
  for (const n of orderedChunkNames([...blobs.keys()])) {
    const b = await blob(repo, blobs.get(n)!);
    if (b) yield b;
  }
}

/** The slot's transcript chunks joined, whole (a JSON document is joined by re-serialising it). */
async function joinedTranscript(repo: Repo, s: SlotTree): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const b of chunkBlobs(repo, s)) parts.push(b);
  return joinStoredTranscript(parts).transcript ?? Buffer.alloc(0);
}

/** JSONL chunks joined with `\n`, as pieces: one chunk held at a time (SPEC-2 §A.6). */
async function* joinedJsonl(repo: Repo, s: SlotTree): AsyncGenerator<Buffer> {
  let first = true;
  for await (const b of chunkBlobs(repo, s)) {
    if (!first) yield NEWLINE;
    first = false;
    yield b;
  }
}
const NEWLINE = Buffer.from('\n');

/** Whether the slot's transcript is JSONL, by the rule readers use (its first chunk says, store/committed.ts#joinStoredTranscript). */
async function isJsonl(repo: Repo, s: SlotTree): Promise<boolean> {
  const first = await chunkBlobs(repo, s).next();
  return joinStoredTranscript(first.done ? [] : [first.value]).format === 'jsonl';
}

/** SPEC-2 §A.7: the remote slot of the same session strictly extends ours and its hash verifies. */
async function strictlyExtends(repo: Repo, local: SlotTree, remote: SlotTree): Promise<boolean> {
  let ext: Extension;
  if ((await isJsonl(repo, local)) && (await isJsonl(repo, remote))) {
    ext = await strictExtension(joinedJsonl(repo, local), joinedJsonl(repo, remote));
  } else {
    const mine = await joinedTranscript(repo, local);
    const theirs = await joinedTranscript(repo, remote);
    ext = await strictExtension(one(mine), one(theirs));
  }
  if (!ext.extends) return false;
  const hashEntry = remote.entries.find((e) => e.name === 'content_hash.txt' && e.mode === '100644');
  const stored = hashEntry ? (await blob(repo, hashEntry.oid))?.toString('utf8').trim() : undefined;
  return stored !== undefined && stored === 'sha256:' + ext.sha256;
}

/**
 * Readers' form of the same test (SPEC-2 §E.1): does the slot tree `remoteOid`
 * (another source's copy of checkpoint `id`) strictly extend our slot tree
 * `localOid` for the same session?
 */
export async function slotStrictlyExtends(repo: Repo, id: string, localOid: string, remoteOid: string): Promise<boolean> {
  const holder = async (oid: string): Promise<SlotTree | null> => {
    const [s] = await slotsOf(repo, [{ name: '0', mode: '040000', oid }], id);
    return s ?? null;
  };
  const [mine, theirs] = await Promise.all([holder(localOid), holder(remoteOid)]);
  if (!mine || !theirs || mine.sessionId !== theirs.sessionId) return false;
  return strictlyExtends(repo, mine, theirs).catch(() => false);
}

async function* one(b: Buffer): AsyncGenerator<Buffer> {
  yield b;
}

const TAKEN_ON_EXTENSION = (name: string): boolean => chunkIndexOf(name) !== null || name === 'content_hash.txt' || name === 'prompt.txt' || name === 'context.md';

async function mergeCheckpoint(c: Ctx, path: string, id: string, localOid: string, remoteOid: string): Promise<void> {
  const { repo } = c;
  const lEntries = await tree(repo, localOid);
  const rEntries = await tree(repo, remoteOid);
  const lSlots = await slotsOf(repo, lEntries, id);
  const rSlots = await slotsOf(repo, rEntries, id);
  const start = c.changes.length;
  const merged: SlotTree[] = [...lSlots];
  let next = lSlots.reduce((m, s) => Math.max(m, s.slot), -1) + 1;
  for (const rs of rSlots) {
    const same = merged.find((s) => s.sessionId === rs.sessionId);
    if (same) {
      if (same.oid === rs.oid) continue;
      if (!(await strictlyExtends(repo, same, rs))) {
        c.localKept = true; // our slot stays byte-identical
        continue;
      }
      const base = `${path}/${same.slot}`;
      const files = new Set(same.files);
      for (const e of same.entries) {
        if (chunkIndexOf(e.name) !== null && !rs.entries.some((x) => x.name === e.name)) {
          c.changes.push({ op: 'delete', path: `${base}/${e.name}` });
          files.delete(e.name);
        }
      }
      for (const e of rs.entries) {
        if (!TAKEN_ON_EXTENSION(e.name) || e.mode !== '100644') continue;
        c.changes.push({ op: 'put-oid', path: `${base}/${e.name}`, oid: e.oid, mode: '100644' });
        files.add(e.name);
      }
      // metadata.json stays ours: the remote never rewrites what our slot says
      c.localKept = true;
      merged[merged.indexOf(same)] = { ...same, files: [...files] };
      continue;
    }
    if (next > 9999) {
      c.dropped.push(`${path}/${rs.slot} (no free slot)`);
      continue;
    }
    const slotEntry = rEntries.find((e) => e.name === String(rs.slot))!;
    if (await putRemote(c, `${path}/${next}`, { ...slotEntry, name: String(next) }, 'checkpoint')) {
      merged.push({ ...rs, slot: next });
      next++;
    }
  }
  if (rSlots.length < rEntries.filter((e) => isTreeMode(e.mode)).length) {
    for (const e of rEntries) {
      if (isTreeMode(e.mode) && !rSlots.some((s) => String(s.slot) === e.name)) c.dropped.push(`${path}/${e.name}`);
    }
  }
  if (c.changes.length === start) return;
  c.localKept = true; // the checkpoint's root metadata is rebuilt
  const rootEntry = lEntries.find((e) => e.name === 'metadata.json') ?? rEntries.find((e) => e.name === 'metadata.json');
  const rootRaw = rootEntry ? await blobJson(repo, rootEntry.oid) : null;
  const previous: RootMetadata | null = rootRaw && typeof rootRaw === 'object' && !Array.isArray(rootRaw) ? decodeRootMetadata(rootRaw, id) : null;
  c.changes.push({
    op: 'put',
    path: `${path}/metadata.json`,
    content: aggregateRoot({
      checkpointId: id,
      shard: `${id.slice(0, 2)}/${id.slice(2)}`,
      cliVersion: previous?.cli_version ?? CLI_VERSION,
      strategy: previous?.strategy ?? 'manual-commit',
      branch: previous?.branch,
      slots: merged,
      previous,
    }),
  });
}

