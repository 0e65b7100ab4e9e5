/**
 * Turn-end flush wait (SPEC §6.2 step 1). The agent may still be appending
 * the turn's last lines when its Stop hook starts: Claude writes a
 * `hook_progress` line naming our stop command while it runs the hook, so
 * seeing it (with a timestamp near our start) means the turn is on disk.
 * Otherwise we wait for the file size to settle; Gemini rewrites one JSON
 * document, so we wait until it parses. Always capped.
 */
import { closeSync } from 'node:fs';
import { openTranscript, readTranscriptFile } from '../trust/transcript-file.js';
import type { AgentKey, FlushResult } from './types.js';
import { readAt } from '../fs-read.js';

export const DEFAULT_STOP_WAIT_MS = 3000;
export const POLL_INTERVAL_MS = 50;
export const STABLE_FOR_MS = 500;
export const SENTINEL_WINDOW_MS = 2000;
export const TAIL_BYTES = 64 * 1024;

const SENTINELS = ['hooks claude-code stop', 'hooks claudecode stop'];
const TIMESTAMP_RE = /"timestamp"\s*:\s*"([^"]+)"/g;

/** The cap from `ENTIRE_STOP_WAIT_MS` (milliseconds; `0` = no wait; default 3000). */
export function stopWaitCapFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env['ENTIRE_STOP_WAIT_MS'];
  if (raw === undefined || raw.trim() === '') return DEFAULT_STOP_WAIT_MS;
  const n = Number(raw.trim());
  return Number.isFinite(n) && n >= 0 ? Math.floor(n) : DEFAULT_STOP_WAIT_MS;
}

function lineTimestamp(line: string): number | undefined {
  try {
    const v: unknown = JSON.parse(line);
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const ts = (v as Record<string, unknown>)['timestamp'];
      if (typeof ts === 'string') {
        const t = Date.parse(ts);
        if (!Number.isNaN(t)) return t;
      }
    }
  } catch {
    // a cut line at the start of the tail: fall back to its last "timestamp"
  }
  let last: string | undefined;
  for (const m of line.matchAll(TIMESTAMP_RE)) last = m[1];
  if (last === undefined) return undefined;
  const t = Date.parse(last);
  return Number.isNaN(t) ? undefined : t;
}

/**
 * True when `tail` (the end of a Claude transcript) has a line containing
 * `hooks claude-code stop` (or the legacy `hooks claudecode stop`) whose
 * `timestamp` is within ±`windowMs` of `startedAt` (epoch ms).
 */
export function hasStopSentinel(tail: string, startedAt: number, windowMs = SENTINEL_WINDOW_MS): boolean {
  for (const s of SENTINELS) {
    let i = tail.indexOf(s);
    while (i !== -1) {
      const ls = tail.lastIndexOf('\n', i) + 1;
      let le = tail.indexOf('\n', i);
      if (le === -1) le = tail.length;
      const t = lineTimestamp(tail.slice(ls, le));
      if (t !== undefined && Math.abs(t - startedAt) <= windowMs) return true;
      i = tail.indexOf(s, le);
    }
  }
  return false;
}

/** Size and last `maxBytes` of a file; size -1 when it does not exist. */
export function readTail(path: string, maxBytes = TAIL_BYTES): { size: number; tail: string } {
  let fd: number;
  let size: number;
  try {
    const o = openTranscript(path); // a FIFO or device named as the transcript never blocks (SPEC-2 §A.5)
    if (o === null) return { size: -1, tail: '' };
    ({ fd, size } = o);
  } catch {
    return { size: -1, tail: '' };
  }
  try {
    const len = Math.min(size, maxBytes);
    return { size, tail: readAt(fd, size - len, len).toString('utf8') };
  } catch {
    return { size: -1, tail: '' };
  } finally {
    closeSync(fd);
  }
}

function fileSize(path: string): number {
  try {
    return readTail(path, 0).size;
  } catch {
    return -1;
  }
}

function parses(path: string): boolean {
  try {
    JSON.parse(readTranscriptFile(path)?.toString('utf8') ?? '');
    return true;
  } catch {
    return false;
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export type FlushMode = 'claude' | 'jsonl' | 'json';

export interface FlushOptions {
  /** Hook start time, epoch ms. */
  startedAt: number;
  /** Cap in ms; default from ENTIRE_STOP_WAIT_MS. */
  capMs?: number;
  /** `claude`: sentinel or stable size; `jsonl`: stable size; `json`: parses (or stays missing). */
  mode?: FlushMode;
  /** Alternative to `mode`: claude-code → `claude`, gemini → `json`, cursor → `jsonl`. */
  agent?: AgentKey;
}

const MODE_OF_AGENT: Record<AgentKey, FlushMode> = { 'claude-code': 'claude', gemini: 'json', cursor: 'jsonl' };

/**
 * Poll every 50 ms until the transcript is flushed or the cap is reached.
 * Reads only the last 64 KB per poll for JSONL. Never throws.
 */
export async function waitForTranscriptFlush(path: string, options: FlushOptions): Promise<FlushResult> {
  const cap = options.capMs ?? stopWaitCapFromEnv();
  if (!(cap > 0)) return { outcome: 'disabled', waitedMs: 0 };
  const mode: FlushMode = options.mode ?? (options.agent !== undefined ? MODE_OF_AGENT[options.agent] : 'jsonl');
  const t0 = Date.now();
  let lastSize = Number.NaN;
  let stableSince = t0;
  for (;;) {
    const now = Date.now();
    let size: number;
    if (mode === 'claude') {
      const r = readTail(path);
      size = r.size;
      if (size > 0 && hasStopSentinel(r.tail, options.startedAt)) return { outcome: 'sentinel', waitedMs: now - t0 };
    } else if (mode === 'json') {
      size = fileSize(path);
      if (size >= 0 && parses(path)) return { outcome: 'parsed', waitedMs: now - t0 };
    } else {
      size = fileSize(path);
    }
    // JSON that does not parse is still being written: only a missing file may settle.
    const mayStabilise = mode !== 'json' || size === -1;
    if (size !== lastSize) {
      lastSize = size;
      stableSince = now;
    } else if (mayStabilise && now - stableSince >= STABLE_FOR_MS) {
      return { outcome: 'stable', waitedMs: now - t0 };
    }
    if (now - t0 >= cap) return { outcome: 'timeout', waitedMs: now - t0 };
    await sleep(Math.min(POLL_INTERVAL_MS, Math.max(1, cap - (now - t0))));
  }
}
