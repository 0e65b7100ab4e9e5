/**
 * Writing objects in-process: loose objects (the format git itself writes
 * with `hash-object -w`: zlib (see compressLoose), read-only files, written under a
 * temporary name and renamed), or the small objects of one commit write as
 * one pack (BatchWriter). Checkpoint and step commits change a handful
 * of small files along one path, so building their trees here, from trees
 * read through the object reader, costs about a millisecond, where a
 * `git fast-import` process costs 10–15 ms before it has done anything
 * (measured on the bench VM). Big content goes out loose; git packs the
 * loose objects at its next gc. Callers move refs by compare-and-swap.
 */
import { closeSync, constants, mkdirSync, openSync, renameSync, rmSync, utimesSync, writeSync, existsSync } from 'node:fs';
import { ByteSource } from '../byte-source.js';
import { sourceOid } from './objects.js';
import { join } from 'node:path';
import type { Repo, Ident } from './repo.js';
import type { CommitSpec, TreeChange } from './fastimport.js';
import { isTreeMode, isValidTreePath, TreeCursor } from './tree-format.js';
import { sharedPerm } from './shared-perm.js';
import { EMPTY_TREE } from './repo.js';
import { zlib } from '../builtins.js';
import { createHasher, adler32 } from './checksums.js';
import { randomHex } from '../random.js';
import { mark } from '../timing.js';
import { encodePack, entryHeader, type PackObjectType } from './pack-write.js';
import { packWritable, writePackFiles } from './pack-policy.js';

/** Whether this repository's objects can be written here (else use fast-import). */
export function canWriteLoose(repo: Repo, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env['GIT_OBJECT_DIRECTORY'] || env['GIT_QUARANTINE_PATH']) return false;
  // shared repositories need git's permission rules for objects: let git write (src/git/shared-perm.ts)
  return sharedPerm(repo, env) === 0;
}

/** Something objects are written to: returns the id of what was written. */
export interface ObjectSink {
  write(type: 'blob' | 'tree' | 'commit', content: Buffer): string;
  /** A blob too big to hold at once (SPEC-2 §A.6): read and written in pieces. */
  writeBlobSource(content: ByteSource): string;
}

/**
 * Blobs up to this size are read whole and written like any other object;
 * bigger ones (transcript chunks, up to 50 MiB) are hashed, then compressed
 * and written, 1 MiB at a time.
 */
export const STREAMED_BLOB_MIN = 8 * 1024 * 1024;

/**
 * Objects this process has written, per object store. A hook's second commit
 * write (post-commit's carry-forward after its checkpoint) shares blobs with
 * the first; they exist already, and compressing, checksumming and packing
 * them again would only add a copy. Our own writes are milliseconds old, so
 * there is nothing to freshen either.
 */
const writtenHere = new Map<string, Set<string>>();
/** Forget what this process wrote (`git gc --prune=now` removed some of it: write it again). */
export function forgetWrittenObjects(repo: Repo): void {
  writtenHere.delete(repo.commonDir);
}

function writtenIn(repo: Repo): Set<string> {
  let set = writtenHere.get(repo.commonDir);
  if (!set) writtenHere.set(repo.commonDir, (set = new Set()));
  return set;
}

export class LooseWriter implements ObjectSink {
  private readonly dir: string;

  constructor(private readonly repo: Repo) {
    this.dir = join(repo.commonDir, 'objects');
  }

  write(type: 'blob' | 'tree' | 'commit', content: Buffer): string {
    const header = Buffer.from(`${type} ${content.length}\0`);
    const oid = createHasher(this.repo.objectFormat).update(header).update(content).digestHex();
    this.writeHashed(oid, header, content);
    return oid;
  }

  writeBlobSource(content: ByteSource): string {
    if (content.size <= STREAMED_BLOB_MIN) return this.write('blob', content.readAll());
    const header = Buffer.from(`blob ${content.size}\0`);
    const oid = sourceOid('blob', content, this.repo.objectFormat);
    const file = this.existing(oid);
    if (file === null) return oid;
    this.writeFile(oid, file, (fd) => writeDeflatedPieces(fd, header, content));
    return oid;
  }

