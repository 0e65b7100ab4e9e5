/**
 * Incremental redaction of append-only JSONL transcripts (SPEC §3.3 SHOULD,
 * §10 "Stop hook, later turns of a 50 MB transcript < 1 s").
 *
 * Per key (a session id) the cache directory holds:
 * - `<key>.redacted.jsonl`: the redacted text of every complete source line
 *   up to the cursor (append-only);
 * - `<key>.cursor.json`: the cursor, written atomically (temp name + rename):
 *   `{ v, engine, source, offset, outBytes, headHash, anchorHash, outTailHash }`
 *   where `offset` is the source byte offset just after the last complete
 *   line processed, `outBytes` the size of the redacted file that goes with
 *   it, `headHash` a SHA-256 of the first ≤ 4 KiB of the source,
 *   `anchorHash` of the ≤ 4 KiB just before `offset` (a replaced or rewritten
 *   file is noticed), `outTailHash` of the last ≤ 4 KiB of the redacted file
 *   (a torn write is noticed);
 * - `<key>.lock` while a call runs (stale after 30 s).
 *
 * A call reads only the source bytes after the cursor, in line-aligned
 * windows of at most 1 MiB (src/trust/transcript-lines.ts, SPEC-2 §A.6),
 * redacts each window's complete lines and appends them to the output as it
 * goes, so memory holds one window (or one long line, up to 16 MiB), never
 * the transcript. A line over 16 MiB is not parsed: it becomes SPEC §2.7's
 * `entire-omitted` record (its length and the SHA-256 of its bytes). An
 * unterminated last line is redacted into the returned tail but the cursor
 * stays before it. A source that shrank, whose hashes changed, a cursor from
 * another engine version or an inconsistent cache: redone from scratch. The
 * cursor is the source of truth: bytes of the redacted file past `outBytes`
 * (a crash between append and cursor write) are cut off.
 *
 * Output equals `redactJsonl(readFileSync(sourcePath, "utf8"))` for lines up to
 * 16 MiB (tested), and is the same however the appends fell.
 * Cache files are named from the key only when it is a safe file name
 * (`[A-Za-z0-9][A-Za-z0-9._-]{0,127}`, no `..`), else from its SHA-256.
 */
