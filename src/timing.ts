/** `ENTIRE_TIMING=1`: print where a hook spends its time (ms since process start) to stderr. */
import { writeSync } from 'node:fs';

const on = process.env['ENTIRE_TIMING'] === '1';
const marks: string[] = [];

export function mark(label: string): void {
  if (!on) return;
  // process.uptime, not performance.now (the global `performance` loads perf_hooks), and
  // written at exit to fd 2 directly: creating process.stderr costs milliseconds itself
  if (marks.length === 0) process.once('exit', () => writeSync(2, marks.join('')));
  marks.push(`[entire-timing] ${(process.uptime() * 1000).toFixed(1)} ${label}\n`);
}
