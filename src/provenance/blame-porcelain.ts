/**
 * `git blame --porcelain` output → the blamed lines SPEC-3 §B.2 classifies, and each commit's
 * header fields. Pure: the caller runs git and decodes its bytes.
 *
 * The format: each line of the file is a header `<sha> <orig line> <final line> [<group size>]`,
 * then, the first time a commit appears, its `key value` lines (`author`, `author-mail`,
 * `author-time`, `author-tz`, `committer…`, `summary`, `previous <sha> <path>`, `boundary`), then
 * `filename <path>` (repeated whenever git chooses), then the line's text after a TAB. The text
 * is work-tree content (untrusted): it is kept as is, only the leading TAB taken off.
 */
import type { BlamedLine } from './classify.js';

export interface BlameCommit {
  sha: string;
  author?: string;
  authorMail?: string;
  /** Seconds since the epoch. */
  authorTime?: number;
  authorTz?: string;
  committer?: string;
  committerTime?: number;
  summary?: string;
  /** The parent and the file's path there (absent for the file's first commit, a `boundary`). */
  previous?: { sha: string; path: string };
  /** The range's boundary commit (blame did not look further back). */
  boundary: boolean;
}

export interface ParsedBlame {
  lines: BlamedLine[];
  /** Per commit sha, in first-seen order. */
  commits: Map<string, BlameCommit>;
}

const HEADER = /^([0-9a-f]{40}|[0-9a-f]{64}) (\d+) (\d+)(?: (\d+))?$/;

/** Lenient: a line it does not understand is skipped, a text line with no header before it too. */
export function parseBlamePorcelain(text: string): ParsedBlame {
  const lines: BlamedLine[] = [];
  const commits = new Map<string, BlameCommit>();
  let cur: { commit: BlameCommit; origLine: number; line: number } | undefined;
  let filename: string | undefined;
  /** The path each commit's lines were last given (a commit's later groups may omit `filename`). */
  const lastPathOf = new Map<string, string>();
  const rows = text.split('\n');
  if (rows[rows.length - 1] === '') rows.pop();
  for (const row of rows) {
    if (row.startsWith('\t')) {
      if (!cur) continue;
      const l: BlamedLine = { line: cur.line, text: row.slice(1), commit: cur.commit.sha, origLine: cur.origLine };
      if (filename !== undefined) l.origPath = filename;
      lines.push(l);
      cur = undefined;
      continue;
    }
    const h = HEADER.exec(row);
    if (h) {
      const sha = h[1]!;
      let commit = commits.get(sha);
      if (!commit) {
        commit = { sha, boundary: false };
        commits.set(sha, commit);
        filename = undefined;
      } else filename = lastPathOf.get(sha);
      cur = { commit, origLine: Number(h[2]), line: Number(h[3]) };
      continue;
    }
    if (!cur) continue;
    const sp = row.indexOf(' ');
    const key = sp < 0 ? row : row.slice(0, sp);
    const value = sp < 0 ? '' : row.slice(sp + 1);
    const c = cur.commit;
    switch (key) {
      case 'author':
        c.author = value;
        break;
      case 'author-mail':
        c.authorMail = value;
        break;
      case 'author-time':
        c.authorTime = Number(value);
        break;
      case 'author-tz':
        c.authorTz = value;
        break;
      case 'committer':
        c.committer = value;
        break;
      case 'committer-time':
        c.committerTime = Number(value);
        break;
      case 'summary':
        c.summary = value;
        break;
      case 'boundary':
        c.boundary = true;
        break;
      case 'previous': {
        const m = /^([0-9a-f]{40}|[0-9a-f]{64}) (.*)$/.exec(value);
        if (m) c.previous = { sha: m[1]!, path: m[2]! };
        break;
      }
      case 'filename':
        filename = value;
        lastPathOf.set(c.sha, value);
        break;
      default:
        break;
    }
  }
  return { lines, commits };
}
