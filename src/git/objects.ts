import { createHasher } from './checksums.js';
/** Pure codecs for git tree and commit objects (no I/O). */

export interface TreeEntry {
  mode: string;
  name: string;
  oid: string;
}

export function isTreeMode(mode: string): boolean {
  return mode === '40000' || mode === '040000';
}

/** Parse a binary tree object. */
export function parseTree(data: Buffer, format: 'sha1' | 'sha256'): TreeEntry[] {
  const oidLen = format === 'sha256' ? 32 : 20;
  const entries: TreeEntry[] = [];
  let i = 0;
  while (i < data.length) {
    const sp = data.indexOf(0x20, i);
    const nul = data.indexOf(0x00, sp + 1);
    if (sp < 0 || nul < 0 || nul + 1 + oidLen > data.length) break;
    entries.push({
      mode: data.subarray(i, sp).toString('latin1'),
      name: data.subarray(sp + 1, nul).toString('utf8'),
      oid: data.subarray(nul + 1, nul + 1 + oidLen).toString('hex'),
    });
    i = nul + 1 + oidLen;
  }
  return entries;
}

export interface CommitInfo {
  tree: string;
  parents: string[];
  author: string;
  committer: string;
  message: string;
}

export function parseCommit(data: Buffer): CommitInfo {
  const text = data.toString('utf8');
  const split = text.indexOf('\n\n');
  const header = split >= 0 ? text.slice(0, split) : text;
  const message = split >= 0 ? text.slice(split + 2) : '';
  const info: CommitInfo = { tree: '', parents: [], author: '', committer: '', message };
  for (const line of header.split('\n')) {
    if (line.startsWith('tree ')) info.tree = line.slice(5);
    else if (line.startsWith('parent ')) info.parents.push(line.slice(7));
    else if (line.startsWith('author ')) info.author = line.slice(7);
    else if (line.startsWith('committer ')) info.committer = line.slice(10);
  }
  return info;
}

/** Seconds-since-epoch of an ident line (`Name <mail> 1700000000 +0100`). */
export function identTime(ident: string): Date | null {
  const m = / (\d+) ([+-]\d{4})$/.exec(ident);
  return m && m[1] ? new Date(Number(m[1]) * 1000) : null;
}

export function identName(ident: string): string {
  const m = /^(.*?) <([^>]*)>/.exec(ident);
  return m ? `${m[1]} <${m[2]}>` : ident;
}


/** The object ID git would give a blob with this content. */
export function blobOid(content: Buffer | string, format: 'sha1' | 'sha256'): string {
  const b = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  return createHasher(format).update(`blob ${b.length}\0`).update(b).digestHex();
}