import { closeSync, constants, fstatSync, ftruncateSync, mkdirSync, openSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { openTranscript } from '../trust/transcript-file.js';
import { readFileNoFollow } from '../trust/confined.js';
import { lineWindows, omittedRecord } from '../trust/transcript-lines.js';
import { onExit } from '../exit-tasks.js';
import { randomHex } from '../random.js';

// The cache lives in the work tree (`.entire/tmp/redact`), where a cloned
// repository may have planted symlinks: its files are never opened through
// one (SPEC-2 §A.4). The source is an agent transcript: opened only through
// src/trust/transcript-file.ts (SPEC-2 §A.5).
const RW_NOFOLLOW = constants.O_RDWR | constants.O_NOFOLLOW;
const RO_NOFOLLOW = constants.O_RDONLY | constants.O_NOFOLLOW;
import { join } from 'node:path';
import { crypto } from '../builtins.js';
import { ENGINE_ID } from './engine-id.js';
import { readAt } from '../fs-read.js';

export { ENGINE_ID };

// I/O here is synchronous: a hook does nothing else meanwhile, and each
// asynchronous fs call (plus loading fs/promises) cost more than the read.
// The redactor itself loads only when there are new bytes to redact.
type Redact = (text: string) => string;
async function loadRedactJsonl(): Promise<Redact> {
  const { redactJsonl } = await import('./json.js');
  const { clearRedactionCache } = await import('./engine.js');
  // The engine's per-string cache keeps strings that are slices of the text they came
  // from: kept across windows it would hold on to every window read (65 MiB of a 60 MB
  // transcript, measured). Repeats within a window (a Write's content echoed in its
  // result) are still found.
  return (text) => {
    clearRedactionCache();
    return redactJsonl(text);
  };
}

const HASH_SPAN = 4096;
const LOCK_STALE_MS = 30_000;
const LOCK_WAIT_MS = 3_000;

export interface IncrementalOptions {
  /** The agent's transcript (JSONL, append-only). */
  sourcePath: string;
  /** Cache directory, e.g. `.entire/tmp/redact` (gitignored). Created if missing. */
  cacheDir: string;
  /** Cache key: the session id. */
  key: string;
}

export interface IncrementalResult {
  /** The whole redacted transcript (complete lines plus the redacted unterminated tail). */
  text: string;
  /** Source size read, bytes. */
  sourceBytes: number;
  /** Source bytes redacted by this call (new complete lines plus the tail). */
  newBytes: number;
  /** True when the cache was (re)built from the start of the source. */
  rebuilt: boolean;
}

export interface CacheUpdate {
  /** Redacted text of every complete source line (`outputBytes` bytes of this file). */
  outputPath: string;
  outputBytes: number;
  /** Bytes of redacted text this call added (the last `appendedBytes` of the `outputBytes`). */
  appendedBytes: number;
  /** Redacted text of the lines this call added to the cache: read from the file when asked for. */
  readonly appended: string;
  /** Redacted unterminated last line ('' when the source ends with a newline). */
  tail: string;
  sourceBytes: number;
  newBytes: number;
  rebuilt: boolean;
  /**
   * False when the cache could not be used (its lock held past the wait): the
   * whole source was then redacted into a private file of this process
   * (`outputPath`, removed when the process exits), and `appended` is all of it.
   */
  cached: boolean;
}

interface Cursor {
  v: 1;
  engine: string;
  source: string;
  offset: number;
  outBytes: number;
  headHash: string;
  anchorHash: string;
  outTailHash: string;
  /** The source's [ino, size, mtimeMs] when the cursor covered all of it (see `unchanged`). */
  src?: [number, number, number];
}

/** File-name-safe form of a key (session id). */
export function cacheKeyName(key: string): string {
  if (/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(key) && !key.includes('..')) return key;
  return 'k-' + crypto().createHash('sha256').update(key).digest('hex').slice(0, 40);
}

/** Paths of the cache files for a key. */
export function redactionCachePaths(cacheDir: string, key: string): { output: string; cursor: string; lock: string } {
  const name = cacheKeyName(key);
  return {
    output: join(cacheDir, `${name}.redacted.jsonl`),
    cursor: join(cacheDir, `${name}.cursor.json`),
    lock: join(cacheDir, `${name}.lock`),
  };
}

/** Deletes a key's cache files (session cleanup). */
export async function removeRedactionCache(cacheDir: string, key: string): Promise<void> {
  const p = redactionCachePaths(cacheDir, key);
  for (const f of [p.output, p.cursor, p.lock]) rmSync(f, { force: true });
}

function sha(buf: Buffer): string {
  return crypto().createHash('sha256').update(buf).digest('hex');
}

function hashSpan(fd: number, start: number, end: number): string {
  if (end <= start) return sha(Buffer.alloc(0));
  return sha(readAt(fd, start, end - start));
}

function readCursor(path: string): Cursor | null {
  try {
    const c = JSON.parse(readFileNoFollow(path)?.toString('utf8') ?? '') as Partial<Cursor>;
    if (c.v !== 1 || typeof c.offset !== 'number' || typeof c.outBytes !== 'number') return null;
    if (typeof c.engine !== 'string' || typeof c.source !== 'string') return null;
    if (typeof c.headHash !== 'string' || typeof c.anchorHash !== 'string' || typeof c.outTailHash !== 'string') return null;
    if (!Number.isSafeInteger(c.offset) || c.offset < 0 || !Number.isSafeInteger(c.outBytes) || c.outBytes < 0) return null;
    return c as Cursor;
  } catch {
    return null;
  }
}

function writeAtomic(path: string, data: string): void {
  const tmp = `${path}.${process.pid}.${Date.now().toString(36)}.tmp`;
  try {
    const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      const buf = Buffer.from(data, 'utf8');
      let off = 0;
      while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Takes the key's lock; false when another live call holds it past the wait. */
async function acquireLock(lock: string): Promise<boolean> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      const fd = openSync(lock, 'wx', 0o600);
      try {
        writeSync(fd, String(process.pid));
      } finally {
        closeSync(fd);
      }
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return false;
      let mtimeMs: number;
      try {
        mtimeMs = statSync(lock).mtimeMs;
      } catch {
        continue; // released meanwhile
      }
      if (Date.now() - mtimeMs > LOCK_STALE_MS) {
        rmSync(lock, { force: true });
        continue;
      }
      if (Date.now() > deadline) return false;
      await sleep(25);
    }
  }
}

/** Write all of `buf` at `position` of `fd`. */
function writeAt(fd: number, buf: Buffer, position: number): void {
  let w = 0;
  while (w < buf.length) w += writeSync(fd, buf, w, buf.length - w, position + w);
}

interface Redacted {
  /** Source offset just after the last complete line. */
  offset: number;
  /** Redacted bytes written to the output. */
  written: number;
  /** The redacted unterminated last line ('' when the source ends with a newline). */
  tail: string;
}

