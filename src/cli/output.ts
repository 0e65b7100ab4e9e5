/** Small helpers for command output: results on stdout, diagnostics on stderr (sanitised, SPEC-2 §A.8). */
import { encodeJson } from '../go-json.js';
import { jsonTermSafe, termSafe } from '../trust/terminal.js';

export function out(line = ''): void {
  process.stdout.write(termSafe(line) + '\n');
}

export function err(line: string): void {
  process.stderr.write(termSafe(line) + '\n');
}

export function printJson(value: unknown): void {
  process.stdout.write(jsonTermSafe(encodeJson(value)));
}
