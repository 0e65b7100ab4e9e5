/**
 * Repository context, resolved with one `git rev-parse` call and passed
 * explicitly to everything else (no global cwd).
 */
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { EntireError } from '../errors.js';
import { runGit, git, gitSync } from './exec.js';
import { discoverRepo } from './discover.js';
import { readConfigValue } from './config-file.js';
import { LocalObjects } from './local-odb.js';
import { ObjectReader } from './catfile.js';
import { headBranch, readHead } from './ref-format.js';

export type ObjectFormat = 'sha1' | 'sha256';

export interface Repo {
  /** Worktree top level (absolute). */
  readonly root: string;
  /** This worktree's git dir (absolute). */
  readonly gitDir: string;
  /** The common dir shared by all worktrees (absolute). */
  readonly commonDir: string;
  /** Where git runs hooks from (`git rev-parse --git-path hooks`, absolute). */
  readonly hooksDir: string;
  readonly objectFormat: ObjectFormat;
  /** `""` for the main worktree, else the dir name under `<common>/worktrees/`. */
  readonly worktreeId: string;
  /** The index file git handed to a hook (absolute), when there was one. */
  readonly hookIndexFile: string | undefined;
  /** Object reads: in-process from the object store, else a long-lived `git cat-file --batch`. */
  readonly objects: ObjectReader;
  /** HEAD's commit when the repository was opened (null: no commits yet). */
  readonly initialHead: string | null;
  /** Refs are known to be in the files backend (loose files and packed-refs), readable and writable here. */
  readonly filesRefs: boolean;
}

export const EMPTY_TREE: Record<ObjectFormat, string> = {
  sha1: '4b825dc642cb6eb9a060e54bf8d69288fbee4904',
  sha256: '6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321',
};

export function zeroOid(format: ObjectFormat): string {
  return '0'.repeat(format === 'sha256' ? 64 : 40);
}

/**
 * Resolve the repository containing `cwd`. Throws NOT_A_REPO outside one and
 * for bare repositories (everything we do needs a work tree).
 */
export async function openRepo(cwd: string, opts: { inheritedIndexFile?: string; fast?: boolean } = {}): Promise<Repo> {
  if (opts.fast) {
    const d = discoverRepo(cwd);
    if (d) {
      const inherited = opts.inheritedIndexFile;
      let hooksDir: string | undefined;
      return {
        root: d.root,
        gitDir: d.gitDir,
        commonDir: d.commonDir,
        // rarely needed on the hook path: resolved on first use
        get hooksDir(): string {
          hooksDir ??= resolveHooksDirSync(d.root);
          return hooksDir;
        },
        objectFormat: d.objectFormat,
        worktreeId: worktreeIdOf(d.gitDir, d.commonDir),
        hookIndexFile: inherited ? (isAbsolute(inherited) ? inherited : resolve(cwd, inherited)) : undefined,
        objects: new ObjectReader(d.root, d.objectFormat, localObjects(d.gitDir, d.commonDir, d.objectFormat, true)),
        initialHead: d.head,
        filesRefs: true, // discoverRepo gives up on any other ref storage
      };
    }
  }
  // HEAD last: in a repository without commits rev-parse fails on it after
  // printing everything else, which saves a second spawn on every hook
  const r = await runGit(
    ['rev-parse', '--path-format=absolute', '--show-toplevel', '--git-dir', '--git-common-dir', '--git-path', 'hooks', '--show-object-format', 'HEAD'],
    { cwd, allowFailure: true },
  );
  const lines = r.stdout.toString('utf8').split('\n');
  if (r.code !== 0 && !(lines.length >= 6 && /unknown revision|ambiguous argument 'HEAD'/.test(r.stderr))) {
    throw new EntireError('NOT_A_REPO', 'Not a git repository.', { detail: { cwd, stderr: r.stderr.trim().slice(0, 200) } });
  }
  const [root, gitDir, commonDir, hooksDir, format, headLine] = lines;
  const head = r.code === 0 && headLine && /^[0-9a-f]{40,64}$/.test(headLine.trim()) ? headLine.trim() : null;
  if (!root || !gitDir || !commonDir || !hooksDir) {
    throw new EntireError('NOT_A_REPO', 'Not a git repository.', { detail: { cwd } });
  }
  const objectFormat: ObjectFormat = format?.trim() === 'sha256' ? 'sha256' : 'sha1';
  const inherited = opts.inheritedIndexFile;
  const repo: Repo = {
    root,
    gitDir,
    commonDir,
    hooksDir,
    objectFormat,
    worktreeId: worktreeIdOf(gitDir, commonDir),
    hookIndexFile: inherited ? (isAbsolute(inherited) ? inherited : resolve(cwd, inherited)) : undefined,
    // refs are left to git here: this path also serves ref stores other than files
    objects: new ObjectReader(root, objectFormat, localObjects(gitDir, commonDir, objectFormat, false)),
    initialHead: head,
    filesRefs: false,
  };
  return repo;
}

