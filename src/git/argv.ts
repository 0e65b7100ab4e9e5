/**
 * git's own command line, read from the process tree (SPEC §6.3): hooks do
 * not get it as arguments, yet it is the only reliable way to tell an amend
 * from `commit -C HEAD`, or a `git merge` from a concluding `git commit`.
 */
import { readFileSync } from 'node:fs';
import { childProcess } from '../builtins.js';

// utf8 text in one native read (readFileUtf8): /proc files report size 0, which
// sends a Buffer read through a JavaScript loop of reads and a concat
function readProc(pid: number, file: string): string | null {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return null;
  }
}

/** Name and parent of a process from one read of /proc/<pid>/stat (`pid (comm) state ppid …`). */
function procStat(pid: number): { comm: string; ppid: number | null } | null {
  const stat = readProc(pid, 'stat');
  if (!stat) return null;
  const open = stat.indexOf('(');
  const close = stat.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  const rest = stat.slice(close + 2).split(' ');
  const ppid = Number(rest[1]);
  return { comm: stat.slice(open + 1, close), ppid: Number.isInteger(ppid) && ppid > 0 ? ppid : null };
}

function commOf(pid: number): string | null {
  return procStat(pid)?.comm ?? readProc(pid, 'comm')?.trim() ?? null;
}

function argvOf(pid: number): string[] | null {
  const raw = readProc(pid, 'cmdline');
  if (raw) {
    const parts = raw.split('\0');
    if (parts[parts.length - 1] === '') parts.pop();
    return parts;
  }
  if (process.platform === 'darwin') {
    try {
      const out = childProcess().execFileSync('ps', ['-o', 'args=', '-p', String(pid)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
      return out.trim().split(/\s+/);
    } catch {
      return null;
    }
  }
  return null;
}

/** `git`, or a path to it (`…/git`, `…\\git.exe`): argv[0] of a git process. */
export function isGitProgram(arg0: string): boolean {
  const base = arg0.slice(Math.max(arg0.lastIndexOf('/'), arg0.lastIndexOf('\\')) + 1);
  return base === 'git' || base === 'git.exe';
}

/** argv of the nearest ancestor named `git` (hint: `ENTIRE_GIT_PID`), or null. */
export function gitArgv(env: NodeJS.ProcessEnv = process.env): string[] | null {
  const hint = Number(env['ENTIRE_GIT_PID']);
  if (Number.isInteger(hint) && hint > 1) {
    const comm = commOf(hint);
    if (comm === 'git' || comm === null) {
      const a = argvOf(hint);
      if (a && a.length > 0 && isGitProgram(a[0]!)) return a;
    }
  }
  let pid: number | null = process.ppid;
  for (let i = 0; i < 8 && pid && pid > 1; i++) {
    const st = procStat(pid);
    if (st === null) return null; // no /proc: only the ENTIRE_GIT_PID hint works
    if (st.comm === 'git') return argvOf(pid);
    pid = st.ppid;
  }
  return null;
}

/** The git subcommand (`commit`, `merge`, …) of an argv, skipping global options. */
export function gitSubcommand(argv: readonly string[]): string | null {
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '-c' || a === '-C' || a === '--git-dir' || a === '--work-tree' || a === '--namespace') {
      i++;
      continue;
    }
    if (a.startsWith('-')) continue;
    return a;
  }
  return null;
}

/** SPEC §6.3: an argv token before `--` starting `--am` that prefixes `--amend`. */
export function isAmend(argv: readonly string[]): boolean {
  for (const a of argv.slice(1)) {
    if (a === '--') break;
    if (a.startsWith('--am') && '--amend'.startsWith(a)) return true;
  }
  return false;
}

/** `--dry-run` / `-n` in a push argv (pre-push also fires for dry runs). */
export function isDryRunPush(argv: readonly string[]): boolean {
  return argv.some((a) => a === '--dry-run' || a === '-n' || (/^-[a-zA-Z]+$/.test(a) && a.includes('n') && !a.startsWith('--')));
}
