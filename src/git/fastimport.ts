/**
 * Writes commits with one `git fast-import` process. fast-import rebuilds
 * only the trees on the changed paths and streams large blobs without
 * temporary files. It writes the commit under a private temporary ref; the
 * caller moves the real ref by compare-and-swap (SPEC §2.9) and drops the
 * temporary one in the same `update-ref` transaction.
 */
import { EntireError } from '../errors.js';
import { runGit } from './exec.js';
import type { Ident } from './repo.js';
import { randomHex } from '../random.js';
import { isValidTreePath } from './tree-format.js';
import { ByteSource } from '../byte-source.js';

export type FileMode = '100644' | '100755' | '120000';

export type TreeChange =
  /** `content` as a ByteSource: big content (a transcript chunk), read in pieces as it is written. */
  | { op: 'put'; path: string; content: Buffer | string | ByteSource; mode?: FileMode }
  | { op: 'put-oid'; path: string; oid: string; mode: FileMode | '040000' }
  | { op: 'delete'; path: string };

export interface CommitSpec {
  message: string;
  /** First parent (`from`); omitted for a root commit. */
  parent?: string | null;
  /** Further parents (merges). */
  mergeParents?: string[];
  /** Start from an empty tree instead of the parent's. */
  deleteAll?: boolean;
  /** Replace the whole root tree before applying `changes`. */
  baseTree?: string;
  changes: TreeChange[];
  author: Ident;
  committer?: Ident;
  /** Seconds since epoch (default now). */
  time?: number;
}

export interface WrittenCommit {
  oid: string;
  /** Private ref fast-import left behind; delete it with the real ref update. */
  tempRef: string;
}

export const TEMP_REF_PREFIX = 'refs/entire-tmp/';

/** C-style quote a path when fast-import would misread it. */
export function quotePath(p: string): string {
  if (!/["\\\n]/.test(p) && !p.startsWith('"')) return p;
  return '"' + p.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n') + '"';
}

function identLine(kind: 'author' | 'committer', id: Ident, time: number): string {
  const clean = (s: string) => s.replace(/[<>\n]/g, '');
  return `${kind} ${clean(id.name)} <${clean(id.email)}> ${time} +0000\n`;
}

function data(content: Buffer | string | ByteSource): Array<Buffer | ByteSource> {
  const b = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  const size = b instanceof ByteSource ? b.size : b.length;
  return [Buffer.from(`data ${size}\n`), b, Buffer.from('\n')];
}

/** Build the fast-import stream for one commit (exported for tests). */
export function buildStream(spec: CommitSpec, tempRef: string): Buffer[] {
  return streamParts(spec, tempRef).map((p) => (p instanceof ByteSource ? p.readAll() : p));
}

/** The stream's parts; big blob contents stay sources, read in pieces as git takes them. */
function* streamPieces(parts: Array<Buffer | ByteSource>): Generator<Buffer> {
  for (const p of parts) {
    if (p instanceof ByteSource) yield* p.pieces();
    else yield p;
  }
}

function streamParts(spec: CommitSpec, tempRef: string): Array<Buffer | ByteSource> {
  const time = spec.time ?? Math.floor(Date.now() / 1000);
  const parts: Array<Buffer | ByteSource> = [Buffer.from(`feature done\ncommit ${tempRef}\nmark :1\n`)];
  parts.push(Buffer.from(identLine('author', spec.author, time)));
  parts.push(Buffer.from(identLine('committer', spec.committer ?? spec.author, time)));
  parts.push(...data(spec.message));
  if (spec.parent) parts.push(Buffer.from(`from ${spec.parent}\n`));
  for (const m of spec.mergeParents ?? []) parts.push(Buffer.from(`merge ${m}\n`));
  if (spec.deleteAll) parts.push(Buffer.from('deleteall\n'));
  if (spec.baseTree) parts.push(Buffer.from(`M 040000 ${spec.baseTree} ""\n`));
  for (const c of spec.changes) {
    // the names trees are read by (src/git/tree-format.ts), as in odb.ts: deleting an invalid
    // path has nothing to do, writing one is refused
    if (!isValidTreePath(c.path)) {
      if (c.op === 'delete') continue;
      throw new Error(`invalid path in a tree change: ${JSON.stringify(c.path.slice(0, 200))}`);
    }
    if (c.op === 'delete') parts.push(Buffer.from(`D ${quotePath(c.path)}\n`));
    else if (c.op === 'put-oid') parts.push(Buffer.from(`M ${c.mode} ${c.oid} ${quotePath(c.path)}\n`));
    else {
      parts.push(Buffer.from(`M ${c.mode ?? '100644'} inline ${quotePath(c.path)}\n`));
      parts.push(...data(c.content));
    }
  }
  parts.push(Buffer.from('\nget-mark :1\ndone\n'));
  return parts;
}

export async function writeCommit(cwd: string, spec: CommitSpec, opts: { fastCompression?: boolean } = {}): Promise<WrittenCommit> {
  const tempRef = `${TEMP_REF_PREFIX}${process.pid}-${randomHex(4)}`;
  const parts = streamParts(spec, tempRef);
  const input = parts.some((p) => p instanceof ByteSource) ? streamPieces(parts) : Buffer.concat(parts as Buffer[]);
  // local, short-lived objects (shadow steps): zlib level 1 is ~30 % faster
  const args = opts.fastCompression ? ['-c', 'pack.compression=1', 'fast-import', '--quiet', '--done'] : ['fast-import', '--quiet', '--done'];
  const r = await runGit(args, { cwd, input, allowFailure: true });
  const oid = r.stdout.toString('utf8').trim().split('\n').pop() ?? '';
  if (r.code !== 0 || !/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(oid)) {
    throw new EntireError('GIT_FAILED', `git fast-import failed: ${r.stderr.trim().split('\n')[0] ?? r.code}`);
  }
  return { oid, tempRef };
}
