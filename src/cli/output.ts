/** Small helpers for command output: results on stdout, diagnostics on stderr. */
import { encodeJson } from '../checkpoint/json.js';

export function out(line = ''): void {
  process.stdout.write(line + '\n');
}

export function err(line: string): void {
  process.stderr.write(line + '\n');
}

export function printJson(value: unknown): void {
  process.stdout.write(encodeJson(value));
}
