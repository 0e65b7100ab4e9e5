/**
 * Reading one git config key from the config files directly (hooks read
 * `core.commentChar` on every commit; a `git config` spawn costs more than
 * the rest of the lookup). `[include]` and `[includeIf]` are followed as git
 * follows them (config.c): `path` relative to the including file, `~/`
 * expanded, depth at most 10, and the conditions `gitdir:`, `gitdir/i:` and
 * `onbranch:` (wildmatch.ts); unknown conditions are false, as in git. What
 * this reader does not model (a `hasconfig:` condition, `~user/` or
 * `%(prefix)/` paths, an include on the command line, continued lines)
 * answers undefined so the caller asks git, and is noted once per process
 * for the hook's log (takeConfigFallback).
 */
import { os } from '../builtins.js';
import { readFileSync, realpathSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { wildmatch } from './wildmatch.js';
import { headBranch, parseRefFile, readHead } from './ref-format.js';

type Found = { value: string | null } | undefined;

/** Parse a config value: quotes, escapes and trailing comments. */
function parseValue(raw: string): string {
  let out = '';
  let quoted = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === '"') {
      quoted = !quoted;
      continue;
    }
    if (c === '\\' && i + 1 < raw.length) {
      const n = raw[++i]!;
      out += n === 'n' ? '\n' : n === 't' ? '\t' : n === 'b' ? '\b' : n;
      continue;
    }
    if (!quoted && (c === '#' || c === ';')) break;
    out += c;
  }
  return out.trim();
}

let fallback: string | null = null;

/** Why a config read was left to git in this process, once (then null): for the hook's log. */
export function takeConfigFallback(): string | null {
  const f = fallback;
  fallback = '';
  return f === '' ? null : f;
}

/** Tests: forget what was noted and taken. */
export function resetConfigFallbackForTests(): void {
  fallback = null;
}

function unknown(why: string): null {
  if (fallback === null) fallback = why;
  return null;
}

interface Lookup {
  section: string;
  key: string;
  dirs: { commonDir: string; gitDir: string };
  env: NodeJS.ProcessEnv;
  /** The last value seen so far (null: none). */
  value: string | null;
}

/** git's MAX_INCLUDE_DEPTH: deeper, git stops with an error. */
const MAX_INCLUDE_DEPTH = 10;

/** A section header line: name, optional quoted subsection (escapes undone), what follows `]`. */
const HEADER = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]\s*(.*)$/;

/**
 * Scan one file's text into `q.value` (the last value wins), following its
 * includes at the place they appear. false: only git can tell (recorded).
 */
function scan(text: string, file: string | null, q: Lookup, depth: number): boolean {
  let section = '';
  let sub: string | null = null;
  for (const rawLine of text.split('\n')) {
    const line = rawLine.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    if (line.startsWith('[')) {
      const m = HEADER.exec(line);
      if (!m) return unknown('a config section header this reader does not parse') ?? false;
      const name = m[1]!.toLowerCase();
      const dot = name.indexOf('.');
      // `[a "b"]`, or the old `[a.b]` (subsection lowercased)
      section = dot < 0 ? name : name.slice(0, dot);
      sub = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : dot < 0 ? null : name.slice(dot + 1);
      if (m[3] && !m[3].startsWith('#') && !m[3].startsWith(';')) return unknown('a config key on a section header line') ?? false;
      continue;
    }
    const include = (section === 'include' && sub === null) || (section === 'includeif' && sub !== null);
    if (!include && (section !== q.section || sub !== null)) continue;
    const eq = line.indexOf('=');
    const k = (eq < 0 ? line : line.slice(0, eq)).trim().toLowerCase();
    if (include ? k !== 'path' : k !== q.key) continue;
    if (rawLine.trimEnd().endsWith('\\')) return unknown('a continued config line') ?? false;
    if (!include) {
      q.value = eq < 0 ? 'true' : parseValue(line.slice(eq + 1));
      continue;
    }
    if (eq < 0) return unknown('include.path without a value') ?? false; // git: an error
    if (sub !== null) {
      const holds = condition(sub, file, q);
      if (holds === undefined) return false;
      if (!holds) continue;
    }
    if (!followInclude(parseValue(line.slice(eq + 1)), file, q, depth)) return false;
  }
  return true;
}

