/**
 * The tail of HEAD's reflog (`<gitDir>/logs/HEAD`, per worktree), read in-process:
 * the hook-less commit check (strategy/hookless-commits.ts) asks how a commit
 * entered HEAD, on hot paths, so no git spawn. Local data, still read as
 * untrusted-ish: at most REFLOG_TAIL_BYTES from the end, lines of at most
 * REFLOG_LINE_MAX bytes, and a line that is not exactly git's
 * `<old> <new> <ident> <time> <tz>\t<message>` is skipped. A repository
 * without the file (reftable, `core.logAllRefUpdates=false`) answers [].
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';

export const REFLOG_TAIL_BYTES = 256 * 1024;
const REFLOG_LINE_MAX = 4096;

export interface ReflogEntry {
  old: string;
  next: string;
  /** `Name <email>`, as git wrote it (the committer identity of the process that moved HEAD). */
  ident: string;
  /** Seconds since the epoch. */
  time: number;
  /** `commit: <subject>`, `pull: Fast-forward`, `reset: moving to …`, … */
  message: string;
}

const HEADER = /^([0-9a-f]{40}|[0-9a-f]{64}) ([0-9a-f]{40}|[0-9a-f]{64}) ([^<>\n]*<[^<>\n]*>) (\d{1,12}) [+-]\d{4}$/;

/** One reflog line, or null when it is not git's format. */
export function parseReflogLine(line: string): ReflogEntry | null {
  if (line.length > REFLOG_LINE_MAX) return null;
  const tab = line.indexOf('\t');
  const m = HEADER.exec(tab < 0 ? line : line.slice(0, tab));
  if (!m) return null;
  return { old: m[1]!, next: m[2]!, ident: m[3]!, time: Number(m[4]), message: tab < 0 ? '' : line.slice(tab + 1) };
}

/**
 * The last entries of HEAD's reflog (oldest first), from at most `maxBytes` of
 * its end; with `wanted`, only entries whose new value is one of those ids (the
 * other lines are not parsed: a hook asks about a few commits).
 */
export function headReflogTail(gitDir: string, maxBytes = REFLOG_TAIL_BYTES, wanted?: ReadonlySet<string>): ReflogEntry[] {
  const path = join(gitDir, 'logs', 'HEAD');
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return [];
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return [];
    const start = Math.max(0, st.size - maxBytes);
    const buf = Buffer.alloc(st.size - start);
    let got = 0;
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, start + got);
      if (n <= 0) break;
      got += n;
    }
    const lines = buf.subarray(0, got).toString('utf8').split('\n');
    if (start > 0) lines.shift(); // the first line is cut
    const entries: ReflogEntry[] = [];
    for (const l of lines) {
      if (l === '') continue;
      if (wanted) {
        const sp = l.indexOf(' ');
        const end = sp < 0 ? -1 : l.indexOf(' ', sp + 1);
        if (end < 0 || !wanted.has(l.slice(sp + 1, end))) continue;
      }
      const e = parseReflogLine(l);
      if (e) entries.push(e);
    }
    return entries;
  } catch {
    return [];
  } finally {
    closeSync(fd);
  }
}
