/** Small helpers shared by the status / reset / clean / explain commands. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseShadowBranch, worktreeHash } from '../checkpoint/shadow.js';
import { SIDE_FILE_RE, sessionsDir } from '../session/paths.js';
import type { Repo } from '../git/repo.js';
import { loadSettings, isEnabled } from '../settings/settings.js';
import type { SessionState } from '../session/state.js';
import { readline } from '../builtins.js';
import { bytesTermSafe, jsonTermSafe, termSafe } from '../trust/terminal.js';

/**
 * SPEC §4.3 membership: the session's `worktree_path` is this worktree's
 * root, or its `worktree_id` (absent = "") matches and the recorded path is
 * gone (the worktree was moved).
 */
export function inThisWorktree(state: Pick<SessionState, 'worktree_path' | 'worktree_id'>, repo: Pick<Repo, 'root' | 'worktreeId'>): boolean {
  const path = state.worktree_path ?? '';
  if (path === repo.root) return true;
  return (state.worktree_id ?? '') === repo.worktreeId && (path === '' || !existsSync(path));
}

/** Display name of a session's agent (`agent_type` holds it, as in Go); `Agent` when unknown. */
export function agentLabel(agentType: string | undefined): string {
  return agentType && agentType.trim() !== '' ? agentType : 'Agent';
}

/** `just now`, `5m ago`, `3h ago`, `2d ago` (unknown times: `at an unknown time`). */
export function timeAgo(iso: string | undefined, now = Date.now()): string {
  const t = iso ? Date.parse(iso) : NaN;
  if (Number.isNaN(t) || t <= 0) return 'at an unknown time';
  const s = Math.max(0, Math.floor((now - t) / 1000));
  if (s < 60) return 'just now';
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ago`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h ago`;
  return `${Math.floor(h / 24)}d ago`;
}

export type ConfirmAnswer = 'yes' | 'no' | 'no-tty';

/** Questions this process has answered from `ENTIRE_TEST_TTY_ANSWER` (tests only). */
let testAnswersGiven = 0;

/**
 * Ask the person at the terminal a yes/no question (default no). No TTY on
 * stdin → `no-tty`. `ENTIRE_TEST_TTY=0|1` fakes the terminal in tests
 * (`ENTIRE_TEST_TTY_ANSWER` is the typed answer; `y,n` answers two questions in turn).
 */
export async function confirm(question: string, env: NodeJS.ProcessEnv = process.env): Promise<ConfirmAnswer> {
  const interpret = (a: string): 'yes' | 'no' => (/^\s*y(es)?\s*$/i.test(a) ? 'yes' : 'no');
  const forced = env['ENTIRE_TEST_TTY'];
  if (forced === '0') return 'no-tty';
  if (forced === '1') {
    process.stderr.write(`${question} [y/N] `);
    // `y,n`: one answer per question, in order (the last one answers the rest)
    const answers = (env['ENTIRE_TEST_TTY_ANSWER'] ?? 'n').split(',');
    return interpret(answers[Math.min(testAnswersGiven++, answers.length - 1)]!);
  }
  if (!process.stdin.isTTY) return 'no-tty';
  const rl = readline().createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await new Promise<string>((resolve) => {
      rl.question(`${question} [y/N] `, resolve);
      rl.on('close', () => resolve(''));
    });
    return interpret(answer);
  } finally {
    rl.close();
  }
}

