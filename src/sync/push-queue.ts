/**
 * SPEC-3 §A.6: the checkpoint push queue, `<common-dir>/entire-checkpoint-push-queue.jsonl`,
 * the same file the Go CLI writes and drains, so either tool's queue is pushed
 * by the other. One compact `{"ref":"refs/entire/checkpoints/XX/<id>"}` per line,
 * mode 0600; changes happen under `entire-checkpoint-push-queue.lock` beside it,
 * and rewrites go to a temp file renamed over the queue.
 *
 * The file is local but another program writes it: every line is untrusted.
 * Reading is bounded (bytes and lines), and a line is a ref only when its
 * name passes the checkpoint-ref shape check (checkpointIdOfRef): anything
 * else (a ref outside the prefix, `+refs/…`, `..`, an option-looking string)
 * is skipped here and never reaches git's argv.
 */
import { closeSync, fstatSync, openSync, readSync, renameSync, writeFileSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkpointIdOfRef } from '../checkpoint/id.js';
import { acquireLockFile } from '../session/lock.js';
import { randomHex } from '../random.js';

export const PUSH_QUEUE_FILE = 'entire-checkpoint-push-queue.jsonl';
export const PUSH_QUEUE_LOCK = 'entire-checkpoint-push-queue.lock';
/** Lines read from the queue at most (the rest stays in the file, untouched). */
export const MAX_QUEUE_LINES = 100_000;
/** Bytes read from the queue at most (100,000 lines of ~80 bytes fit several times). */
export const MAX_QUEUE_BYTES = 32 * 1024 * 1024;
/** A queue line longer than this is not one of ours or Go's (a ref line is < 100 bytes). */
const MAX_LINE_CHARS = 1024;
/** Waiting for the queue lock (a hook: never long). */
const LOCK_WAIT_MS = 3_000;

export function pushQueuePath(commonDir: string): string {
  return join(commonDir, PUSH_QUEUE_FILE);
}

export interface PushQueue {
  /** Valid checkpoint refs, in queue order, each once. */
  refs: string[];
  /** Lines skipped as malformed (not JSON, no `ref`, a ref of the wrong shape). */
  skipped: number;
  /** Text past the line or byte cap: kept verbatim by rewrites, read by a later drain. */
  unread: string;
  /** The file is larger than MAX_QUEUE_BYTES: rewrites would lose its tail, so none happens. */
  oversized: boolean;
}

/** The ref a queue line names, or null when the line is malformed or names anything but a checkpoint ref. */
export function queueLineRef(line: string): string | null {
  if (line.length === 0 || line.length > MAX_LINE_CHARS) return null;
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return null;
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return null;
  const ref = (v as Record<string, unknown>)['ref'];
  return typeof ref === 'string' && checkpointIdOfRef(ref) !== null ? ref : null;
}

/** Parse queue text (exported for tests): valid refs once each, in order; lines past the cap are `unread`. */
export function parseQueue(text: string): Omit<PushQueue, 'oversized'> {
  const refs: string[] = [];
  const seen = new Set<string>();
  let skipped = 0;
  let pos = 0;
  let lines = 0;
  while (pos < text.length && lines < MAX_QUEUE_LINES) {
    const nl = text.indexOf('\n', pos);
    const end = nl === -1 ? text.length : nl;
    const line = text.slice(pos, end).replace(/\r$/, '').trim();
    pos = nl === -1 ? text.length : nl + 1;
    if (line === '') continue;
    lines++;
    const ref = queueLineRef(line);
    if (ref === null) skipped++;
    else if (!seen.has(ref)) {
      seen.add(ref);
      refs.push(ref);
    }
  }
  return { refs, skipped, unread: text.slice(pos) };
}

/** Read at most MAX_QUEUE_BYTES of the queue; an absent file is an empty queue. */
export function readPushQueue(commonDir: string): PushQueue {
  let fd: number;
  try {
    fd = openSync(pushQueuePath(commonDir), 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { refs: [], skipped: 0, unread: '', oversized: false };
    throw e;
  }
  try {
    const size = fstatSync(fd).size;
    const n = Math.min(size, MAX_QUEUE_BYTES);
    const buf = Buffer.alloc(n);
    let got = 0;
    while (got < n) {
      const r = readSync(fd, buf, got, n - got, got);
      if (r === 0) break;
      got += r;
    }
    let text = buf.subarray(0, got).toString('utf8');
    const oversized = size > MAX_QUEUE_BYTES;
    // a cut line is not a line: stop at the last newline read
    if (oversized) text = text.slice(0, text.lastIndexOf('\n') + 1);
    return { ...parseQueue(text), oversized };
  } finally {
    closeSync(fd);
  }
}

/** The queue line for `ref` (compact JSON, as Go writes it). */
function queueLine(ref: string): string {
  return JSON.stringify({ ref }) + '\n';
}

async function withQueueLock<T>(commonDir: string, fn: () => T | Promise<T>): Promise<T> {
  const lock = await acquireLockFile(join(commonDir, PUSH_QUEUE_LOCK), { waitMs: LOCK_WAIT_MS });
  try {
    return await fn();
  } finally {
    lock.release();
  }
}

/** Append checkpoint refs to the queue (a writer of refs calls this for each ref it writes). */
export async function appendToPushQueue(commonDir: string, refs: readonly string[]): Promise<void> {
  const valid = refs.filter((r) => checkpointIdOfRef(r) !== null);
  if (valid.length === 0) return;
  await withQueueLock(commonDir, () => {
    appendFileSync(pushQueuePath(commonDir), valid.map(queueLine).join(''), { mode: 0o600 });
  });
}

/**
 * Under the lock, re-read the queue (another tool may have appended since)
 * and rewrite it without the refs `leaves` says may go (asked per ref at
 * rewrite time, so a ref written again meanwhile stays). Malformed lines are
 * dropped; text past the read cap is kept verbatim. Returns the refs left queued.
 */
export async function rewritePushQueue(commonDir: string, leaves: (ref: string) => Promise<boolean>): Promise<number> {
  return withQueueLock(commonDir, async () => {
    const q = readPushQueue(commonDir);
    if (q.oversized) return q.refs.length;
    const kept: string[] = [];
    for (const ref of q.refs) if (!(await leaves(ref))) kept.push(ref);
    const path = pushQueuePath(commonDir);
    const tmp = `${path}.${process.pid}.${randomHex(4)}.tmp`;
    writeFileSync(tmp, kept.map(queueLine).join('') + q.unread, { mode: 0o600 });
    renameSync(tmp, path);
    return kept.length;
  });
}
