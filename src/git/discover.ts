/**
 * Repository discovery from the file system, for hooks: the common layout
 * (a `.git` directory or a `.git` file, linked worktrees, loose or packed
 * refs) is read directly, saving the `git rev-parse` spawn on every hook.
 * Anything unusual returns null and the caller asks git instead.
 */
import { readConfigFile } from './config-file.js';
import { isValidRefName, packedRefValue, parseRefFile, readHead } from './ref-format.js';
import { readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';

export interface Discovered {
  root: string;
  gitDir: string;
  commonDir: string;
  objectFormat: 'sha1' | 'sha256';
  head: string | null;
}

function read(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function gitDirFromDotGit(dir: string): string | null {
  const dotgit = join(dir, '.git');
  let st;
  try {
    st = statSync(dotgit);
  } catch {
    return null;
  }
  if (st.isDirectory()) return dotgit;
  if (!st.isFile()) return null;
  const m = /^gitdir: (.+)$/m.exec(read(dotgit) ?? '');
  if (!m || !m[1]) return null;
  const p = m[1].trim();
  return isAbsolute(p) ? p : resolve(dir, p);
}

/**
 * A ref's object id from the files backend (loose, then packed): null if it
 * does not exist, undefined when git must say (a symbolic or malformed ref, a
 * name git would refuse, a packed-refs file git would refuse).
 */
export function resolveRef(gitDir: string, commonDir: string, ref: string, hexLen = 40): string | null | undefined {
  // the name becomes a path: only names git accepts (no `..`, no control characters)
  if (!isValidRefName(ref, true)) return undefined;
  // per-worktree refs live in the worktree's git dir; branches in the common dir
  for (const base of ref.startsWith('refs/heads/') || ref.startsWith('refs/remotes/') || ref.startsWith('refs/tags/') ? [commonDir] : [gitDir, commonDir]) {
    const loose = read(join(base, ref));
    if (loose !== null) {
      const v = parseRefFile(loose, hexLen);
      return v?.oid; // a symbolic ref inside refs/, or a broken one: ask git
    }
  }
  const packed = read(join(commonDir, 'packed-refs'));
  return packed === null ? null : packedRefValue(packed, ref, hexLen);
}

/**
 * The repository config as discovery needs it: null when it sets
 * `worktree`, `bare = true` or `refStorage` (git decides then); else whether
 * `objectFormat = sha256`. git reads these from this one file without
 * following `[include]`/`[includeIf]` (setup.c, read_repository_format), so
 * includes are not followed here either. A line scan, not regular
 * expressions: each costs a compilation in every hook process.
 */
function scanConfig(config: string): { sha256: boolean } | null {
  let sha256 = false;
  for (const raw of config.split('\n')) {
    const line = raw.trim().toLowerCase();
    const eq = line.indexOf('=');
    const key = (eq < 0 ? line : line.slice(0, eq)).trim();
    let value = eq < 0 ? '' : line.slice(eq + 1);
    for (const c of ['#', ';']) if (value.includes(c)) value = value.slice(0, value.indexOf(c)); // a trailing comment
    value = value.trim();
    if (key === 'worktree' || key === 'refstorage') return null;
    // a key alone is true in git's config, as are yes/on/1
    if (key === 'bare' && (eq < 0 || value === 'true' || value === 'yes' || value === 'on' || value === '1')) return null;
    if (key === 'objectformat' && value === 'sha256') sha256 = true;
  }
  return { sha256 };
}

export function discoverRepo(cwd: string, env: NodeJS.ProcessEnv = process.env): Discovered | null {
  if (env['GIT_CEILING_DIRECTORIES'] || env['GIT_WORK_TREE'] || env['GIT_COMMON_DIR'] || env['GIT_OBJECT_DIRECTORY']) return null;
  let root: string | null = null;
  let gitDir: string | null = null;
  if (env['GIT_DIR']) {
    // git exports GIT_DIR to hooks of linked worktrees; the cwd is the worktree root
    const g = resolve(cwd, env['GIT_DIR']);
    if (gitDirFromDotGit(cwd) !== g) return null;
    root = cwd;
    gitDir = g;
  } else {
    for (let d = resolve(cwd); ; d = dirname(d)) {
      const g = gitDirFromDotGit(d);
      if (g) {
        root = d;
        gitDir = g;
        break;
      }
      if (dirname(d) === d) return null;
    }
  }
  if (!gitDir || !root) return null;
  try {
    // git refuses repositories owned by someone else (safe.directory): let git decide
    if (typeof process.getuid === 'function' && statSync(gitDir).uid !== process.getuid()) return null;
  } catch {
    return null;
  }
  const commondirText = read(join(gitDir, 'commondir'));
  const commonDir = commondirText === null ? gitDir : resolve(gitDir, commondirText.trim());
  if (!isDir(join(commonDir, 'objects'))) return null;
  const scanned = scanConfig(readConfigFile(join(commonDir, 'config')) ?? '');
  // settings that change where the work tree or refs are: let git answer
  if (scanned === null) return null;
  const objectFormat = scanned.sha256 ? 'sha256' : 'sha1';
  const hexLen = scanned.sha256 ? 64 : 40;
  // a missing or malformed HEAD: git says whether this is a repository at all
  const h = readHead(gitDir, hexLen);
  if (h === null) return null;
  let head: string | null;
  if (h.oid !== undefined) head = h.oid;
  else {
    const r = resolveRef(gitDir, commonDir, h.symref, hexLen);
    if (r === undefined) return null;
    head = r;
  }
  return { root, gitDir, commonDir, objectFormat, head };
}
