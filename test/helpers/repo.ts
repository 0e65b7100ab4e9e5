/**
 * Temporary git repositories for tests: real git, isolated from the
 * machine's config (GIT_CONFIG_GLOBAL=/dev/null, GIT_CONFIG_NOSYSTEM=1, a temp HOME).
 */
import { execFileSync, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const CLI = join(PROJECT_ROOT, 'bin', 'entire.cjs');
export const FIXTURES = join(PROJECT_ROOT, 'test', 'fixtures');

const created: string[] = [];

/** Environment every test child process gets: no global config, temp HOME. */
export function testEnv(home: string, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(env)) {
    // NODE_EXTRA_CA_CERTS alone costs ~50 ms per Node start (the hooks clear it too)
    if (k.startsWith('GIT_') || k.startsWith('ENTIRE_') || k === 'NODE_OPTIONS' || k === 'NODE_EXTRA_CA_CERTS') delete env[k];
  }
  Object.assign(env, {
    HOME: home,
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'Test Author',
    GIT_AUTHOR_EMAIL: 'author@example.com',
    GIT_COMMITTER_NAME: 'Test Committer',
    GIT_COMMITTER_EMAIL: 'committer@example.com',
    GIT_TERMINAL_PROMPT: '0',
    XDG_CACHE_HOME: join(home, '.cache'),
    ENTIRE_TEST_TTY: '0',
    ENTIRE_STOP_WAIT_MS: '0',
    // the turn-end worker (src/strategy/turn-end-worker.ts) keeps the hook's pipes: a test's
    // spawnSync returns once the turn end is done, as it did when the hook did it all itself
    ENTIRE_WORKER_STDIO: 'inherit',
  });
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export interface TempRepo {
  /** Worktree root (realpath). */
  dir: string;
  /** Temp HOME for this repo's processes. */
  home: string;
  env: NodeJS.ProcessEnv;
  git(args: string[], opts?: { input?: string | Buffer; env?: Record<string, string | undefined>; cwd?: string }): string;
  gitResult(args: string[], opts?: { input?: string | Buffer; env?: Record<string, string | undefined>; cwd?: string }): SpawnSyncReturns<string>;
  write(rel: string, content: string | Buffer): void;
  commitAll(message: string): string;
  entire(args: string[], opts?: { input?: string; env?: Record<string, string | undefined>; cwd?: string }): SpawnSyncReturns<string>;
  cleanup(): void;
}

export function tempDir(prefix = 'entire-test-'): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  created.push(d);
  return d;
}

export interface RepoOptions {
  objectFormat?: 'sha1' | 'sha256';
  /** Create an initial commit (default true). */
  initialCommit?: boolean;
  bare?: boolean;
}

export function makeRepo(options: RepoOptions = {}): TempRepo {
  const base = tempDir();
  const dir = join(base, 'repo');
  const home = join(base, 'home');
  mkdirSync(dir, { recursive: true });
  mkdirSync(home, { recursive: true });
  const env = testEnv(home);
  const init = ['init', '-q', '-b', 'main'];
  if (options.objectFormat) init.push(`--object-format=${options.objectFormat}`);
  if (options.bare) init.push('--bare');
  execFileSync('git', [...init, dir], { env });
  return repoAt(dir, home, env, options.initialCommit !== false && !options.bare);
}

export function repoAt(dir: string, home: string, env: NodeJS.ProcessEnv, initialCommit = false): TempRepo {
  const repo: TempRepo = {
    dir,
    home,
    env,
    git(args, opts = {}) {
      return execFileSync('git', args, {
        cwd: opts.cwd ?? dir,
        env: { ...env, ...opts.env },
        input: opts.input,
        encoding: 'utf8',
        maxBuffer: 512 * 1024 * 1024,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
    },
    gitResult(args, opts = {}) {
      return spawnSync('git', args, {
        cwd: opts.cwd ?? dir,
        env: { ...env, ...opts.env },
        input: opts.input,
        encoding: 'utf8',
        maxBuffer: 512 * 1024 * 1024,
      });
    },
    write(rel, content) {
      const p = join(dir, rel);
      mkdirSync(dirname(p), { recursive: true });
      writeFileSync(p, content);
    },
    commitAll(message) {
      repo.git(['add', '-A']);
      repo.git(['commit', '-q', '--no-verify', '-m', message]);
      return repo.git(['rev-parse', 'HEAD']).trim();
    },
    entire(args, opts = {}) {
      const merged: NodeJS.ProcessEnv = { ...env };
      for (const [k, v] of Object.entries(opts.env ?? {})) {
        if (v === undefined) delete merged[k];
        else merged[k] = v;
      }
      return spawnSync(process.execPath, [CLI, ...args], {
        cwd: opts.cwd ?? dir,
        env: merged,
        input: opts.input ?? '',
        encoding: 'utf8',
        maxBuffer: 512 * 1024 * 1024,
      });
    },
    cleanup() {
      rmSync(dirname(dir), { recursive: true, force: true });
    },
  };
  if (initialCommit) {
    repo.write('README.md', '# test repo\n');
    repo.commitAll('initial commit');
  }
  return repo;
}

/** `git fsck --strict` must be clean; returns its output for assertions. */
export function fsck(repo: TempRepo): { ok: boolean; output: string } {
  const r = repo.gitResult(['fsck', '--strict', '--no-progress']);
  const output = (r.stdout ?? '') + (r.stderr ?? '');
  // dangling objects are normal after CAS retries; anything else is a defect
  const bad = output.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('dangling ') && !l.startsWith('notice:'));
  return { ok: r.status === 0 && bad.length === 0, output };
}

export function cleanupAll(): void {
  for (const d of created.splice(0)) rmSync(d, { recursive: true, force: true });
}
