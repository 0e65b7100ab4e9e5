/**
 * SPEC-2 §A.5: the one way to open an agent-named transcript. An agent's
 * hook stdin (and anything stored from it) names the file; we read it only
 * if it is an absolute path whose real location is inside the agent's
 * transcript root, and only through `openTranscript`: non-blocking (a FIFO
 * never hangs a hook), no symlink as the last component, a regular file,
 * at most `ENTIRE_MAX_TRANSCRIPT_BYTES` (256 MiB).
 *
 * Two layers, both here: `transcriptPathProblem` decides whether a path may
 * be used at all (the flows call it through `readableTranscript` before any
 * read); `openTranscript` is the only open(2) of a transcript, used by every
 * reader (JSONL windows, tails, head hashes, the redaction cache, whole-file
 * reads).
 */
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, resolve, sep } from 'node:path';
import { EntireError } from '../errors.js';

const DEFAULT_MAX = 256 * 1024 * 1024;

/** `ENTIRE_MAX_TRANSCRIPT_BYTES` (default 256 MiB). */
export function maxTranscriptBytes(): number {
  const v = Number(process.env['ENTIRE_MAX_TRANSCRIPT_BYTES']);
  return Number.isSafeInteger(v) && v > 0 ? v : DEFAULT_MAX;
}

const realCache = new Map<string, string | null>();

/** realpath of `p`, or of its nearest existing ancestor joined with the rest; null if nothing resolves. */
function realish(p: string): string | null {
  const hit = realCache.get(p);
  if (hit !== undefined) return hit;
  let out: string | null = null;
  let cur = p;
  let rest = '';
  for (;;) {
    try {
      // one realpath(3) call, not Node's JavaScript walk of every component (hooks run cold)
      out = realpathSync.native(cur) + rest;
      break;
    } catch {
      const up = dirname(cur);
      if (up === cur) break;
      rest = sep + cur.slice(up.length + (up.endsWith(sep) ? 0 : 1)) + rest;
      cur = up;
    }
  }
  realCache.set(p, out);
  return out;
}

/** Whether `abs` (already real) is `root` or below it (root already real). */
function under(abs: string, root: string): boolean {
  return abs === root || abs.startsWith(root.endsWith(sep) ? root : root + sep);
}

/**
 * Why `path` may not be read as a transcript of an agent whose transcripts
 * live under `root`, or null when it may. `root` null: the agent has no
 * transcript files (nothing may be read).
 */
export function transcriptPathProblem(path: string, root: string | null): string | null {
  if (!path) return 'no transcript path';
  if (!isAbsolute(path)) return 'transcript path is not absolute';
  if (path.includes('\0')) return 'transcript path contains NUL';
  if (!root) return 'this agent keeps no transcript files';
  const realRoot = realish(resolve(root));
  const real = realish(resolve(path));
  if (!realRoot || !real) return 'transcript path does not resolve';
  if (!under(real, realRoot)) return `transcript path is outside the agent's transcript directory ${root}`;
  return null;
}

/**
 * Open a transcript for reading: `O_RDONLY|O_NONBLOCK|O_NOFOLLOW`, then
 * `fstat` must say regular file of at most the size cap. Returns null when
 * the file does not exist; throws EntireError UNSAFE_TRANSCRIPT for
 * anything else (a FIFO, a device, a directory, a symlink, too big) and
 * TRANSCRIPT_UNREADABLE for I/O errors.
 */
export function openTranscript(path: string): { fd: number; size: number } | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    if (code === 'ELOOP') throw new EntireError('UNSAFE_TRANSCRIPT', `transcript ${path} is a symbolic link`, { cause: e });
    throw new EntireError('TRANSCRIPT_UNREADABLE', `cannot open transcript ${path}`, { cause: e });
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new EntireError('UNSAFE_TRANSCRIPT', `transcript ${path} is not a regular file`);
    const max = maxTranscriptBytes();
    if (st.size > max) throw new EntireError('UNSAFE_TRANSCRIPT', `transcript ${path} is larger than ${max} bytes (ENTIRE_MAX_TRANSCRIPT_BYTES)`);
    return { fd, size: st.size };
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

/** Whether `path` opens as a transcript (exists, regular, within the cap). Never throws. */
export function transcriptOpens(path: string): boolean {
  try {
    const o = openTranscript(path);
    if (!o) return false;
    closeSync(o.fd);
    return true;
  } catch {
    return false;
  }
}

/** The whole transcript (bounded by the cap); null when it does not exist. */
export function readTranscriptFile(path: string): Buffer | null {
  const o = openTranscript(path);
  if (!o) return null;
  try {
    const buf = Buffer.allocUnsafe(o.size);
    let off = 0;
    while (off < o.size) {
      const n = readSync(o.fd, buf, off, o.size - off, off);
      if (n === 0) break;
      off += n;
    }
    return off === o.size ? buf : buf.subarray(0, off);
  } finally {
    closeSync(o.fd);
  }
}

/**
 * The transcript path a hook uses (SPEC-2 §A.5): the agent-named one if it
 * passes the root check, else the computed one if it does, else none (`''`;
 * the work is still recorded, without a transcript). `refused` hears why an
 * agent-named path was not used.
 */
export function chooseTranscriptPath(named: string | undefined, computed: () => string, root: string | null, refused?: (why: string) => void): string {
  if (named !== undefined && named !== '') {
    const problem = transcriptPathProblem(named, root);
    if (problem === null) return named;
    refused?.(problem);
  }
  const c = computed();
  return transcriptPathProblem(c, root) === null ? c : '';
}
