/** Positional reads: the one loop every reader of byte ranges shares. */
import { closeSync, openSync, readSync } from 'node:fs';

/** `length` bytes of an open file from `position` (fewer if the file is shorter). */
export function readAt(fd: number, position: number, length: number): Buffer {
  const buf = Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const n = readSync(fd, buf, got, length - got, position + got);
    if (n === 0) break;
    got += n;
  }
  return got === length ? buf : buf.subarray(0, got);
}

/** The same by path. */
export function readFileRange(path: string, position: number, length: number): Buffer {
  const fd = openSync(path, 'r');
  try {
    return readAt(fd, position, length);
  } finally {
    closeSync(fd);
  }
}
