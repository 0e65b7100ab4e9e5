/**
 * Shared checks for the stress suite (docs/reliability.md): the invariants
 * that must hold after a crash, a race or bad input.
 */
import { expect } from 'vitest';
import { appendFileSync, existsSync, lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import type { SpawnSyncReturns } from 'node:child_process';
import { fsck, type TempRepo } from '../helpers/repo.js';
import { checkpointIds, trailerIds } from '../e2e/helpers.js';

export type CountKind = 'fault points' | 'races' | 'bad inputs' | 'secrets planted' | 'fuzz runs';

/** Record what a test tried; test/stress/counts-setup.ts prints the totals. */
export function count(kind: CountKind, n = 1): void {
  const dir = process.env['ENTIRE_STRESS_COUNTS_DIR'];
  if (!dir) return;
  appendFileSync(join(dir, `${process.pid}.tsv`), `${kind}\t${n}\n`);
}

export const METADATA = 'refs/heads/entire/checkpoints/v1';

export function refOid(r: TempRepo, ref: string, cwd?: string): string | null {
  const res = r.gitResult(['rev-parse', '-q', '--verify', `${ref}^{commit}`], { cwd });
  return res.status === 0 ? res.stdout.trim() : null;
}

/** The metadata branch moved only forward: `old` is an ancestor of (or equal to) the tip. */
export function expectFastForward(r: TempRepo, old: string | null): void {
  if (old === null) return;
  const tip = refOid(r, METADATA);
  expect(tip, 'metadata branch vanished').not.toBeNull();
  const res = r.gitResult(['merge-base', '--is-ancestor', old, tip!]);
  expect(res.status, `metadata branch is not a fast-forward of ${old}`).toBe(0);
}

/** Every state and side file parses; returns the parsed states by sid. */
export function statesParse(r: TempRepo): Map<string, Record<string, unknown>> {
  const dir = join(r.git(['rev-parse', '--path-format=absolute', '--git-common-dir']).trim(), 'entire-sessions');
  const out = new Map<string, Record<string, unknown>>();
  if (!existsSync(dir)) return out;
  for (const n of readdirSync(dir)) {
    if (!n.endsWith('.json')) continue;
    const text = readFileSync(join(dir, n), 'utf8');
    let v: Record<string, unknown>;
    try {
      v = JSON.parse(text) as Record<string, unknown>;
    } catch (e) {
      throw new Error(`state file ${n} does not parse: ${(e as Error).message}`);
    }
    if (!n.includes('.pending-')) out.set(n.slice(0, -5), v);
  }
  return out;
}

/** Leftover `*.tmp` / `*.lock` files in the sessions dir. */
export function leftovers(r: TempRepo): string[] {
  const dir = join(r.git(['rev-parse', '--path-format=absolute', '--git-common-dir']).trim(), 'entire-sessions');
  if (!existsSync(dir)) return [];
  const names = [...readdirSync(dir), ...(existsSync(join(dir, '.index')) ? readdirSync(join(dir, '.index')).map((n) => `.index/${n}`) : [])];
  return names.filter((n) => n.endsWith('.tmp') || n.endsWith('.lock') || n.endsWith('.takeover'));
}

export function expectFsck(r: TempRepo): void {
  const f = fsck(r);
  expect(f.ok, f.output).toBe(true);
}

/** User commits (every branch but ours) and the checkpoint IDs their final trailer blocks name. */
export function userTrailers(r: TempRepo): { commit: string; ids: string[] }[] {
  const out = r.git(['log', '--format=%H%x01%B%x02', '--exclude=entire/*', '--branches']);
  return out
    .split('\x02')
    .map((s) => s.replace(/^\n/, ''))
    .filter((s) => s.includes('\x01'))
    .map((s) => {
      const [commit, body] = s.split('\x01');
      return { commit: commit!, ids: trailerIds(body!) };
    });
}

/** P1: every Entire-Checkpoint trailer on the user's branches names a checkpoint. */
export function expectTrailersResolve(r: TempRepo): string[] {
  const have = new Set(checkpointIds(r));
  const ids: string[] = [];
  for (const c of userTrailers(r)) {
    for (const id of c.ids) {
      expect(have.has(id), `trailer ${id} of ${c.commit.slice(0, 7)} has no checkpoint`).toBe(true);
      ids.push(id);
    }
  }
  return ids;
}

/** A hook's process result: exit 0, ≤ 1 stderr line that is not a stack trace. */
export function expectHookOk(res: SpawnSyncReturns<string | Buffer>, what: string): void {
  expect(res.error, `${what}: spawn error`).toBeUndefined();
  expect(res.status, `${what}: exit status (stderr ${String(res.stderr)})`).toBe(0);
  expectQuiet(String(res.stderr ?? ''), what, 1);
}

export function expectQuiet(stderr: string, what: string, maxLines: number): void {
  const lines = stderr.split('\n').filter((l) => l.trim() !== '');
  expect(lines.filter((l) => /^\s+at /.test(l)), `${what}: stack trace on stderr:\n${stderr}`).toEqual([]);
  expect(lines.length, `${what}: too much on stderr:\n${stderr.slice(0, 2000)}`).toBeLessThanOrEqual(maxLines);
}

export function logLines(r: TempRepo, cwd = r.dir): Record<string, unknown>[] {
  const p = join(cwd, '.entire', 'logs', 'entire.log');
  if (!existsSync(p)) return [];
  return readFileSync(p, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/**
 * A fingerprint of every file under `root` (path → type:size:sha256), skipping
 * the directories the tool may write (`.git/`, `.entire/`) and `skip` paths.
 */
export function snapshot(root: string, skip: (rel: string) => boolean = () => false): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string) => {
    const abs = rel ? join(root, rel) : root;
    let names: string[];
    try {
      names = readdirSync(abs);
    } catch {
      return;
    }
    for (const n of names) {
      const r = rel ? `${rel}/${n}` : n;
      if (skip(r)) continue;
      const st = lstatSync(join(root, r));
      if (st.isDirectory()) {
        out.set(r + '/', 'dir');
        walk(r);
      } else if (st.isSymbolicLink()) out.set(r, 'link:' + readlinkSync(join(root, r)));
      else out.set(r, `file:${st.size}:${st.mode.toString(8)}:${createHash('sha256').update(readFileSync(join(root, r))).digest('hex')}`);
    }
  };
  walk('');
  return out;
}

export function diffSnapshots(a: Map<string, string>, b: Map<string, string>): string[] {
  const d: string[] = [];
  for (const [k, v] of a) if (b.get(k) !== v) d.push(b.has(k) ? `changed ${k}` : `removed ${k}`);
  for (const k of b.keys()) if (!a.has(k)) d.push(`added ${k}`);
  return d;
}

/** Environment that arms one fault point, and a check that the process really died there. */
export function armFault(r: TempRepo, point: string): { env: Record<string, string>; fired: () => boolean } {
  const file = join(dirname(r.dir), `fault-fired-${Math.random().toString(36).slice(2)}`);
  return {
    env: { ENTIRE_TEST_FAULT: point, ENTIRE_TEST_FAULT_FIRED: file },
    fired: () => existsSync(file) && readFileSync(file, 'utf8').includes(point),
  };
}

/** After the next hooks ran: no lock (or takeover guard) is left; a `*.tmp` of the killed process may be (`entire clean` removes it). */
export function expectNoLocks(r: TempRepo): void {
  expect(leftovers(r).filter((n) => !n.endsWith('.tmp')), 'a lock of the killed process was never taken over').toEqual([]);
}