/** interpolate_path: `~` or `~/…` from $HOME; null where git cannot (no HOME, `~user`, `%(prefix)`). */
function expandUserPath(p: string, env: NodeJS.ProcessEnv, realHome: boolean): string | null {
  if (p.startsWith('%(prefix)/')) return null;
  if (!p.startsWith('~')) return p;
  if (p !== '~' && !p.startsWith('~/')) return null;
  let home = env['HOME'];
  if (!home) return null;
  if (realHome) home = realpath(home) ?? home;
  return home + p.slice(1);
}

function followInclude(raw: string, file: string | null, q: Lookup, depth: number): boolean {
  let path = expandUserPath(raw, q.env, false);
  if (path === null) return unknown(`an include path this reader does not expand (${raw.slice(0, 40)})`) ?? false;
  if (!isAbsolute(path)) {
    if (file === null) return unknown('a relative include outside a file') ?? false;
    // as git: the including file's directory, as it was named, then the path
    path = file.slice(0, file.lastIndexOf('/') + 1) + path;
  }
  const text = readConfigFile(path);
  if (text === null) return true; // a missing file is skipped, as in git
  if (depth + 1 > MAX_INCLUDE_DEPTH) return unknown('config includes nested too deep') ?? false;
  return scan(text, path, q, depth + 1);
}

const realpaths = new Map<string, string | null>();
function realpath(p: string): string | null {
  let r = memo ? realpaths.get(p) : undefined;
  if (r === undefined) {
    try {
      r = realpathSync.native(p);
    } catch {
      r = null;
    }
    if (memo) realpaths.set(p, r);
  }
  return r;
}

/** Whether an `[includeIf "<cond>"]` holds; undefined when only git can tell (recorded). */
function condition(cond: string, file: string | null, q: Lookup): boolean | undefined {
  if (cond.startsWith('gitdir:')) return byGitdir(cond.slice(7), false, file, q);
  if (cond.startsWith('gitdir/i:')) return byGitdir(cond.slice(9), true, file, q);
  if (cond.startsWith('onbranch:')) return byBranch(cond.slice(9), q);
  if (cond.startsWith('hasconfig:')) return unknown(`an includeIf condition this reader does not evaluate (${cond.slice(0, 40)})`) ?? undefined;
  return false; // git: unknown conditions are false
}

/** include_by_gitdir: the pattern against the git dir, resolved, then as given. */
function byGitdir(pattern: string, icase: boolean, file: string | null, q: Lookup): boolean | undefined {
  // git expands `~user/` (getpwnam) and `%(prefix)/` too: not modelled here
  if ((pattern.startsWith('~') && pattern !== '~' && !pattern.startsWith('~/')) || pattern.startsWith('%(prefix)/')) {
    return unknown(`an includeIf pattern this reader does not expand (${pattern.slice(0, 40)})`) ?? undefined;
  }
  // with HOME unset git matches the pattern as written
  let pat = expandUserPath(pattern, q.env, true) ?? pattern;
  let prefix = 0;
  if (pat.startsWith('./')) {
    if (file === null) return unknown('a relative includeIf outside a file') ?? undefined;
    const real = realpath(file) ?? file;
    const dir = real.slice(0, real.lastIndexOf('/'));
    pat = dir + pat.slice(1);
    prefix = dir.length + 1;
  } else if (!isAbsolute(pat)) pat = '**/' + pat;
  if (pat.endsWith('/')) pat += '**';
  const gitDir = q.dirs.gitDir;
  for (const text of [realpath(gitDir) ?? gitDir, gitDir]) {
    if (prefix > 0) {
      if (text.length < prefix) continue;
      const a = pat.slice(0, prefix);
      const b = text.slice(0, prefix);
      if (icase ? a.toLowerCase() !== b.toLowerCase() : a !== b) continue;
    }
    if (wildmatch(pat.slice(prefix), text.slice(prefix), { pathname: true, casefold: icase })) return true;
  }
  return false;
}

