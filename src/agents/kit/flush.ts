/**
 * Turn-end flush wait (SPEC §6.2 step 1, SPEC-2 §B.4). The agent may still be
 * appending the turn's last lines when its turn-end hook starts. Each agent
 * says how to recognise a flushed transcript (`isFlushed`, usually: its last
 * answer on disk equals the one the hook payload carries); this module does
 * the polling: checked once at hook start (flushed → no wait at all), then
 * every 25 ms until flushed or, when the agent cannot tell, until the size
 * has been stable for the settle time. Always capped.
 */
import { closeSync } from 'node:fs';
import { openTranscript } from '../../trust/transcript-file.js';
import type { FlushResult } from '../types.js';
import { readAt } from '../../fs-read.js';

export const DEFAULT_STOP_WAIT_MS = 3000;
export const POLL_INTERVAL_MS = 25;
export const DEFAULT_SETTLE_MS = 300;
export const TAIL_BYTES = 64 * 1024;

/** The cap from `ENTIRE_STOP_WAIT_MS` (milliseconds; `0` = no wait; default 3000). */
export function stopWaitCapFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env['ENTIRE_STOP_WAIT_MS'];
  if (raw === undefined || raw.trim() === '') return DEFAULT_STOP_WAIT_MS;
  const n = Number(raw.trim());
  return Number.isFinite(n) && n >= 0 ? Math.floor(n) : DEFAULT_STOP_WAIT_MS;
}

/** Size and last `maxBytes` of a file; size -1 when it does not exist. */
export function readTail(path: string, maxBytes = TAIL_BYTES): { size: number; tail: string; whole: boolean } {
  let fd: number;
  let size: number;
  try {
    const o = openTranscript(path); // a FIFO or device named as the transcript never blocks (SPEC-2 §A.5)
    if (o === null) return { size: -1, tail: '', whole: true };
    ({ fd, size } = o);
  } catch {
    return { size: -1, tail: '', whole: true };
  }
  try {
    const len = Math.min(size, maxBytes);
    return { size, tail: readAt(fd, size - len, len).toString('utf8'), whole: len === size };
  } catch {
    return { size: -1, tail: '', whole: true };
  } finally {
    closeSync(fd);
  }
}

/** What one look at the transcript says. */
export interface FlushProbe {
  /** File size, -1 when it does not exist. */
  size: number;
  /** The agent recognises its turn's end on disk. */
  flushed: boolean;
  /** False while the content is known to be incomplete (a size that stopped moving proves nothing). */
  mayStabilise?: boolean;
}

export interface FlushWaitOptions {
  /** Cap in ms; default from ENTIRE_STOP_WAIT_MS. */
  capMs?: number;
  /** How long the size must stay put when the agent cannot tell (default 300 ms). */
  settleMs?: number;
  /** One look at the file (never throws). Default: size only. */
  probe?: (path: string) => FlushProbe;
}

const sizeOnly = (path: string): FlushProbe => ({ size: readTail(path, 0).size, flushed: false });
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Poll until the transcript is flushed, its size settles, or the cap is
 * reached. Never throws.
 */
export async function waitForFlush(path: string, options: FlushWaitOptions = {}): Promise<FlushResult> {
  const cap = options.capMs ?? stopWaitCapFromEnv();
  if (!(cap > 0)) return { outcome: 'disabled', waitedMs: 0 };
  const probe = options.probe ?? sizeOnly;
  const settle = options.settleMs ?? DEFAULT_SETTLE_MS;
  const t0 = Date.now();
  let lastSize = Number.NaN;
  let stableSince = t0;
  for (;;) {
    const now = Date.now();
    let p: FlushProbe;
    try {
      p = probe(path);
    } catch {
      p = { size: -1, flushed: false };
    }
    if (p.flushed) return { outcome: 'flushed', waitedMs: now - t0 };
    if (p.size !== lastSize) {
      lastSize = p.size;
      stableSince = now;
    } else if (p.mayStabilise !== false && now - stableSince >= settle) {
      return { outcome: 'stable', waitedMs: now - t0 };
    }
    if (now - t0 >= cap) return { outcome: 'timeout', waitedMs: now - t0 };
    await sleep(Math.min(POLL_INTERVAL_MS, Math.max(1, cap - (now - t0))));
  }
}

/**
 * The probe of an agent whose turn-end payload carries its answer (SPEC-2 §B.4):
 * flushed once `lastAnswer` finds that text as the transcript tail's last answer.
 */
export function answerProbe(
  response: string | undefined,
  lastAnswer: (tail: string, startsAtFileStart: boolean) => string | undefined,
): (path: string) => FlushProbe {
  return (path) => {
    const r = readTail(path);
    if (r.size <= 0 || response === undefined || response.trim() === '') return { size: r.size, flushed: false };
    const text = lastAnswer(r.tail, r.whole);
    return { size: r.size, flushed: text !== undefined && sameAnswer(text, response) };
  };
}

/** Text equality for "the answer on disk is the one in the payload" (whitespace at the ends ignored). */
export function sameAnswer(onDisk: string, fromPayload: string | undefined): boolean {
  return fromPayload !== undefined && fromPayload.trim() !== '' && onDisk.trim() === fromPayload.trim();
}

/** Lines of a tail, last first; the first line is skipped unless the tail starts at byte 0 (it may be cut). */
export function* linesFromEnd(tail: string, startsAtFileStart: boolean): Generator<string> {
  let end = tail.endsWith('\n') ? tail.length - 1 : tail.length;
  while (end > 0) {
    const nl = tail.lastIndexOf('\n', end - 1);
    if (nl < 0) {
      if (startsAtFileStart) yield tail.slice(0, end);
      return;
    }
    yield tail.slice(nl + 1, end);
    end = nl;
  }
}
