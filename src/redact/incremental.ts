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
 * A call reads only the source bytes after the cursor (fs read from the
 * offset), redacts the complete lines, appends them and moves the cursor. An
 * unterminated last line is redacted into the returned text but the cursor
 * stays before it. A source that shrank, whose hashes changed, a cursor from
 * another engine version or an inconsistent cache: redone from scratch. The
 * cursor is the source of truth: bytes of the redacted file past `outBytes`
 * (a crash between append and cursor write) are cut off.
 *
 * Output equals `redactJsonl(readFileSync(sourcePath, 'utf8'))` (tested).
 * Cache files are named from the key only when it is a safe file name
 * (`[A-Za-z0-9][A-Za-z0-9._-]{0,127}`, no `..`), else from its SHA-256.
 */
import { promises as fsp, type Stats as FsStats } from 'node:fs';
import { join } from 'node:path';
import { redactJsonl } from './json.js';
import { RULE_COUNT } from './rules.js';
import { crypto } from '../builtins.js';

/** Changes whenever redaction output can change: bump with rule edits. */
export const ENGINE_ID = `redact-v1-${RULE_COUNT}`;

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
  /** Redacted text of the lines this call added to the cache. */
  appended: string;
  /** Redacted unterminated last line ('' when the source ends with a newline). */
  tail: string;
  sourceBytes: number;
  newBytes: number;
  rebuilt: boolean;
  /** False when the cache could not be used (lock held, I/O error): `appended` is then the whole redacted text. */
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
  await Promise.all([p.output, p.cursor, p.lock].map((f) => fsp.rm(f, { force: true })));
}

function sha(buf: Buffer): string {
  return crypto().createHash('sha256').update(buf).digest('hex');
}

