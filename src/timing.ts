/**
 * `ENTIRE_TIMING=1`: print where a hook spends its time (ms since process start) to stderr.
 * `ENTIRE_TIMING=rss`: the same, each mark with the process's peak resident set so far
 * (`maxrss <MiB>`), and a last `exit` mark: how the SPEC-2 §A.6 bound (256 MiB) is checked.
 */
import { readFileSync, writeSync } from 'node:fs';

/**
 * Peak RSS of this process, MiB: Linux's VmHWM, the high-water mark of this
 * program's own memory. getrusage's maxrss is not used where VmHWM exists: a
 * process started by fork and exec inherits its parent's peak there (a hook
 * run by a test runner of 300 MB would report 300 MB before doing anything).
 */
function peakRssMiB(): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'latin1'));
    if (m) return Number(m[1]) / 1024;
  } catch {
    /* not Linux */
  }
  return process.resourceUsage().maxRSS / 1024;
}

const mode = process.env['ENTIRE_TIMING'];
const on = mode === '1' || mode === 'rss';
const withRss = mode === 'rss';
const marks: string[] = [];

function line(label: string): string {
  const rss = withRss ? ` [maxrss ${peakRssMiB().toFixed(1)}]` : '';
  return `[entire-timing] ${(process.uptime() * 1000).toFixed(1)} ${label}${rss}\n`;
}

export function mark(label: string): void {
  if (!on) return;
  // process.uptime, not performance.now (the global `performance` loads perf_hooks), and
  // written at exit to fd 2 directly: creating process.stderr costs milliseconds itself
  if (marks.length === 0) {
    process.once('exit', () => {
      if (withRss) marks.push(line('exit'));
      writeSync(2, marks.join(''));
    });
  }
  marks.push(line(label));
}