/** Thousands separators: 375688 → `375,688`. */
export function formatCount(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** Where a command writes: results on stdout, diagnostics on stderr. */
export interface Io {
  /** One line of results (stdout). */
  out(line?: string): void;
  /** Bytes exactly as given (stdout). */
  raw(data: string | Buffer): void;
  /** One diagnostic line (stderr). */
  err(line: string): void;
}

/**
 * The terminal choke point (SPEC-2 §A.8): every line and document a command
 * prints passes the sanitizer here, so data-derived text (prompts, subjects,
 * ids, paths, error messages quoting input) never reaches the terminal raw.
 * `raw` output is a JSON document or a stored transcript: it stays the same
 * JSON, with unsafe characters as `\uNNNN`.
 */
const safeRaw = (data: string | Buffer): string => (typeof data === 'string' ? jsonTermSafe(data) : bytesTermSafe(data));

export const processIo: Io = {
  out: (line = '') => void process.stdout.write(termSafe(line) + '\n'),
  raw: (data) => void process.stdout.write(safeRaw(data)),
  err: (line) => void process.stderr.write(termSafe(line) + '\n'),
};

/** An Io that collects everything (for in-process callers and tests), sanitised as processIo is. */
export function bufferIo(): Io & { stdout(): string; stderr(): string } {
  const out: (string | Buffer)[] = [];
  const errs: string[] = [];
  return {
    out: (line = '') => void out.push(termSafe(line) + '\n'),
    raw: (data) => void out.push(safeRaw(data)),
    err: (line) => void errs.push(termSafe(line) + '\n'),
    stdout: () => out.map((x) => (typeof x === 'string' ? x : x.toString('utf8'))).join(''),
    stderr: () => errs.join(''),
  };
}

// ------------------------------------------------------------------ shadow branch references

export interface SideFileInfo {
  sessionId: string;
  checkpointId: string;
  path: string;
  /** `shadow_branch` of the pending entry ('' when unreadable). */
  shadowBranch: string;
  readable: boolean;
}

/** Every lock-free pending side file `<sid>.pending-<id>.json` (read-only). */
export function listSideFiles(commonDir: string): SideFileInfo[] {
  let names: string[];
  try {
    names = readdirSync(sessionsDir(commonDir));
  } catch {
    return [];
  }
  const out: SideFileInfo[] = [];
  for (const name of names.sort()) {
    const m = SIDE_FILE_RE.exec(name);
    if (!m) continue;
    const path = join(sessionsDir(commonDir), name);
    let shadowBranch = '';
    let readable = false;
    try {
      const v = JSON.parse(readFileSync(path, 'utf8')) as { shadow_branch?: unknown };
      shadowBranch = typeof v.shadow_branch === 'string' ? v.shadow_branch : '';
      readable = true;
    } catch {
      /* unreadable: the caller decides how careful to be */
    }
    out.push({ sessionId: m[1]!, checkpointId: m[2]!, path, shadowBranch, readable });
  }
  return out;
}

/**
 * The shadow branches sessions still need (SPEC §6.5 step 5): each state's
 * base in its worktree, and every pending entry's `shadow_branch` (in states
 * and side files). Matching is by (base prefix, worktree hash), so legacy
 * `entire/<base7>` and longer bases compare equal to the names we build.
 */
export class ShadowReferences {
  private readonly refs: { base: string; hash: string }[] = [];

  constructor(states: readonly SessionState[], sideFiles: readonly SideFileInfo[] = []) {
    for (const s of states) {
      if (s.base_commit) this.refs.push({ base: s.base_commit, hash: worktreeHash(s.worktree_id ?? '') });
      for (const p of s.pending_condensations ?? []) this.addName(p.shadow_branch);
    }
    for (const f of sideFiles) this.addName(f.shadowBranch);
  }

  private addName(name: string): void {
    const p = name ? parseShadowBranch(name) : null;
    if (p) this.refs.push({ base: p.base, hash: p.worktreeHash });
  }

  /** Whether branch `name` (`entire/…` or `refs/heads/entire/…`) is referenced. */
  has(name: string): boolean {
    const p = parseShadowBranch(name);
    if (!p) return false;
    return this.refs.some((r) => r.hash === p.worktreeHash && (r.base.startsWith(p.base) || p.base.startsWith(r.base)));
  }
}

/** The message `rewind` and `resume` print when Entire is disabled (SPEC §8). */
export const DISABLED_MESSAGE = 'Entire is disabled. Run `entire enable` to re-enable.';

/** Settings warnings to stderr; false (after the disabled message) when Entire is disabled. */
export function enabledOrSay(root: string, io: Io): boolean {
  const settings = loadSettings(root);
  for (const w of settings.warnings) io.err(w);
  if (!isEnabled(settings)) {
    io.out(DISABLED_MESSAGE);
    return false;
  }
  return true;
}