/** The in-process object reader, unless the environment points git at other objects. */
function localObjects(gitDir: string, commonDir: string, format: ObjectFormat, refs: boolean, env: NodeJS.ProcessEnv = process.env): LocalObjects | null {
  if (env['GIT_OBJECT_DIRECTORY'] || env['GIT_ALTERNATE_OBJECT_DIRECTORIES'] || env['ENTIRE_LOCAL_ODB'] === '0') return null;
  return new LocalObjects(join(commonDir, 'objects'), format, refs ? { gitDir, commonDir } : null);
}

function resolveHooksDirSync(root: string): string {
  return gitSync(['rev-parse', '--path-format=absolute', '--git-path', 'hooks'], root).trim() || join(root, '.git', 'hooks');
}

export function worktreeIdOf(gitDir: string, commonDir: string): string {
  if (resolve(gitDir) === resolve(commonDir)) return '';
  const rel = relative(join(commonDir, 'worktrees'), gitDir);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return '';
  return rel.split(sep).join('/');
}

/** HEAD's commit, or null in a repository without commits. */
export async function headCommit(repo: Repo): Promise<string | null> {
  const r = await runGit(['rev-parse', '--verify', '-q', 'HEAD^{commit}'], { cwd: repo.root, allowFailure: true });
  if (r.code !== 0) return null;
  return r.stdout.toString('utf8').trim() || null;
}

/** Current branch name (without `refs/heads/`), or null when detached (or HEAD is not git's). Reads `HEAD` directly. */
export function currentBranch(repo: Repo): string | null {
  return headBranch(readHead(repo.gitDir, repo.objectFormat === 'sha256' ? 64 : 40));
}

export interface Ident {
  name: string;
  email: string;
}

let identCache: Ident | undefined;

/** SPEC §2.9: the committer identity, else `Unknown <unknown@local>`. */
export async function committerIdent(repo: Repo): Promise<Ident> {
  if (identCache) return identCache;
  // the common case without a spawn: git's own sources, in git's order
  const env = process.env;
  const name = env['GIT_COMMITTER_NAME'] ?? readConfigValue('user', 'name', repo)?.value;
  const email = env['GIT_COMMITTER_EMAIL'] ?? readConfigValue('user', 'email', repo)?.value;
  if (name && email) {
    identCache = { name, email };
    return identCache;
  }
  const r = await runGit(['var', 'GIT_COMMITTER_IDENT'], {
    cwd: repo.root,
    allowFailure: true,
    // inside hooks git exports the commit's author; the committer is who runs the tool
    env: { GIT_AUTHOR_NAME: undefined, GIT_AUTHOR_EMAIL: undefined, GIT_AUTHOR_DATE: undefined },
  });
  const m = /^(.*) <([^>]*)> \d+ [+-]\d{4}$/.exec(r.stdout.toString('utf8').trim());
  identCache = r.code === 0 && m && m[1] !== undefined && m[2] !== undefined ? { name: m[1], email: m[2] } : { name: 'Unknown', email: 'unknown@local' };
  return identCache;
}

/** `git config --get` one key (null when unset). */
export async function configGet(repo: Repo, key: string): Promise<string | null> {
  const r = await runGit(['config', '--get', key], { cwd: repo.root, allowFailure: true });
  if (r.code !== 0) return null;
  return r.stdout.toString('utf8').replace(/\n$/, '');
}

export async function revParse(repo: Repo, rev: string): Promise<string | null> {
  const r = await runGit(['rev-parse', '--verify', '-q', rev], { cwd: repo.root, allowFailure: true });
  return r.code === 0 ? r.stdout.toString('utf8').trim() || null : null;
}

export { git };
