/**
 * Random hex for IDs and temporary names. Read from /dev/urandom where it
 * exists, so a hook that needs a checkpoint ID does not load node:crypto
 * (about 4 ms); crypto's generator everywhere else.
 */
import { openSync, readSync } from 'node:fs';
import { crypto } from './builtins.js';

let urandom: number | null | undefined;

export function randomHex(bytes: number): string {
  if (urandom === undefined) {
    try {
      urandom = openSync('/dev/urandom', 'r'); // kept open for the process's life
    } catch {
      urandom = null;
    }
  }
  if (urandom !== null) {
    const buf = Buffer.alloc(bytes);
    try {
      if (readSync(urandom, buf, 0, bytes, null) === bytes) return buf.toString('hex');
    } catch {
      /* fall back below */
    }
  }
  return crypto().randomBytes(bytes).toString('hex');
}
