/**
 * Fault points for the stress suite (issue 6): `ENTIRE_TEST_FAULT=<name>`
 * makes the process kill itself with SIGKILL when it reaches that point, so
 * tests can prove a crash anywhere loses nothing. Inert unless the variable
 * is set; costs one property read otherwise.
 */
const wanted = process.env['ENTIRE_TEST_FAULT'];

export function fault(name: string): void {
  if (wanted === undefined || wanted !== name) return;
  process.kill(process.pid, 'SIGKILL');
}