  /** Write an object whose id is known (`header` is git's `<type> <size>\0`). */
  writeHashed(oid: string, header: Buffer, content: Buffer): void {
    const file = this.existing(oid);
    if (file === null) return;
    this.writeFile(oid, file, (fd) => writeAll(fd, compressLoose(Buffer.concat([header, content]))));
  }

  /** The path to write `oid` to, or null when it is there already (written here, or freshened). */
  private existing(oid: string): string | null {
    if (writtenIn(this.repo).has(oid)) return null;
    const file = join(this.dir, oid.slice(0, 2), oid.slice(2));
    if (existsSync(file)) {
      // freshen, as git does, so a concurrent prune keeps what we are about to reference
      try {
        const now = new Date();
        utimesSync(file, now, now);
      } catch {
        /* read-only object store entries are fine as they are */
      }
      return null;
    }
    return file;
  }

  /** A read-only file under a temporary name, renamed into place once complete. */
  private writeFile(oid: string, file: string, fill: (fd: number) => void): void {
    const sub = join(this.dir, oid.slice(0, 2));
    mkdirSync(sub, { recursive: true });
    const tmp = join(sub, `tmp_obj_${process.pid}_${randomHex(4)}`);
    try {
      const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o444);
      try {
        fill(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, file);
    } catch (e) {
      rmSync(tmp, { force: true });
      throw e;
    }
    writtenIn(this.repo).add(oid);
  }
}

function writeAll(fd: number, buf: Buffer): void {
  let off = 0;
  while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
}

/**
 * A loose object's zlib stream written piece by piece: each piece deflated
 * on its own (level 1, as `hash-object -w`) and ended with a sync flush, so
 * the pieces join into one valid deflate stream; then an empty final block
 * and the Adler-32 of everything. Only the window across a piece boundary is
 * lost: a 1 MiB piece compresses as well as the whole.
 */
function writeDeflatedPieces(fd: number, header: Buffer, content: ByteSource): void {
  const z = zlib();
  const opts = { level: 1, finishFlush: z.constants.Z_SYNC_FLUSH };
  writeAll(fd, Buffer.from([0x78, 0x01]));
  let adler = adler32(header);
  writeAll(fd, z.deflateRawSync(header, opts));
  for (const p of content.pieces()) {
    adler = adler32(p, adler);
    writeAll(fd, z.deflateRawSync(p, opts));
  }
  writeAll(fd, z.deflateRawSync(Buffer.alloc(0), { level: 1 }));
  const tail = Buffer.alloc(4);
  tail.writeUInt32BE(adler >>> 0, 0);
  writeAll(fd, tail);
}

/** Objects bigger than this are written loose even in a batch: packs stay small enough to merge. */
const PACKED_OBJECT_MAX = 64 * 1024;

type SmallObject = { type: PackObjectType; content: Buffer };

/**
 * Small objects built but held back (`BatchWriter.hold`) until this process
 * next writes objects: post-commit builds its carry-forward step before its
 * checkpoint, and both commits' objects go out as one pack, two file
 * creations fewer. Whatever is still held when a ref is to name it goes out
 * with `flushHeld`.
 */
const heldHere = new Map<string, Map<string, SmallObject>>();
function heldIn(repo: Repo): Map<string, SmallObject> {
  let held = heldHere.get(repo.commonDir);
  if (!held) heldHere.set(repo.commonDir, (held = new Map()));
  return held;
}

/** Write the objects `hold` kept back, if any (before a ref may name them). */
export function flushHeld(repo: Repo): void {
  if (heldIn(repo).size > 0) new BatchWriter(repo).flush();
}

/**
 * The objects of one commit write, held until `flush`: the small ones go out
 * as one pack when the repository allows it (src/git/pack-policy.ts), the
 * rest as loose objects. A reader can see none of them before `flush`, and
 * every one of them after it, before any ref names them.
 */
