/**
 * Confirmation for destructive commands (SPEC §8): without a terminal the
 * command needs --force. One terminal-reading implementation
 * (commands/common.ts); this adapts it to "throw NEEDS_FORCE without a TTY".
 */
import { EntireError } from '../errors.js';
import { confirm as ask } from '../commands/common.js';

export function hasTty(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env['ENTIRE_TEST_TTY'] === '0') return false;
  if (env['ENTIRE_TEST_TTY'] === '1') return true;
  return process.stdin.isTTY === true;
}

/** Ask a yes/no question (default no); throws NEEDS_FORCE when there is no terminal. */
export async function confirm(question: string, command = 'this command', env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  const answer = await ask(question.replace(/\s*\[y\/N\]\s*$/i, ''), env);
  if (answer === 'no-tty') throw new EntireError('NEEDS_FORCE', `${command} requires --force when not interactive`);
  return answer === 'yes';
}
