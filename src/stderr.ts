/**
 * Hook output (a line for the user on stderr, a reply to the agent on
 * stdout), written to the file descriptor directly: the first use of
 * `process.stderr`/`stdout` builds a stream (and, on a pipe, loads the net
 * and stream modules), about 3–5 ms on the bench VM, for a single line.
 */
import { writeSync } from 'node:fs';
import { tty } from './builtins.js';
import { jsonTermSafe, termSafe } from './trust/terminal.js';

/** A line for the person, sanitised for the terminal (SPEC-2 §A.8). */
export function writeStderr(text: string): void {
  writeFd(2, termSafe(text));
}

/**
 * A line that only informs: printed when a person watches (stderr is a
 * terminal), never into an agent's tool output, where the model reads it
 * (issue 15: a commit made by an agent's shell has no terminal).
 */
export function writeNotice(text: string): void {
  const forced = process.env['ENTIRE_TEST_TTY']; // tests fake the terminal, as the TTY question does
  if (forced === '1' || (forced !== '0' && tty().isatty(2))) writeStderr(text);
}

/** The same for standard output (a hook's JSON reply to the agent, which may show it). */
export function writeStdout(text: string): void {
  writeFd(1, jsonTermSafe(text));
}

function writeFd(fd: 1 | 2, text: string): void {
  const buf = Buffer.from(text, 'utf8');
  let off = 0;
  let waited = 0;
  while (off < buf.length) {
    try {
      off += writeSync(fd, buf, off, buf.length - off);
    } catch (e) {
      // a full non-blocking pipe: wait for the reader (hooks exit right after writing,
      // so nothing may be left to an asynchronous stream); any other error: give up
      if ((e as NodeJS.ErrnoException).code !== 'EAGAIN' || waited >= 2000) return;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
      waited += 5;
    }
  }
}