export class BatchWriter implements ObjectSink {
  private readonly small = new Map<string, SmallObject>();
  private readonly loose: LooseWriter;

  constructor(private readonly repo: Repo) {
    this.loose = new LooseWriter(repo);
  }

  write(type: 'blob' | 'tree' | 'commit', content: Buffer): string {
    const header = Buffer.from(`${type} ${content.length}\0`);
    const oid = createHasher(this.repo.objectFormat).update(header).update(content).digestHex();
    if (writtenIn(this.repo).has(oid)) return oid;
    if (content.length > PACKED_OBJECT_MAX) this.loose.writeHashed(oid, header, content);
    else if (!this.small.has(oid)) this.small.set(oid, { type, content });
    return oid;
  }

  writeBlobSource(content: ByteSource): string {
    if (content.size <= STREAMED_BLOB_MIN) return this.write('blob', content.readAll());
    return this.loose.writeBlobSource(content);
  }

  /** Keep this batch's small objects for the next flush in this process (see heldIn). */
  hold(): void {
    const held = heldIn(this.repo);
    for (const [oid, o] of this.small) held.set(oid, o);
    this.small.clear();
  }

  /** Write this batch, and whatever is held, as one pack (or loose objects). */
  flush(): void {
    const held = heldIn(this.repo);
    const written = writtenIn(this.repo);
    const all = new Map([...held, ...this.small]);
    this.small.clear();
    const items = [...all].filter(([oid]) => !written.has(oid));
    if (items.length > 0) this.writeOut(items);
    // only once written: a failed write leaves the held objects for flushHeld to retry
    held.clear();
  }

  private writeOut(items: [string, SmallObject][]): void {
    const written = writtenIn(this.repo);
    // a single object is as cheap loose, and a pack of one adds to the pack count for nothing
    if (items.length >= 2 && packWritable(this.repo)) {
      try {
        const enc = encodePack(items.map(([oid, o]) => ({ oid, bytes: Buffer.concat([entryHeader(o.type, o.content.length), compressLoose(o.content)]) })));
        mark('objects: pack encoded');
        writePackFiles(this.repo, enc);
        for (const [oid] of items) written.add(oid);
        return;
      } catch {
        /* e.g. a read-only pack directory: the same objects go out loose below */
      }
    }
    for (const [oid, o] of items) this.loose.writeHashed(oid, Buffer.from(`${o.type} ${o.content.length}\0`), o.content);
  }
}

/**
 * Small objects (trees, commits, metadata) go out as zlib "stored" blocks:
 * valid for every zlib reader, git included, and no node:zlib load (about
 * 2 ms) for a few hundred bytes; git recompresses them when it packs.
 * Bigger content is deflated at level 1, as `hash-object -w` does.
 */
export function compressLoose(raw: Buffer): Buffer {
  if (raw.length > 32 * 1024) return zlib().deflateSync(raw, { level: 1 });
  const out = Buffer.allocUnsafe(2 + 5 + raw.length + 4);
  out[0] = 0x78; // deflate, 32 KiB window
  out[1] = 0x01; // no dictionary, fastest; (0x78 << 8 | 0x01) % 31 === 0
  out[2] = 1; // BFINAL, BTYPE 00: one stored block (≤ 65535 bytes)
  out.writeUInt16LE(raw.length, 3);
  out.writeUInt16LE(raw.length ^ 0xffff, 5);
  raw.copy(out, 7);
  out.writeUInt32BE(adler32(raw), 7 + raw.length);
  return out;
}

interface Entry {
  mode: string;
  oid: string;
}

/**
 * An entry as read, kept as its bytes: most entries of an edited tree (the
 * metadata root has up to 256) are written back unchanged, so they are
 * neither decoded nor encoded again.
 */
