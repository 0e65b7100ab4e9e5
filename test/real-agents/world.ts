/**
 * Temporary worlds for the real-agent tier: a directory holding a shim `entire`
 * (the built CLI of this checkout), temp HOMEs, repositories and their bare
 * remote. Git is isolated as in the rest of the suite (GIT_CONFIG_GLOBAL=/dev/null,
 * GIT_CONFIG_NOSYSTEM=1, temp HOME); identities live in each repository's config,
 * because Gemini CLI runs git with the global config off.
 */
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const ENTIRE_CLI = join(PROJECT_ROOT, 'bin', 'entire.cjs');

/** Host variables that would reach into the real machine or change an agent's behaviour. */
// (vitest's NODE_ENV=test and VITEST_* too, and CI, so a local run and CI's see the same agent)
const DROPPED_ENV = /^(GIT_|ENTIRE_|ANTHROPIC_|CLAUDE|GEMINI_|GOOGLE_|OPENAI_|CODEX_|COPILOT_|OPENCODE_|XDG_|npm_|VITEST|NODE_OPTIONS$|NODE_EXTRA_CA_CERTS$|NODE_ENV$|CI$)/i;

export interface ProcResult {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export class World {
  readonly base: string;
  readonly bin: string;
  /** Hook stdin captured by the shim, one `<agent>\t<verb>\t<json>` line each (for the drift report). */
  readonly hookCapture: string;

  constructor(prefix = 'entire-agents-') {
    this.base = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
    this.bin = join(this.base, 'bin');
    this.hookCapture = join(this.base, 'hook-payloads.tsv');
    mkdirSync(this.bin);
    // The agents call `entire hooks …` from PATH: run this checkout's build,
    // keeping a copy of each hook's stdin for the drift report.
    const shim = join(this.bin, 'entire');
    // Each hook's wall time as the agent waits for it (bash's clock: no process started
    // around the measured run), for the per-agent hook figures (`npm run bench`, BENCH_ONLY=agents).
    const times = process.env['ENTIRE_AGENTS_REPORT_DIR'] ? join(process.env['ENTIRE_AGENTS_REPORT_DIR'], 'hook-times.tsv') : join(this.base, 'hook-times.tsv');
    writeFileSync(
      shim,
      `#!/bin/bash
if [ "$1" = hooks ] && [ $# -ge 3 ]; then
  tmp=$(mktemp "${this.base}/stdin.XXXXXX")
  cat > "$tmp"
  { printf '%s\\t%s\\t' "$2" "$3"; tr -d '\\n' < "$tmp"; echo; } >> "${this.hookCapture}"
  t0=$EPOCHREALTIME
  "${process.execPath}" "${ENTIRE_CLI}" "$@" < "$tmp"
  status=$?
  t1=$EPOCHREALTIME
  printf '%s\\t%s\\t%s\\t%s\\n' "$2" "$3" "$t0" "$t1" >> "${times}"
  rm -f "$tmp"
  exit $status
fi
exec "${process.execPath}" "${ENTIRE_CLI}" "$@"
`,
    );
    chmodSync(shim, 0o755);
  }

  /** A fresh HOME (with XDG dirs inside it). */
  home(name: string): string {
    const h = join(this.base, name);
    mkdirSync(h, { recursive: true });
    return h;
  }

  /** The environment of everything run in a world: the machine's, minus anything agent- or git-specific. */
  env(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!DROPPED_ENV.test(k)) env[k] = v;
    Object.assign(env, {
      HOME: home,
      XDG_CACHE_HOME: join(home, '.cache'),
      XDG_CONFIG_HOME: join(home, '.config'),
      XDG_DATA_HOME: join(home, '.local', 'share'),
      XDG_STATE_HOME: join(home, '.local', 'state'),
      PATH: `${this.bin}:${process.env['PATH'] ?? '/usr/bin:/bin'}`,
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_TERMINAL_PROMPT: '0',
      // hooks never ask a question here (a developer's terminal must not hang the tier)
      ENTIRE_TEST_TTY: '0',
      NO_COLOR: '1',
      ...extra,
    });
    // Entire's own caches (code cache, redaction automaton) are shared by every world of a run,
    // as one user's are across sessions: hook times are then the steady state, not first runs
    env['ENTIRE_CACHE_DIR'] = join(process.env['ENTIRE_AGENTS_REPORT_DIR'] ?? this.base, 'entire-cache');
    return env;
  }