/**
 * Redact source bytes [start, size) window by window, writing the redacted
 * complete lines to `out` from `outAt` on (see the file comment).
 */
function redactWindows(src: number, start: number, size: number, out: number, outAt: number, redact: Redact): Redacted {
  let offset = start;
  let written = 0;
  let tail = '';
  for (const w of lineWindows(src, start, size)) {
    let text: string;
    let end: number;
    if (w.kind === 'oversized') {
      text = omittedRecord(w.bytes, w.sha256) + (w.terminated ? '\n' : '');
      end = w.start + w.bytes + (w.terminated ? 1 : 0);
    } else {
      text = redact(w.buf.toString('utf8'));
      end = w.start + w.buf.length;
    }
    if (!w.terminated) {
      tail = text;
      break;
    }
    const buf = Buffer.from(text, 'utf8');
    writeAt(out, buf, outAt + written);
    written += buf.length;
    offset = end;
  }
  return { offset, written, tail };
}

/** A new file for the output, created exclusively (never through a symlink). */
function createExclusive(path: string): number {
  return openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
}

/** Without the cache (lock held elsewhere): the whole source, redacted into a private file. */
async function fullRedaction(sourcePath: string, cacheDir: string, key: string): Promise<CacheUpdate> {
  const opened = openTranscript(sourcePath);
  if (opened === null) throw new Error(`transcript ${sourcePath} does not exist`);
  const redact = await loadRedactJsonl();
  const path = join(cacheDir, `${cacheKeyName(key)}.${process.pid}.${randomHex(4)}.private.jsonl`);
  try {
    const out = createExclusive(path);
    onExit(() => rmSync(path, { force: true }));
    try {
      const r = redactWindows(opened.fd, 0, opened.size, out, 0, redact);
      return update(path, r.written, r.written, r.tail, opened.size, opened.size, true, false);
    } finally {
      closeSync(out);
    }
  } finally {
    closeSync(opened.fd);
  }
}

/**
 * A transcript redacted once, without a cache (a subagent's file, read at its
 * task's end): streamed into a private file of this process as the cache
 * would write it, removed when the process exits. `cached` is false.
 */
export async function redactJsonlFileOnce(opts: IncrementalOptions): Promise<CacheUpdate> {
  mkdirSync(opts.cacheDir, { recursive: true });
  return fullRedaction(opts.sourcePath, opts.cacheDir, opts.key);
}

/** A CacheUpdate whose `appended` reads the file only when asked for. */
function update(
  outputPath: string,
  outputBytes: number,
  appendedBytes: number,
  tail: string,
  sourceBytes: number,
  newBytes: number,
  rebuilt: boolean,
  cached: boolean,
): CacheUpdate {
  return {
    outputPath,
    outputBytes,
    appendedBytes,
    get appended(): string {
      if (appendedBytes === 0) return '';
      const fd = openSync(outputPath, RO_NOFOLLOW);
      try {
        return readAt(fd, outputBytes - appendedBytes, appendedBytes).toString('utf8');
      } finally {
        closeSync(fd);
      }
    },
    tail,
    sourceBytes,
    newBytes,
    rebuilt,
    cached,
  };
}

/**
 * Brings the key's cache up to date with the source and returns what
 * changed, without reading the cached redacted text back. Callers that need
 * the whole text read `outputPath` (first `outputBytes` bytes) + `tail`, or
 * use `redactJsonlFileIncremental`.
 */
export async function updateRedactionCache(opts: IncrementalOptions): Promise<CacheUpdate> {
  const paths = redactionCachePaths(opts.cacheDir, opts.key);
  const same = unchanged(opts, paths);
  if (same) return same;
  mkdirSync(opts.cacheDir, { recursive: true });
  if (!(await acquireLock(paths.lock))) return fullRedaction(opts.sourcePath, opts.cacheDir, opts.key);
  try {
    return await updateLocked(opts, paths);
  } finally {
    rmSync(paths.lock, { force: true });
  }
}

/**
 * The common case of a hook that finds nothing new (post-commit after a
 * Stop, a second call in one hook): the source has the very inode, size and
 * mtime the cursor recorded when it covered the whole file, and the output
 * holds the cursor's bytes. Then the cache stands as it is, without the lock
 * or re-hashing the spans. Anything else takes the full path.
 */
