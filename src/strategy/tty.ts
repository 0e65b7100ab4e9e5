/**
 * SPEC §6.3 TTY prompt: ask the person (not the agent) whether to link a
 * `-m`/`-F` commit. `ENTIRE_TEST_TTY=1|0` fakes the terminal in tests.
 */
import { openSync, writeSync, closeSync, createReadStream } from 'node:fs';
import { termSafe } from '../trust/terminal.js';

export const TTY_TIMEOUT_MS = 60_000;

export type TtyAnswer = 'yes' | 'no' | 'no-tty';

function interpret(answer: string): 'yes' | 'no' {
  const a = answer.trim().toLowerCase();
  return a === 'n' || a === 'no' ? 'no' : 'yes';
}

/** The question is built only when a terminal exists (it redacts the last prompt). */
export async function askLink(makeQuestion: () => Promise<string>, env: NodeJS.ProcessEnv = process.env): Promise<TtyAnswer> {
  const forced = env['ENTIRE_TEST_TTY'];
  if (forced === '0') return 'no-tty';
  if (forced === '1') {
    process.stderr.write(termSafe(await makeQuestion()) + '\n');
    return interpret(env['ENTIRE_TEST_TTY_ANSWER'] ?? 'y');
  }
  let fd: number;
  try {
    fd = openSync('/dev/tty', 'r+');
  } catch {
    return 'no-tty'; // the agent path: no controlling terminal
  }
  let question: string;
  try {
    // the question quotes the session's last prompt: sanitised (SPEC-2 §A.8)
    question = termSafe(await makeQuestion());
  } catch {
    question = 'Link this commit to the agent session context? [Y/n] ';
  }
  try {
    writeSync(fd, question);
  } catch {
    closeSync(fd);
    return 'no-tty';
  }
  return new Promise<TtyAnswer>((resolve) => {
    let buf = '';
    const stream = createReadStream('', { fd, autoClose: false, encoding: 'utf8' });
    const done = (a: TtyAnswer) => {
      clearTimeout(timer);
      stream.removeAllListeners();
      stream.pause();
      try {
        closeSync(fd);
      } catch {
        /* ignore */
      }
      resolve(a);
    };
    const timer = setTimeout(() => done('yes'), TTY_TIMEOUT_MS);
    timer.unref();
    stream.on('data', (d: string | Buffer) => {
      buf += d.toString();
      const nl = buf.indexOf('\n');
      if (nl >= 0) done(interpret(buf.slice(0, nl)));
    });
    stream.on('error', () => done('yes'));
    stream.on('end', () => done(interpret(buf)));
  });
}
