import { ByteSource } from '../byte-source.js';
import { crypto } from '../builtins.js';
import { createHasher } from './checksums.js';
/**
 * Ident helpers and blob ids. The tree and commit formats have one parser
 * each, re-exported here for the callers that always imported them from this
 * module: src/git/tree-format.ts and src/git/commit-format.ts.
 */
export { parseTree, isTreeMode, type TreeEntry } from './tree-format.js';
export { parseCommit, type CommitInfo } from './commit-format.js';

/** Seconds-since-epoch of an ident line (`Name <mail> 1700000000 +0100`). */
export function identTime(ident: string): Date | null {
  const m = / (\d+) ([+-]\d{4})$/.exec(ident);
  return m && m[1] ? new Date(Number(m[1]) * 1000) : null;
}

export function identName(ident: string): string {
  const m = /^(.*?) <([^>]*)>/.exec(ident);
  return m ? `${m[1]} <${m[2]}>` : ident;
}


/** The object ID git would give a blob with this content (a source is read in pieces). */
export function blobOid(content: Buffer | string | ByteSource, format: 'sha1' | 'sha256'): string {
  if (content instanceof ByteSource) return sourceOid('blob', content, format);
  const b = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  return createHasher(format).update(`blob ${b.length}\0`).update(b).digestHex();
}

/**
 * The object ID of content read in pieces. Megabytes are hashed by node:crypto: its
 * native SHA-1 is several times faster than the WebAssembly one (which spares small
 * objects the module load); the content of a small source is hashed like a Buffer.
 */
export function sourceOid(type: 'blob', content: ByteSource, format: 'sha1' | 'sha256'): string {
  if (content.size <= 1024 * 1024) return createHasher(format).update(`${type} ${content.size}\0`).update(content.readAll()).digestHex();
  const h = crypto().createHash(format).update(`${type} ${content.size}\0`);
  for (const p of content.pieces()) h.update(p);
  return h.digest('hex');
}
