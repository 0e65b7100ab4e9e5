/** `ENTIRE_TIMING=1`: print where a hook spends its time (ms since process start) to stderr. */
const on = process.env['ENTIRE_TIMING'] === '1';

export function mark(label: string): void {
  if (on) process.stderr.write(`[entire-timing] ${performance.now().toFixed(1)} ${label}\n`);
}
