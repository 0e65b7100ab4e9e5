/**
 * Shell commands as the layered context sees them (SPEC-2 §F.4): split quote-aware on
 * `&& || ; | \n`, unwrapped (`bash -c`, env assignments, `cd`), keyed by at most 3 words;
 * read-only probes are ignored; a success resolves failures of its key or category.
 */

/** Split a command line on `&&`, `||`, `;`, `|` and newlines outside quotes. */
export function splitCommands(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === '\\' && quote === '"' && i + 1 < line.length) {
        cur += c + line[++i];
        continue;
      }
      if (c === quote) quote = null;
      cur += c;
      continue;
    }
    if (c === '\\' && i + 1 < line.length) {
      cur += c + line[++i];
      continue;
    }
    if (c === '"' || c === "'") {
      quote = c;
      cur += c;
      continue;
    }
    if (c === ';' || c === '\n' || c === '|' || c === '&') {
      // `&` alone (background) and `>&`/`2>&1` redirections are not separators
      if (c === '&' && line[i + 1] !== '&') {
        cur += c;
        continue;
      }
      if ((c === '|' || c === '&') && line[i + 1] === c) i++;
      out.push(cur);
      cur = '';
      continue;
    }
    cur += c;
  }
  out.push(cur);
  return out.map((s) => s.trim()).filter((s) => s !== '');
}

function words(segment: string): string[] {
  const out: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(segment); m; m = re.exec(segment)) out.push(m[1] ?? m[2] ?? m[3] ?? '');
  return out;
}

/** The command a segment really runs: without env assignments, `sudo`/`time`/`env`, and into `bash -c '…'`. */
export function unwrap(segment: string): string[] {
  let w = words(segment);
  for (let guard = 0; guard < 8; guard++) {
    while (w.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(w[0]!)) w = w.slice(1);
    if (w[0] === 'env' || w[0] === 'sudo' || w[0] === 'time' || w[0] === 'nohup' || w[0] === 'exec') {
      w = w.slice(1);
      continue;
    }
    if ((w[0] === 'bash' || w[0] === 'sh' || w[0] === 'zsh') && w[1] === '-c' && w[2] !== undefined) {
      const inner = splitCommands(w[2]).filter((s) => !/^cd(\s|$)/.test(s));
      w = words(inner[inner.length - 1] ?? '');
      continue;
    }
    break;
  }
  return w;
}

const PROBES = new Set(['ls', 'cat', 'head', 'tail', 'grep', 'rg', 'find', 'pwd', 'echo', 'which', 'wc', 'tree', 'less', 'more', 'file', 'stat', 'du', 'df', 'env', 'printenv', 'type', 'sed', 'awk', 'sort', 'uniq', 'diff', 'date', 'whoami', 'true', 'cd', 'sleep', 'realpath', 'dirname', 'basename', 'printf', 'jq', 'fd', 'test']);
const GIT_PROBES = new Set(['status', 'log', 'diff', 'show', 'branch', 'rev-parse', 'ls-files', 'blame', 'remote', 'config', 'describe', 'shortlog', 'reflog', 'grep', 'cat-file', 'ls-tree']);

/** A read-only look around: never a blocker or a failed approach. */
export function isProbe(w: readonly string[]): boolean {
  const cmd = w[0] ?? '';
  if (cmd === '') return true;
  if (cmd === 'git') {
    const sub = w.find((x, i) => i > 0 && !x.startsWith('-')) ?? '';
    return GIT_PROBES.has(sub);
  }
  // `sed -i` edits; plain sed/awk read
  if (cmd === 'sed' && w.some((x) => x === '-i' || x.startsWith('-i'))) return false;
  return PROBES.has(cmd.replace(/^.*\//, ''));
}

/** At most 3 words naming what ran (`npm run build`, `npx vitest run`, `pytest`). */
export function commandKey(w: readonly string[]): string {
  const out: string[] = [];
  for (const x of w) {
    if (x.startsWith('-') || x.includes('/') || x.includes('=') || out.length === 3) break;
    out.push(x);
  }
  return out.join(' ') || (w[0] ?? '');
}

/** What kind of check a command is: a success of one kind resolves failures of the same kind. */
export function commandCategory(w: readonly string[]): string | null {
  const s = ' ' + w.join(' ') + ' ';
  if (/ git (merge|rebase|pull|cherry-pick|am) /.test(s)) return 'git-integrate';
  if (/ (test|tests|jest|vitest|pytest|mocha|ava|tap|rspec|phpunit|ctest)[ :]/.test(s) || / go test | cargo test /.test(s)) return 'test';
  if (/ (lint|eslint|ruff|flake8|pylint|clippy|golangci-lint|shellcheck|stylelint)[ :]/.test(s)) return 'lint';
  if (/ (fmt|format|prettier|black|gofmt|rustfmt|isort)[ :]/.test(s)) return 'fmt';
  if (/ (build|tsc|make|compile|cmake|gradle|mvn|webpack|esbuild|vite build)[ :]/.test(s)) return 'build';
  return null;
}

export interface ShellCommand {
  /** The words of the segment that matters (the last one that is not a probe). */
  words: string[];
  key: string;
  category: string | null;
  probe: boolean;
  /** The line runs `git commit` / `git push`. */
  commits: boolean;
  pushes: boolean;
}

export function analyzeCommand(line: string): ShellCommand {
  const segments = splitCommands(line).map(unwrap).filter((w) => w.length > 0);
  const real = segments.filter((w) => !isProbe(w));
  const main = real[real.length - 1] ?? segments[segments.length - 1] ?? [];
  const gitSub = (w: string[]) => (w[0] === 'git' ? (w.find((x, i) => i > 0 && !x.startsWith('-')) ?? '') : '');
  return {
    words: main,
    key: commandKey(main),
    category: commandCategory(main),
    probe: real.length === 0,
    commits: segments.some((w) => gitSub(w) === 'commit'),
    pushes: segments.some((w) => gitSub(w) === 'push'),
  };
}