  /** A repository with an identity in its own config and a README the scripts edit. */
  repo(name: string, home: string, readme: string, identity = { name: 'Test Person', email: 'person@example.com' }): Repo {
    const dir = join(this.base, name);
    const r = new Repo(dir, this.env(home));
    r.git(['init', '-q', '-b', 'main', dir]);
    r.git(['config', 'user.name', identity.name]);
    r.git(['config', 'user.email', identity.email]);
    writeFileSync(join(dir, 'README.md'), readme);
    r.git(['add', 'README.md']);
    r.git(['commit', '-q', '-m', 'initial commit']);
    return r;
  }

  cleanup(): void {
    if (process.env['ENTIRE_AGENTS_KEEP'] === '1') {
      process.stderr.write(`[agents] kept ${this.base}\n`);
      return;
    }
    rmSync(this.base, { recursive: true, force: true });
  }
}

export class Repo {
  constructor(
    readonly dir: string,
    public env: NodeJS.ProcessEnv,
  ) {}

  gitResult(args: string[], opts: { input?: string } = {}): SpawnSyncReturns<string> {
    return spawnSync('git', args, { cwd: existsSync(this.dir) ? this.dir : undefined, env: this.env, encoding: 'utf8', input: opts.input ?? '', maxBuffer: 256 * 1024 * 1024 });
  }

  git(args: string[], opts: { input?: string } = {}): string {
    const r = this.gitResult(args, opts);
    if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
    return r.stdout;
  }

  entire(args: string[]): SpawnSyncReturns<string> {
    return spawnSync(process.execPath, [ENTIRE_CLI, ...args], { cwd: this.dir, env: this.env, encoding: 'utf8', input: '', maxBuffer: 256 * 1024 * 1024 });
  }

  read(rel: string): string {
    return readFileSync(join(this.dir, rel), 'utf8');
  }

  exists(rel: string): boolean {
    return existsSync(join(this.dir, rel));
  }
}

/**
 * Run a process without blocking the event loop (the model server lives in
 * this process), stdin from /dev/null, killed (its process group) after timeoutMs.
 */
export function run(argv: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }): Promise<ProcResult> {
  return new Promise((resolveRun, reject) => {
    // PWD as a shell would set it: OpenCode takes its working directory from PWD, not the process's cwd
    const env = { ...opts.env, PWD: opts.cwd };
    const child = spawn(argv[0]!, argv.slice(1), { cwd: opts.cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      stderr += `\n[agents] killed after ${opts.timeoutMs} ms`;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }, opts.timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    const started = Date.now();
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      // ENTIRE_AGENTS_TRACE=1: each agent run's wall time, to find where the tier's time goes
      if (process.env['ENTIRE_AGENTS_TRACE'] === '1') process.stderr.write(`[agents] ${Date.now() - started} ms: ${argv.map((a) => a.slice(0, 40)).join(' ').slice(0, 200)}\n`);
      resolveRun({ status, signal, stdout, stderr });
    });
  });
}

/**
 * Wait until no session lock is held in the repository at `dir`: a turn-end
 * hook hands its work to a detached worker (src/strategy/turn-end-worker.ts)
 * and the agent exits before that worker is done. Waits on a condition,
 * bounded, never on a fixed time.
 */
export async function hookWorkersDone(dir: string, timeoutMs = 60_000): Promise<void> {
  const r = spawnSync('git', ['rev-parse', '--path-format=absolute', '--git-common-dir'], { cwd: dir, encoding: 'utf8' });
  if (r.status !== 0) return;
  const sessions = join(r.stdout.trim(), 'entire-sessions');
  const deadline = Date.now() + timeoutMs;
  const held = () => (existsSync(sessions) ? readdirSync(sessions).filter((n) => n.endsWith('.lock')) : []);
  while (held().length > 0) {
    if (Date.now() > deadline) throw new Error(`session locks still held after ${timeoutMs} ms: ${held().join(', ')}`);
    await new Promise((res) => setTimeout(res, 20));
  }
}
