/**
 * The stateful execution contract, in numbers (SPEC-2 §F, issue 19): how many hook operations
 * finished work an earlier, interrupted or failed operation left pending (a pending
 * condensation written, a failed finalization retried, a stale commit intent recovered). Kept
 * in `.entire/tmp/resumed-work.json` (disposable bookkeeping, this worktree); increments from
 * racing hooks may be lost, never invented.
 */
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { confinedDirOrNull, writeFileIn } from '../trust/confined.js';

const FILE = 'resumed-work.json';
export type ResumedKind = 'condensations' | 'finalizations' | 'commit_intents';
export type ResumedCounts = Record<ResumedKind, number>;

const empty = (): ResumedCounts => ({ condensations: 0, finalizations: 0, commit_intents: 0 });

export function readResumedWork(root: string): ResumedCounts {
  const out = empty();
  try {
    const dir = confinedDirOrNull(root, '.entire/tmp', { create: false });
    if (!dir) return out;
    const v = JSON.parse(readFileSync(join(dir, FILE), 'utf8')) as Record<string, unknown>;
    for (const k of Object.keys(out) as ResumedKind[]) {
      const n = v[k];
      if (typeof n === 'number' && Number.isSafeInteger(n) && n > 0) out[k] = n;
    }
  } catch {
    /* none yet, or unreadable: start from zero */
  }
  return out;
}

/** Count one resumed operation; never throws (bookkeeping must not fail a hook). */
export function noteResumedWork(root: string, kind: ResumedKind): void {
  try {
    const counts = readResumedWork(root);
    counts[kind]++;
    const dir = confinedDirOrNull(root, '.entire/tmp', { create: true, mode: 0o750 });
    if (dir) writeFileIn(dir, FILE, JSON.stringify(counts) + '\n');
  } catch {
    /* an unsafe or unwritable .entire/tmp: not counted */
  }
}

export function totalResumed(c: ResumedCounts): number {
  return c.condensations + c.finalizations + c.commit_intents;
}
