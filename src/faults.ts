/**
 * Fault points for the stress suite (issue 6, docs/reliability.md):
 * `ENTIRE_TEST_FAULT=<name>` makes the process kill itself with SIGKILL the
 * first time it reaches that point, `<name>#<n>` the n-th time, so tests can
 * prove a crash anywhere loses nothing. Inert unless the variable is set;
 * costs one comparison otherwise.
 */
const wanted = process.env['ENTIRE_TEST_FAULT'];
const hits = new Map<string, number>();

export function fault(name: string): void {
  if (wanted === undefined || !wanted.startsWith(name)) return;
  const n = (hits.get(name) ?? 0) + 1;
  hits.set(name, n);
  if (wanted === name ? n === 1 : wanted === `${name}#${n}`) process.kill(process.pid, 'SIGKILL');
}
