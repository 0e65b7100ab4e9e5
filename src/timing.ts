/** `ENTIRE_TIMING=1`: print where a hook spends its time (ms since process start) to stderr. */
const on = process.env['ENTIRE_TIMING'] === '1';

export function mark(label: string): void {
  // process.uptime, not performance.now: the global `performance` loads perf_hooks (~1 ms)
  if (on) process.stderr.write(`[entire-timing] ${(process.uptime() * 1000).toFixed(1)} ${label}\n`);
}