class RawEntry implements Entry {
  constructor(
    readonly raw: Buffer,
    private readonly modeLen: number,
    private readonly oidBytes: number,
  ) {}
  get mode(): string {
    return this.raw.toString('latin1', 0, this.modeLen);
  }
  get oid(): string {
    return this.raw.toString('hex', this.raw.length - this.oidBytes);
  }
  /** The name as stored: what it sorts by (a name that is not UTF-8 has no exact string form). */
  nameBytes(): Buffer {
    return this.raw.subarray(this.modeLen + 1, this.raw.length - this.oidBytes - 1);
  }
}

/** Whether bytes [start, end) of `b` are exactly the UTF-8 encoding of `s`. */
function isUtf8Of(s: string, b: Buffer, start: number, end: number): boolean {
  let ascii = true;
  for (let i = start; i < end && ascii; i++) ascii = b[i]! < 0x80;
  return ascii || Buffer.from(s, 'utf8').equals(b.subarray(start, end));
}

/** A tree being edited: entries load from the object store on first touch. */
class Node {
  entries: Map<string, Entry | Node> | null = null;
  dirty = false;
  /** A name was added: the (sorted) order read from the object no longer holds. */
  added = false;
  constructor(readonly oid: string | null) {}

  async load(repo: Repo): Promise<Map<string, Entry | Node>> {
    if (this.entries) return this.entries;
    this.entries = new Map();
    if (this.oid) {
      const o = await repo.objects.read(this.oid);
      if (!o || o.type !== 'tree') throw new Error(`tree ${this.oid} is missing`);
      const oidBytes = repo.objectFormat === 'sha256' ? 32 : 20;
      // the one tree parser (src/git/tree-format.ts): a corrupt tree throws, and an entry git
      // would not check out (a name like `..`, a mode not git's) is left out of every tree
      // written from this one, so a hostile tree read here is never copied into ours
      const c = new TreeCursor(o.data, oidBytes);
      while (c.next()) {
        if (!c.valid()) continue;
        let name = c.name();
        // a name that is not valid UTF-8 decodes lossily, and two such names could decode alike:
        // it is keyed by its bytes instead, behind a NUL no change path can contain
        if (!isUtf8Of(name, o.data, c.sp + 1, c.nul)) name = '\0' + o.data.toString('latin1', c.sp + 1, c.nul);
        this.entries.set(name, new RawEntry(o.data.subarray(c.start, c.end), c.sp - c.start, oidBytes));
      }
    }
    return this.entries;
  }
}

function modeOf(c: TreeChange): string {
  if (c.op === 'put-oid') return c.mode === '040000' ? '40000' : c.mode;
  if (c.op === 'put') return c.mode ?? '100644';
  return '';
}

async function apply(repo: Repo, w: ObjectSink, root: Node, c: TreeChange): Promise<void> {
  const segs = c.path.split('/').filter((s) => s !== '');
  if (segs.length === 0) throw new Error(`empty path in a tree change`);
  // the rules trees are read by (src/git/tree-format.ts): no `.`, `..`, `.git` or NUL in what we
  // write; no tree of ours can hold such a name, so deleting one has nothing to do
  if (!isValidTreePath(c.path)) {
    if (c.op === 'delete') return;
    throw new Error(`invalid path in a tree change: ${JSON.stringify(c.path.slice(0, 200))}`);
  }
  let node = root;
  node.dirty = true;
  for (let i = 0; i < segs.length - 1; i++) {
    const entries = await node.load(repo);
    const name = segs[i]!;
    let child = entries.get(name);
    if (!(child instanceof Node)) {
      if (c.op === 'delete' && (!child || !isTreeMode(child.mode))) return; // nothing there to delete
      if (!child || !isTreeMode(child.mode)) node.added = true; // a new name, or a blob turned into a tree
      child = new Node(child && isTreeMode(child.mode) ? child.oid : null);
      entries.set(name, child);
    }
    child.dirty = true;
    node = child;
  }
  const entries = await node.load(repo);
  const leaf = segs[segs.length - 1]!;
  const before = entries.get(leaf);
  if (c.op !== 'delete' && (!before || isTreeMode(before instanceof Node ? '40000' : before.mode) !== isTreeMode(modeOf(c)))) node.added = true;
  if (c.op === 'delete') entries.delete(leaf);
  else if (c.op === 'put-oid') entries.set(leaf, { mode: modeOf(c), oid: c.oid });
  else if (c.content instanceof ByteSource) entries.set(leaf, { mode: modeOf(c), oid: w.writeBlobSource(c.content) });
  else entries.set(leaf, { mode: modeOf(c), oid: w.write('blob', typeof c.content === 'string' ? Buffer.from(c.content, 'utf8') : c.content) });
}