function unchanged(opts: IncrementalOptions, paths: { output: string; cursor: string }): CacheUpdate | null {
  const cur = readCursor(paths.cursor);
  const s = cur?.src;
  if (!cur || !Array.isArray(s) || s.length !== 3 || cur.engine !== ENGINE_ID || cur.source !== opts.sourcePath) return null;
  const st = statSync(opts.sourcePath, { throwIfNoEntry: false });
  const out = statSync(paths.output, { throwIfNoEntry: false });
  if (!st || !out || st.ino !== s[0] || st.size !== s[1] || st.mtimeMs !== s[2] || cur.offset !== st.size || out.size < cur.outBytes) return null;
  return update(paths.output, cur.outBytes, 0, '', st.size, 0, false, true);
}

async function updateLocked(opts: IncrementalOptions, paths: { output: string; cursor: string }): Promise<CacheUpdate> {
  const opened = openTranscript(opts.sourcePath);
  if (opened === null) throw new Error(`transcript ${opts.sourcePath} does not exist`);
  const src = opened.fd;
  try {
    const srcStat = fstatSync(src);
    const size = srcStat.size;
    let start = 0;
    let outBytes = 0;
    const cur = readCursor(paths.cursor);
    if (cur !== null && cur.engine === ENGINE_ID && cur.source === opts.sourcePath && cur.offset <= size) {
      const headEnd = Math.min(cur.offset, HASH_SPAN);
      const anchorStart = Math.max(0, cur.offset - HASH_SPAN);
      let outOk = false;
      try {
        const out = openSync(paths.output, RW_NOFOLLOW);
        try {
          const outSize = fstatSync(out).size;
          if (outSize >= cur.outBytes && hashSpan(out, Math.max(0, cur.outBytes - HASH_SPAN), cur.outBytes) === cur.outTailHash) {
            if (outSize > cur.outBytes) ftruncateSync(out, cur.outBytes);
            outOk = true;
          }
        } finally {
          closeSync(out);
        }
      } catch {
        outOk = false;
      }
      if (outOk && hashSpan(src, 0, headEnd) === cur.headHash && hashSpan(src, anchorStart, cur.offset) === cur.anchorHash) {
        start = cur.offset;
        outBytes = cur.outBytes;
      }
    }
    const rebuilt = start === 0;
    if (!rebuilt && start === size) return update(paths.output, outBytes, 0, '', size, 0, false, true);
    const redact = await loadRedactJsonl();
    // a rebuild goes to a new file renamed over the old one at the end; an update appends in place
    const tmp = rebuilt ? `${paths.output}.${process.pid}.${Date.now().toString(36)}.tmp` : null;
    let r: Redacted;
    try {
      const out = tmp ? createExclusive(tmp) : openSync(paths.output, RW_NOFOLLOW);
      try {
        r = redactWindows(src, start, size, out, outBytes, redact);
      } finally {
        closeSync(out);
      }
      if (tmp) renameSync(tmp, paths.output);
    } catch (e) {
      if (tmp) rmSync(tmp, { force: true });
      throw e;
    }
    const offset = r.offset;
    if (rebuilt || offset > start) {
      const newOutBytes = outBytes + r.written;
      const out = openSync(paths.output, RO_NOFOLLOW);
      let outTailHash: string;
      try {
        outTailHash = hashSpan(out, Math.max(0, newOutBytes - HASH_SPAN), newOutBytes);
      } finally {
        closeSync(out);
      }
      const cursor: Cursor = {
        v: 1,
        engine: ENGINE_ID,
        source: opts.sourcePath,
        offset,
        outBytes: newOutBytes,
        headHash: hashSpan(src, 0, Math.min(offset, HASH_SPAN)),
        anchorHash: hashSpan(src, Math.max(0, offset - HASH_SPAN), offset),
        outTailHash,
      };
      // the stat as read (before the bytes): a write after it changes it, and the next call checks fully
      if (offset === size) cursor.src = [srcStat.ino, srcStat.size, srcStat.mtimeMs];
      writeAtomic(paths.cursor, JSON.stringify(cursor) + '\n');
      outBytes = newOutBytes;
    }
    return update(paths.output, outBytes, r.written, r.tail, size, size - start, rebuilt, true);
  } finally {
    closeSync(src);
  }
}

/**
 * The whole redacted transcript, redacting only source lines not seen
 * before (see the file comment for the cache layout and guarantees).
 */
export async function redactJsonlFileIncremental(opts: IncrementalOptions): Promise<IncrementalResult> {
  const u = await updateRedactionCache(opts);
  let text = '';
  if (u.outputBytes > 0) {
    const out = openSync(u.outputPath, RO_NOFOLLOW);
    try {
      text = readAt(out, 0, u.outputBytes).toString('utf8');
    } finally {
      closeSync(out);
    }
  }
  return { text: text + u.tail, sourceBytes: u.sourceBytes, newBytes: u.newBytes, rebuilt: u.rebuilt };
}
