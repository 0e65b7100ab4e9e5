/**
 * git's commit object format (and the tag object's header, which has the same
 * syntax), the one parser of it. A commit is header lines, an empty line, and
 * the message. The headers are, in this order and once each (the order
 * `git fsck` requires and git's own parsers rely on):
 *
 *     tree <id>
 *     parent <id>            zero or more, right after tree
 *     author <ident>
 *     committer <ident>
 *     <key> <value>          any others: encoding, gpgsig, mergetag, …
 *      <continuation>        a line starting with a space continues the header above
 *
 * git's readers disagree on anything else (`git log`'s format takes the last
 * `author` line, the date parser the one after the parents, `^{tree}` the
 * first line), so a commit that repeats or misplaces one of those four
 * headers, has a malformed id, a NUL in its headers, or a continuation line
 * with nothing to continue is not well formed here: `parseCommit` answers
 * null and `commitTree` null for it, and no in-process reader picks one of
 * git's readings over another.
 */

export interface CommitInfo {
  tree: string;
  parents: string[];
  author: string;
  committer: string;
  /** The `encoding` header (the message's charset when not UTF-8), or null. */
  encoding: string | null;
  /** The other headers in order (gpgsig, mergetag, …), continuation lines joined by `\n`. */
  extra: { key: string; value: string }[];
  message: string;
}

interface Headers {
  tree: string;
  parents: string[];
  author: string;
  committer: string;
  encoding: string | null;
  extra: { key: string; value: string }[];
  /** Where the message starts. */
  body: number;
}

const RESERVED = new Set(['tree', 'parent', 'author', 'committer']);

function isHexId(s: string, hexLen: number): boolean {
  if (s.length !== hexLen) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false;
  }
  return true;
}

function hexLenOf(format: 'sha1' | 'sha256'): number {
  return format === 'sha256' ? 64 : 40;
}

/** The header lines (up to the first empty line) and where the message starts; null on a NUL. */
function headerLines(data: Buffer): { lines: string[]; body: number } | null {
  const blank = data.indexOf('\n\n');
  const headEnd = blank < 0 ? (data.length > 0 && data[data.length - 1] === 0x0a ? data.length - 1 : data.length) : blank;
  const nul = data.indexOf(0);
  if (nul >= 0 && nul < headEnd) return null;
  const lines = data.toString('utf8', 0, headEnd).split('\n');
  return { lines, body: blank < 0 ? data.length : blank + 2 };
}

function scanCommit(data: Buffer, hexLen: number): Headers | null {
  const h = headerLines(data);
  if (!h) return null;
  const { lines } = h;
  const first = lines[0] ?? '';
  if (!first.startsWith('tree ') || !isHexId(first.slice(5), hexLen)) return null;
  let i = 1;
  const parents: string[] = [];
  for (; i < lines.length && lines[i]!.startsWith('parent '); i++) {
    const p = lines[i]!.slice(7);
    if (!isHexId(p, hexLen)) return null;
    parents.push(p);
  }
  const author = lines[i] ?? '';
  const committer = lines[i + 1] ?? '';
  if (!author.startsWith('author ') || !committer.startsWith('committer ')) return null;
  const out: Headers = { tree: first.slice(5), parents, author: author.slice(7), committer: committer.slice(10), encoding: null, extra: [], body: h.body };
  for (i += 2; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith(' ')) {
      const last = out.extra[out.extra.length - 1];
      if (!last) return null; // continues tree, parent, author or committer: not git's layout
      last.value += '\n' + line.slice(1);
      continue;
    }
    const sp = line.indexOf(' ');
    const key = sp < 0 ? line : line.slice(0, sp);
    if (RESERVED.has(key)) return null;
    const value = sp < 0 ? '' : line.slice(sp + 1);
    if (key === 'encoding') {
      if (out.encoding !== null) return null;
      out.encoding = value;
    }
    out.extra.push({ key, value });
  }
  return out;
}

/** A commit's headers and message; null when it is not well formed (see the module comment). */
export function parseCommit(data: Buffer, format: 'sha1' | 'sha256'): CommitInfo | null {
  const h = scanCommit(data, hexLenOf(format));
  if (!h) return null;
  const { body, ...rest } = h;
  return { ...rest, message: data.toString('utf8', body) };
}

/** A commit's tree id by the same rules (null: not a well-formed commit). */
export function commitTree(data: Buffer, format: 'sha1' | 'sha256'): string | null {
  return scanCommit(data, hexLenOf(format))?.tree ?? null;
}

/**
 * The object an annotated tag points at: its first header, `object <id>`
 * (git's tag parser and `git fsck` require it first). null when malformed.
 */
export function tagTarget(data: Buffer, format: 'sha1' | 'sha256'): string | null {
  const h = headerLines(data);
  const first = h?.lines[0] ?? '';
  if (!first.startsWith('object ')) return null;
  const oid = first.slice(7);
  return isHexId(oid, hexLenOf(format)) ? oid : null;
}
