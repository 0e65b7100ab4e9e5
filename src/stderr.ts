/**
 * One line for the user on a hook path. Written to fd 2 directly: the first
 * use of `process.stderr` builds a stream (and, on a pipe, loads the net
 * and stream modules), about 3–5 ms on the bench VM, for a single line.
 */
import { writeSync } from 'node:fs';

export function writeStderr(text: string): void {
  const buf = Buffer.from(text, 'utf8');
  try {
    let off = 0;
    while (off < buf.length) off += writeSync(2, buf, off, buf.length - off);
  } catch {
    // e.g. EAGAIN on a non-blocking pipe: the stream handles it
    process.stderr.write(text);
  }
}
