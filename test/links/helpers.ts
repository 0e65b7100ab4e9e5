/** Shared checks for the links tests (SPEC-2 §D): explain's ids, notes, states. */
import { expect } from 'vitest';
import type { TempRepo } from '../helpers/repo.js';
import { stateOf } from '../e2e/helpers.js';

/** `entire explain --commit <rev> --json`: the ids of the checkpoints it shows. */
export function explainIds(r: TempRepo, rev: string): string[] {
  const res = r.entire(['explain', '--commit', rev, '--json']);
  expect(res.status, res.stderr).toBe(0);
  const doc = JSON.parse(res.stdout) as { checkpoints: { checkpoint_id: string }[] };
  return doc.checkpoints.map((c) => c.checkpoint_id).sort();
}

/** The ids `refs/notes/entire` lists for `rev` ([] without a note). */
export function noteIds(r: TempRepo, rev: string, ref = 'refs/notes/entire', gitDir?: string): string[] {
  const args = gitDir ? [`--git-dir=${gitDir}`] : [];
  const res = r.gitResult([...args, 'notes', `--ref=${ref}`, 'show', rev]);
  if (res.status !== 0) return [];
  return [...res.stdout.matchAll(/^Entire-Checkpoint: ([0-9a-f]{12})$/gm)].map((m) => m[1]!).sort();
}

export function head(r: TempRepo, rev = 'HEAD'): string {
  return r.git(['rev-parse', rev]).trim();
}

export function baseOf(r: TempRepo, sid: string): string {
  return stateOf(r, sid)['base_commit'] as string;
}

/** No `Entire-Checkpoint` trailer in the last `n` commits names a missing checkpoint. */
export function expectNoDanglingTrailer(r: TempRepo): void {
  const res = r.entire(['doctor', '--json']);
  const doc = JSON.parse(res.stdout) as { findings: { kind: string }[] };
  expect(doc.findings.filter((f) => f.kind === 'dangling-trailer')).toEqual([]);
}
