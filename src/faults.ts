/**
 * Fault points for the stress suite (issue 6, docs/reliability.md):
 * `ENTIRE_TEST_FAULT=<name>` makes the process kill itself with SIGKILL the
 * first time it reaches that point, `<name>#<n>` the n-th time, and
 * `<hook>:<name>[#<n>]` only inside that hook (`post-commit`, `stop`, …), so
 * tests can prove a crash anywhere loses nothing. When
 * `ENTIRE_TEST_FAULT_FIRED=<file>` is set, the point's name is appended to
 * that file first, so a test knows the kill happened. Inert unless the
 * variable is set; costs one comparison otherwise.
 */
import { appendFileSync } from 'node:fs';

const raw = process.env['ENTIRE_TEST_FAULT'];
const colon = raw === undefined ? -1 : raw.indexOf(':');
const wantedScope = colon >= 0 ? raw!.slice(0, colon) : undefined;
const wanted = colon >= 0 ? raw!.slice(colon + 1) : raw;
const hits = new Map<string, number>();
let scope = '';

/** Name the running hook (its verb), for `<hook>:<name>` faults. */
export function setFaultScope(name: string): void {
  scope = name;
}

export function fault(name: string): void {
  if (wanted === undefined || !wanted.startsWith(name)) return;
  if (wantedScope !== undefined && wantedScope !== scope) return;
  const n = (hits.get(name) ?? 0) + 1;
  hits.set(name, n);
  if (wanted === name ? n === 1 : wanted === `${name}#${n}`) {
    const fired = process.env['ENTIRE_TEST_FAULT_FIRED'];
    if (fired) appendFileSync(fired, `${raw}\n`);
    process.kill(process.pid, 'SIGKILL');
  }
}
