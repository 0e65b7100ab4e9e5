/**
 * Confirmation for destructive commands (SPEC §8): without a terminal the
 * command needs --force (the caller throws NEEDS_FORCE when this returns false
 * because no TTY exists).
 */
import { openSync, writeSync, readSync, closeSync } from 'node:fs';
import { EntireError } from '../errors.js';

export function hasTty(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env['ENTIRE_TEST_TTY'] === '0') return false;
  if (env['ENTIRE_TEST_TTY'] === '1') return true;
  try {
    closeSync(openSync('/dev/tty', 'r'));
    return true;
  } catch {
    return false;
  }
}

/** Ask on /dev/tty; throws NEEDS_FORCE when there is no terminal. Returns the answer. */
export async function confirm(question: string, command = 'this command', env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  if (!hasTty(env)) throw new EntireError('NEEDS_FORCE', `${command} requires --force when not interactive`);
  if (env['ENTIRE_TEST_TTY'] === '1') return /^y(es)?$/i.test(env['ENTIRE_TEST_TTY_ANSWER'] ?? 'n');
  const fd = openSync('/dev/tty', 'r+');
  try {
    writeSync(fd, question);
    const buf = Buffer.alloc(256);
    const n = readSync(fd, buf, 0, buf.length, null);
    return /^y(es)?$/i.test(buf.subarray(0, n).toString('utf8').trim());
  } finally {
    closeSync(fd);
  }
}
