import { ByteSource } from '../byte-source.js';
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
  if (content instanceof ByteSource) {
    const h = createHasher(format).update(`blob ${content.size}\0`);
    for (const p of content.pieces()) h.update(p);
    return h.digestHex();
  }
  const b = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  return createHasher(format).update(`blob ${b.length}\0`).update(b).digestHex();
}