async function readAt(fh: fsp.FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.allocUnsafe(length);
  let got = 0;
  while (got < length) {
    const { bytesRead } = await fh.read(buf, got, length - got, position + got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return got === length ? buf : buf.subarray(0, got);
}

async function hashSpan(fh: fsp.FileHandle, start: number, end: number): Promise<string> {
  if (end <= start) return sha(Buffer.alloc(0));
  return sha(await readAt(fh, start, end - start));
}

async function readCursor(path: string): Promise<Cursor | null> {
  try {
    const c = JSON.parse(await fsp.readFile(path, 'utf8')) as Partial<Cursor>;
    if (c.v !== 1 || typeof c.offset !== 'number' || typeof c.outBytes !== 'number') return null;
    if (typeof c.engine !== 'string' || typeof c.source !== 'string') return null;
    if (typeof c.headHash !== 'string' || typeof c.anchorHash !== 'string' || typeof c.outTailHash !== 'string') return null;
    if (!Number.isSafeInteger(c.offset) || c.offset < 0 || !Number.isSafeInteger(c.outBytes) || c.outBytes < 0) return null;
    return c as Cursor;
  } catch {
    return null;
  }
}

async function writeAtomic(path: string, data: string): Promise<void> {
  const tmp = `${path}.${process.pid}.${Date.now().toString(36)}.tmp`;
  try {
    await fsp.writeFile(tmp, data, { mode: 0o600 });
    await fsp.rename(tmp, path);
  } catch (e) {
    await fsp.rm(tmp, { force: true });
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
      const fh = await fsp.open(lock, 'wx', 0o600);
      await fh.writeFile(String(process.pid));
      await fh.close();
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return false;
      let st: FsStats | null = null;
      try {
        st = await fsp.stat(lock);
      } catch {
        continue; // released meanwhile
      }
      if (Date.now() - st.mtimeMs > LOCK_STALE_MS) {
        await fsp.rm(lock, { force: true });
        continue;
      }
      if (Date.now() > deadline) return false;
      await sleep(25);
    }
  }
}

/** Complete-line part and unterminated tail of a buffer. */
function splitTail(buf: Buffer): { complete: Buffer; tail: Buffer } {
  const nl = buf.lastIndexOf(0x0a);
  return { complete: buf.subarray(0, nl + 1), tail: buf.subarray(nl + 1) };
}

/** Without the cache (lock held elsewhere): the whole source, redacted. */
async function fullRedaction(sourcePath: string): Promise<CacheUpdate> {
  const buf = await fsp.readFile(sourcePath);
  const { complete, tail } = splitTail(buf);
  return {
    outputPath: '',
    outputBytes: 0,
    appended: redactJsonl(complete.toString('utf8')),
    tail: tail.length > 0 ? redactJsonl(tail.toString('utf8')) : '',
    sourceBytes: buf.length,
    newBytes: buf.length,
    rebuilt: true,
    cached: false,
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
  await fsp.mkdir(opts.cacheDir, { recursive: true });
  if (!(await acquireLock(paths.lock))) return fullRedaction(opts.sourcePath);
  try {
    return await updateLocked(opts, paths);
  } finally {
    await fsp.rm(paths.lock, { force: true });
  }
}

async function updateLocked(opts: IncrementalOptions, paths: { output: string; cursor: string }): Promise<CacheUpdate> {
  const src = await fsp.open(opts.sourcePath, 'r');
  try {
    const size = (await src.stat()).size;
    let start = 0;
    let outBytes = 0;
    const cur = await readCursor(paths.cursor);
    if (cur !== null && cur.engine === ENGINE_ID && cur.source === opts.sourcePath && cur.offset <= size) {
      const headEnd = Math.min(cur.offset, HASH_SPAN);
      const anchorStart = Math.max(0, cur.offset - HASH_SPAN);
      let outOk = false;
      try {
        const out = await fsp.open(paths.output, 'r+');
        try {
          const outSize = (await out.stat()).size;
          if (outSize >= cur.outBytes && (await hashSpan(out, Math.max(0, cur.outBytes - HASH_SPAN), cur.outBytes)) === cur.outTailHash) {
            if (outSize > cur.outBytes) await out.truncate(cur.outBytes);
            outOk = true;
          }
        } finally {
          await out.close();
        }
      } catch {
        outOk = false;
      }
      if (
        outOk &&
        (await hashSpan(src, 0, headEnd)) === cur.headHash &&
        (await hashSpan(src, anchorStart, cur.offset)) === cur.anchorHash
      ) {
        start = cur.offset;
        outBytes = cur.outBytes;
      }
    }
    const rebuilt = start === 0;
    const fresh = await readAt(src, start, size - start);
    const { complete, tail } = splitTail(fresh);
    const appended = complete.length > 0 ? redactJsonl(complete.toString('utf8')) : '';
    const tailText = tail.length > 0 ? redactJsonl(tail.toString('utf8')) : '';
    const offset = start + complete.length;

    if (rebuilt || complete.length > 0) {
      const appendedBuf = Buffer.from(appended, 'utf8');
      if (rebuilt) {
        await writeAtomic(paths.output, appended);
      } else {
        const out = await fsp.open(paths.output, 'r+');
        try {
          await out.write(appendedBuf, 0, appendedBuf.length, outBytes);
        } finally {
          await out.close();
        }
      }
      const newOutBytes = outBytes + appendedBuf.length;
      let outTailHash: string;
      if (appendedBuf.length >= HASH_SPAN || newOutBytes === appendedBuf.length) {
        outTailHash = sha(appendedBuf.subarray(Math.max(0, appendedBuf.length - HASH_SPAN)));
      } else {
        const out = await fsp.open(paths.output, 'r');
        try {
          outTailHash = await hashSpan(out, Math.max(0, newOutBytes - HASH_SPAN), newOutBytes);
        } finally {
          await out.close();
        }
      }
      const cursor: Cursor = {
        v: 1,
        engine: ENGINE_ID,
        source: opts.sourcePath,
        offset,
        outBytes: newOutBytes,
        headHash: await hashSpan(src, 0, Math.min(offset, HASH_SPAN)),
        anchorHash: await hashSpan(src, Math.max(0, offset - HASH_SPAN), offset),
        outTailHash,
      };
      await writeAtomic(paths.cursor, JSON.stringify(cursor) + '\n');
      outBytes = newOutBytes;
    }
    return {
      outputPath: paths.output,
      outputBytes: outBytes,
      appended,
      tail: tailText,
      sourceBytes: size,
      newBytes: size - start,
      rebuilt,
      cached: true,
    };
  } finally {
    await src.close();
  }
}

/**
 * The whole redacted transcript, redacting only source lines not seen
 * before (see the file comment for the cache layout and guarantees).
 */
export async function redactJsonlFileIncremental(opts: IncrementalOptions): Promise<IncrementalResult> {
  const u = await updateRedactionCache(opts);
  let text: string;
  if (!u.cached || u.rebuilt) {
    text = u.appended + u.tail;
  } else {
    const prior = u.outputBytes - Buffer.byteLength(u.appended, 'utf8');
    let before = '';
    if (prior > 0) {
      const out = await fsp.open(u.outputPath, 'r');
      try {
        before = (await readAt(out, 0, prior)).toString('utf8');
      } finally {
        await out.close();
      }
    }
    text = before + u.appended + u.tail;
  }
  return { text, sourceBytes: u.sourceBytes, newBytes: u.newBytes, rebuilt: u.rebuilt };
}
