/**
 * git's ref files, the one parser of each: ref names (git check-ref-format),
 * loose ref files and `HEAD` (`ref: <name>` or an object id), and
 * `packed-refs`. Every in-process reader of refs (discover.ts, local-odb.ts,
 * ref-files.ts, repo.ts, the config reader's `onbranch:`) goes through these.
 *
 * What invalid input does: a name that fails `isValidRefName` is never used
 * to build a path; a loose ref or HEAD that is not exactly what git writes
 * parses as null and the caller leaves the question to git; a packed-refs
 * file that git itself would refuse (a header that is not git's, a last line
 * without its newline) or whose line for the ref asked about is not a plain
 * `<id> <name>` record answers undefined (ask git).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

function isHexId(s: string, start: number, end: number): boolean {
  if (end - start !== 40 && end - start !== 64) return false;
  for (let i = start; i < end; i++) {
    const c = s.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false;
  }
  return true;
}

/** isspace() in the C locale, as git trims ref files. */
function isSpace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d);
}

/**
 * git's check-ref-format rules: no component empty, starting with `.` or
 * ending with `.lock`; no `..`, `@{`, `//`, control characters, space, `~`,
 * `^`, `:`, `?`, `*`, `[` or `\`; not starting or ending with `/`, not ending
 * with `.`, not `@`. Without `allowOneLevel`, at least two components.
 */
export function isValidRefName(name: string, allowOneLevel = false): boolean {
  const n = name.length;
  if (n === 0 || name === '@') return false;
  let components = 1;
  let compStart = 0;
  for (let i = 0; i < n; i++) {
    const c = name.charCodeAt(i);
    if (c < 0x20 || c === 0x7f || c === 0x20 || c === 0x7e /* ~ */ || c === 0x5e /* ^ */ || c === 0x3a /* : */) return false;
    if (c === 0x3f /* ? */ || c === 0x2a /* * */ || c === 0x5b /* [ */ || c === 0x5c /* \ */) return false;
    if (c === 0x2e /* . */ && (i === compStart || name.charCodeAt(i + 1) === 0x2e)) return false; // component starts with '.', or '..'
    if (c === 0x40 /* @ */ && name.charCodeAt(i + 1) === 0x7b /* { */) return false;
    if (c === 0x2f /* / */) {
      if (i === compStart) return false; // leading '/' or '//'
      if (name.endsWith('.lock', i) && i - compStart >= 5) return false;
      components++;
      compStart = i + 1;
    }
  }
  if (compStart === n) return false; // trailing '/'
  if (name.charCodeAt(n - 1) === 0x2e) return false;
  if (name.endsWith('.lock')) return false;
  return allowOneLevel || components >= 2;
}

/** A loose ref file's (or HEAD's) content: a symbolic ref, an object id, or null when it is neither. */
export type RefValue = { symref: string; oid?: undefined } | { oid: string; symref?: undefined };

/**
 * Parse a loose ref file as git does (parse_loose_ref_contents): `ref:`,
 * optional spaces and a valid ref name; or an object id of `hexLen` digits,
 * followed by nothing or by whitespace. Only lowercase ids (what git writes):
 * anything else is null, for the caller to leave to git.
 */
export function parseRefFile(text: string, hexLen: number): RefValue | null {
  let end = text.length;
  while (end > 0 && isSpace(text.charCodeAt(end - 1))) end--;
  if (text.startsWith('ref:')) {
    let i = 4;
    while (i < end && isSpace(text.charCodeAt(i))) i++;
    const target = text.slice(i, end);
    return isValidRefName(target, true) ? { symref: target } : null;
  }
  if (end < hexLen || !isHexId(text, 0, hexLen)) return null;
  if (end > hexLen && !isSpace(text.charCodeAt(hexLen))) return null;
  return { oid: text.slice(0, hexLen) };
}

/**
 * This git dir's HEAD: a symbolic ref into `refs/`, a detached object id, or
 * null when it is missing or not what git accepts as HEAD (git then does not
 * take the directory for a repository at all: validate_headref).
 */
export function readHead(gitDir: string, hexLen: number): RefValue | null {
  let text: string;
  try {
    text = readFileSync(join(gitDir, 'HEAD'), 'utf8');
  } catch {
    return null;
  }
  const v = parseRefFile(text, hexLen);
  if (v?.symref !== undefined && !v.symref.startsWith('refs/')) return null;
  return v;
}

/** The branch HEAD names (without `refs/heads/`), null when detached or not a branch. */
export function headBranch(head: RefValue | null): string | null {
  return head?.symref !== undefined && head.symref.startsWith('refs/heads/') ? head.symref.slice(11) : null;
}

/**
 * The traits in a packed-refs header (`# pack-refs with: peeled fully-peeled sorted `):
 * an empty set without a header, null when the file starts with `#` but not
 * with git's header (git refuses such a file).
 */
export function packedRefsTraits(text: string): Set<string> | null {
  if (!text.startsWith('#')) return new Set();
  const prefix = '# pack-refs with: ';
  if (!text.startsWith(prefix)) return null;
  const eol = text.indexOf('\n');
  return new Set(text.slice(prefix.length, eol < 0 ? text.length : eol).split(' ').filter((t) => t !== ''));
}

/**
 * `ref`'s value in a packed-refs file's text: its id, null when the file does
 * not name it, undefined when git must answer: the file is one git refuses
 * (see packedRefsTraits; a last line without its newline), the line naming
 * the ref is not a plain `<id> SP <name>` record (a peeled `^` line, junk, an
 * id of another length or in capitals), or the ref is named twice.
 * A search, not a split: packed-refs can list every tag of a big repository.
 */
export function packedRefValue(text: string, ref: string, hexLen: number): string | null | undefined {
  if (text === '') return null;
  if (!isValidRefName(ref, true) || text.charCodeAt(text.length - 1) !== 0x0a || packedRefsTraits(text) === null) return undefined;
  const needle = ' ' + ref + '\n';
  const at = text.indexOf(needle);
  if (at < 0) return null;
  const lineStart = text.lastIndexOf('\n', at) + 1;
  if (at - lineStart !== hexLen || !isHexId(text, lineStart, at)) return undefined;
  if (text.indexOf(needle, at + needle.length) >= 0) return undefined;
  return text.slice(lineStart, at);
}

/** Whether packed-refs may name a ref below `dir/` (a substring test: errs towards yes). */
export function packedRefsHaveUnder(text: string, dir: string): boolean {
  return text.includes(' ' + dir + '/');
}
