/**
 * The only place that spawns git. Every call gets an environment without the
 * repository-selecting variables a hook inherits (GIT_DIR, GIT_WORK_TREE,
 * GIT_INDEX_FILE…), so git always acts on the repository we resolved.
 */
import type { ChildProcess } from 'node:child_process';
import { childProcess } from '../builtins.js';
import { EntireError } from '../errors.js';

/** Variables that would redirect git to another repository or index. */
const STRIPPED = ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_PREFIX', 'GIT_COMMON_DIR', 'GIT_NAMESPACE', 'GIT_EDITOR'];

let baseEnv: NodeJS.ProcessEnv | undefined;

/** The process environment minus repository-selecting variables (computed once). */
export function gitBaseEnv(): NodeJS.ProcessEnv {
  if (!baseEnv) {
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const k of STRIPPED) delete env[k];
    env['GIT_TERMINAL_PROMPT'] = '0';
    // hooks run with the user's locale; parsing needs stable messages
    env['LC_ALL'] = 'C';
    baseEnv = env;
  }
  return baseEnv;
}

export interface GitOptions {
  cwd: string;
  /** Standard input; pieces are written one at a time as git reads them (big blobs for fast-import). */
  input?: string | Buffer | Iterable<Buffer>;
  /** Extra variables (undefined removes one). */
  env?: Record<string, string | undefined>;
  /** Return the result instead of throwing on a non-zero exit. */
  allowFailure?: boolean;
  /** Kill git after this many ms. */
  timeoutMs?: number;
}

export interface GitResult {
  stdout: Buffer;
  stderr: string;
  code: number;
}

function envFor(opts: GitOptions): NodeJS.ProcessEnv {
  if (!opts.env) return gitBaseEnv();
  const env = { ...gitBaseEnv() };
  for (const [k, v] of Object.entries(opts.env)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export function spawnGit(args: readonly string[], opts: { cwd: string; env?: Record<string, string | undefined> }): ChildProcess {
  return childProcess().spawn('git', args as string[], { cwd: opts.cwd, env: envFor(opts), stdio: ['pipe', 'pipe', 'pipe'] });
}

export function runGit(args: readonly string[], opts: GitOptions): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    let child: ChildProcess;
    try {
      child = childProcess().spawn('git', args as string[], { cwd: opts.cwd, env: envFor(opts), stdio: ['pipe', 'pipe', 'pipe'] });
    } catch (e) {
      reject(new EntireError('GIT_FAILED', `cannot run git ${args[0] ?? ''}`, { cause: e }));
      return;
    }
    const out: Buffer[] = [];
    const errChunks: Buffer[] = [];
    let timer: NodeJS.Timeout | undefined;
    if (opts.timeoutMs) timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs);
    child.stdout!.on('data', (d: Buffer) => out.push(d));
    child.stderr!.on('data', (d: Buffer) => errChunks.push(d));
    child.on('error', (e) => {
      if (timer) clearTimeout(timer);
      reject(new EntireError('GIT_FAILED', `cannot run git ${args[0] ?? ''}`, { cause: e }));
    });
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      const result: GitResult = {
        stdout: Buffer.concat(out),
        stderr: Buffer.concat(errChunks).toString('utf8'),
        code: code ?? (signal ? 128 : 1),
      };
      if (result.code !== 0 && !opts.allowFailure) {
        reject(gitError(args, result));
        return;
      }
      resolve(result);
    });
    // EPIPE when git exits before reading all input is reported through 'close'
    child.stdin!.on('error', () => {});
    const input = opts.input;
    if (input === undefined) child.stdin!.end();
    else if (typeof input === 'string' || Buffer.isBuffer(input)) child.stdin!.end(input);
    else feed(child, input);
  });
}

/** Write `pieces` to git's stdin as it drains, never more than one piece ahead. */
function feed(child: ChildProcess, pieces: Iterable<Buffer>): void {
  const stdin = child.stdin!;
  const it = pieces[Symbol.iterator]();
  let gone = false;
  stdin.once('close', () => (gone = true));
  const next = (): void => {
    try {
      for (;;) {
        if (gone) return;
        const r = it.next();
        if (r.done) {
          stdin.end();
          return;
        }
        if (!stdin.write(r.value)) {
          stdin.once('drain', next);
          return;
        }
      }
    } catch {
      // a piece that cannot be read: git sees a cut stream and fails, which the caller reports
      stdin.destroy();
    }
  };
  next();
}

export function gitError(args: readonly string[], r: GitResult): EntireError {
  const first = r.stderr.split('\n').find((l) => l.trim() !== '') ?? `exit code ${r.code}`;
  return new EntireError('GIT_FAILED', `git ${args.slice(0, 2).join(' ')} failed: ${first.trim()}`, {
    detail: { args: args.slice(0, 6), code: r.code },
  });
}

/** Run git and return stdout as text (trailing newline kept). */
export async function git(args: readonly string[], opts: GitOptions): Promise<string> {
  const r = await runGit(args, opts);
  return r.stdout.toString('utf8');
}

/** Split NUL-terminated output (`-z`). */
export function splitZ(buf: Buffer | string): string[] {
  const s = typeof buf === 'string' ? buf : buf.toString('utf8');
  const parts = s.split('\0');
  if (parts[parts.length - 1] === '') parts.pop();
  return parts;
}

/** Tests switch process.env between repositories; forget the cached copy. */
export function resetGitEnvForTests(): void {
  baseEnv = undefined;
}

/**
 * runGit through spawnSync, for short commands on hook paths (a ref
 * transaction). A process's first asynchronous spawn sets up pipes and the
 * stream machinery, about 5 ms on the bench VM before git even starts; a
 * synchronous spawn skips that and blocks only while git runs, which the
 * caller would await anyway.
 */
export function runGitSync(args: readonly string[], opts: GitOptions & { input?: string | Buffer }): GitResult {
  const r = childProcess().spawnSync('git', args as string[], {
    cwd: opts.cwd,
    env: envFor(opts),
    input: opts.input ?? '',
    maxBuffer: 256 * 1024 * 1024,
    ...(opts.timeoutMs ? { timeout: opts.timeoutMs, killSignal: 'SIGKILL' as const } : {}),
  });
  if (r.error && r.status === null && r.signal === null) throw new EntireError('GIT_FAILED', `cannot run git ${args[0] ?? ''}`, { cause: r.error });
  const result: GitResult = { stdout: r.stdout ?? Buffer.alloc(0), stderr: (r.stderr ?? Buffer.alloc(0)).toString('utf8'), code: r.status ?? 128 };
  if (result.code !== 0 && !opts.allowFailure) throw gitError(args, result);
  return result;
}

/** A short synchronous git call (stdout as text, '' on failure); for getters that cannot await. */
export function gitSync(args: readonly string[], cwd: string): string {
  const r = childProcess().spawnSync('git', args as string[], { cwd, env: gitBaseEnv(), encoding: 'utf8' });
  return r.status === 0 ? (r.stdout ?? '') : '';
}
