/**
 * A hook's input: read with plain synchronous reads on fd 0. `process.stdin`
 * would build a stream (a net.Socket for the pipe an agent gives its hook) and
 * iterate it through promises: several milliseconds on the hook an agent waits
 * on, for a few hundred bytes. The stream is kept only as the fallback for a
 * descriptor that a synchronous read cannot drain (non-blocking: EAGAIN).
 */
import { fstatSync, readSync } from 'node:fs';

export const MAX_STDIN_BYTES = 64 * 1024 * 1024;

function tooLarge(): Error {
  return new Error(`hook input larger than ${MAX_STDIN_BYTES} bytes`);
}

export async function readStdin(): Promise<string> {
  let kind: 'data' | 'none';
  try {
    const st = fstatSync(0);
    // a terminal (or /dev/null, /dev/zero…): no hook input, and never block or read forever
    kind = st.isFIFO() || st.isFile() || st.isSocket() ? 'data' : 'none';
  } catch {
    return ''; // fd 0 closed
  }
  if (kind === 'none') return '';
  const chunks: Buffer[] = [];
  let size = 0;
  const buf = Buffer.allocUnsafe(64 * 1024);
  for (;;) {
    let n: number;
    try {
      n = readSync(0, buf, 0, buf.length, null);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EAGAIN') return readRestAsync(chunks, size);
      if ((e as NodeJS.ErrnoException).code === 'EOF') break;
      throw e;
    }
    if (n === 0) break;
    size += n;
    if (size > MAX_STDIN_BYTES) throw tooLarge();
    chunks.push(Buffer.from(buf.subarray(0, n)));
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The rest of a non-blocking input, through the stream, after what was already read. */
async function readRestAsync(chunks: Buffer[], size: number): Promise<string> {
  for await (const c of process.stdin) {
    const b = c as Buffer;
    size += b.length;
    if (size > MAX_STDIN_BYTES) throw tooLarge();
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8');
}
