/**
 * A process named by its pid *and* its start time. Pids wrap at 32768 on
 * many Linux machines: on a busy one a dead hook's pid soon names another
 * process, and a lock or intent judged by the pid alone then looks held for
 * good (issue 25 point 10). The start time (clock ticks since boot,
 * `/proc/<pid>/stat` field 22) tells them apart; where there is no /proc the
 * pid alone decides, as before.
 */
import { readFileSync } from 'node:fs';

/** The start time of process `pid`; '' when it cannot be told (no /proc); null when no such process. */
export function processStartTime(pid: number): string | null {
  if (!Number.isInteger(pid) || pid <= 0) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? '';
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return '';
    try {
      process.kill(pid, 0);
      return existsProc() ? null : '';
    } catch (k) {
      return (k as NodeJS.ErrnoException).code === 'EPERM' ? '' : null;
    }
  }
}

let procMounted: boolean | undefined;
function existsProc(): boolean {
  if (procMounted === undefined) {
    try {
      readFileSync('/proc/self/stat');
      procMounted = true;
    } catch {
      procMounted = false;
    }
  }
  return procMounted;
}

/**
 * Whether the process that was `pid` started at `start` still runs: false when the pid is
 * gone, or names a process started at another time. `start` undefined or '' (not recorded,
 * or no /proc): the pid alone decides.
 */
export function processAlive(pid: number, start: string | undefined): boolean {
  const now = processStartTime(pid);
  if (now === null) return false;
  if (!start || now === '') return true;
  return now === start;
}