type Row = { name: string; mode: string; oid: string; raw?: RawEntry };

/** git's tree order: names compared as bytes, a tree's name as if it ended in `/`. */
function sortKey(r: Row): Buffer {
  const name = r.raw ? r.raw.nameBytes() : Buffer.from(r.name, 'utf8');
  return isTreeMode(r.mode) ? Buffer.concat([name, Buffer.from('/')]) : name;
}

/** Serialise dirty trees bottom-up; returns the tree's oid, or null when it became empty. */
function serialise(repo: Repo, w: ObjectSink, node: Node): string | null {
  if (!node.dirty || !node.entries) return node.oid;
  const rows: Row[] = [];
  for (const [name, e] of node.entries) {
    if (e instanceof Node) {
      const oid = serialise(repo, w, e);
      if (oid !== null && oid !== EMPTY_TREE[repo.objectFormat]) rows.push({ name, mode: '40000', oid });
    } else if (e instanceof RawEntry) rows.push({ name, get mode() { return e.mode; }, get oid() { return e.oid; }, raw: e });
    else rows.push({ name, mode: e.mode, oid: e.oid });
  }
  if (rows.length === 0) return null;
  // a tree read from the store is sorted already; only new names (or a file turned into a
  // directory, which sorts differently) need a sort — the metadata root has 256 entries
  if (node.added || node.oid === null) rows.sort((a, b) => Buffer.compare(sortKey(a), sortKey(b)));
  const parts: Buffer[] = [];
  for (const r of rows) {
    if (r.raw) parts.push(r.raw.raw);
    else parts.push(Buffer.from(`${r.mode} ${r.name}\0`, 'utf8'), Buffer.from(r.oid, 'hex'));
  }
  return w.write('tree', Buffer.concat(parts));
}

function identLine(kind: 'author' | 'committer', id: Ident, time: number): string {
  const clean = (s: string) => s.replace(/[<>\n]/g, '');
  return `${kind} ${clean(id.name)} <${clean(id.email)}> ${time} +0000\n`;
}

/** Write the commit `spec` describes (same semantics as the fast-import stream); returns its oid. */
export async function writeCommitLoose(repo: Repo, spec: CommitSpec, opts: { hold?: boolean } = {}): Promise<string> {
  const w = new BatchWriter(repo);
  let base: string | null = null;
  if (spec.baseTree) base = spec.baseTree;
  else if (spec.parent && !spec.deleteAll) {
    const p = await repo.objects.read(`${spec.parent}^{tree}`);
    if (!p) throw new Error(`commit ${spec.parent} is missing`);
    base = p.oid;
  }
  const root = new Node(base);
  for (const c of spec.changes) await apply(repo, w, root, c);
  const tree = (root.dirty ? serialise(repo, w, root) : base) ?? w.write('tree', Buffer.alloc(0));
  const time = spec.time ?? Math.floor(Date.now() / 1000);
  let text = `tree ${tree}\n`;
  if (spec.parent) text += `parent ${spec.parent}\n`;
  for (const m of spec.mergeParents ?? []) text += `parent ${m}\n`;
  text += identLine('author', spec.author, time);
  text += identLine('committer', spec.committer ?? spec.author, time);
  text += '\n';
  const oid = w.write('commit', Buffer.concat([Buffer.from(text, 'utf8'), Buffer.from(spec.message, 'utf8')]));
  mark('objects: built and hashed');
  if (opts.hold) w.hold();
  else w.flush();
  return oid;
}