/** include_by_branch: HEAD's branch (symbolic HEAD into refs/heads/, born or not) against the pattern. */
function byBranch(pattern: string, q: Lookup): boolean | undefined {
  const branch = headBranch(readHead(q.dirs.gitDir, 40));
  if (branch === null) return false;
  // git resolves HEAD all the way: a branch that is itself a symbolic ref is git's to follow
  const loose = readText(join(q.dirs.commonDir, 'refs', 'heads', branch));
  if (loose !== null && parseRefFile(loose, 40)?.symref !== undefined) return unknown('onbranch: with a symbolic branch') ?? undefined;
  return wildmatch(pattern.endsWith('/') ? pattern + '**' : pattern, branch, { pathname: true });
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

// A hook reads git's config files several times (repository discovery, the comment
// character, reflog idents, pack limits…) and never writes them: hooks turn on a
// per-process memo of their texts. Commands do not, as they may outlive a change.
let memo: Map<string, string | null> | null = null;

/** Keep each config file's text for the rest of the process (hooks only). */
export function memoizeConfigFiles(): void {
  memo ??= new Map();
}

/** A config file's text, or null if unreadable (memoized after memoizeConfigFiles). */
export function readConfigFile(path: string): string | null {
  const hit = memo?.get(path);
  if (hit !== undefined) return hit;
  let text: string | null;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    text = null;
  }
  memo?.set(path, text);
  return text;
}

/**
 * `section.key` (lowercase, e.g. `core`, `commentchar`) as git would see it
 * from the files and `-c` parameters; undefined when only git can tell.
 */
export function readConfigValue(section: string, key: string, dirs: { commonDir: string; gitDir: string }, env: NodeJS.ProcessEnv = process.env): Found {
  if (env['GIT_CONFIG_COUNT'] || env['GIT_CONFIG']) return unknown('GIT_CONFIG_COUNT or GIT_CONFIG in the environment') ?? undefined;
  const home = env['HOME'] || os().homedir();
  const files: string[] = [];
  if (env['GIT_CONFIG_NOSYSTEM'] !== '1' && env['GIT_CONFIG_NOSYSTEM'] !== 'true') files.push(env['GIT_CONFIG_SYSTEM'] || '/etc/gitconfig');
  if (env['GIT_CONFIG_GLOBAL'] !== undefined) files.push(env['GIT_CONFIG_GLOBAL']);
  else {
    files.push(join(env['XDG_CONFIG_HOME'] || join(home, '.config'), 'git', 'config'));
    files.push(join(home, '.gitconfig'));
  }
  const localPath = join(dirs.commonDir, 'config');
  files.push(localPath);
  const q: Lookup = { section, key, dirs, env, value: null };
  let local = '';
  for (const f of files) {
    if (f === '/dev/null' || f === '') continue;
    const text = readConfigFile(f);
    if (text === null) continue;
    if (f === localPath) local = text;
    if (!scan(text, f, q, 0)) return undefined;
  }
  if (local.toLowerCase().includes('worktreeconfig') && /worktreeconfig\s*=\s*true/i.test(local)) {
    const wtPath = join(dirs.gitDir, 'config.worktree');
    const wt = readConfigFile(wtPath);
    if (wt !== null && !scan(wt, wtPath, q, 0)) return undefined;
  }
  let value = q.value;
  // `git -c section.key=value` reaches hooks as GIT_CONFIG_PARAMETERS
  const params = env['GIT_CONFIG_PARAMETERS'];
  if (params) {
    const re = /'([^']*)'(?:=('(?:[^']|'\\'')*'))?/g;
    let m: RegExpExecArray | null;
    const want = `${section}.${key}`;
    while ((m = re.exec(params))) {
      const k = m[1]!;
      let v: string | undefined;
      if (m[2] !== undefined) v = m[2].slice(1, -1).replace(/'\\''/g, "'");
      const name = (m[2] === undefined && k.includes('=') ? k.slice(0, k.indexOf('=')) : k).toLowerCase();
      // `-c include.path=…` includes a file too: git's to follow
      if (name === 'include.path' || (name.startsWith('includeif.') && name.endsWith('.path'))) return unknown('an include in -c parameters') ?? undefined;
      if (m[2] === undefined) {
        const eq = k.indexOf('=');
        if (eq >= 0) {
          if (name === want) value = k.slice(eq + 1);
          continue;
        }
      }
      if (name === want) value = v ?? 'true';
    }
  }
  return { value };
}
