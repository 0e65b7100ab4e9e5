/** Shared setup for end-to-end capture-loop tests: an enabled repo and a scripted agent. */
import { expect } from 'vitest';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { makeRepo, fsck, type TempRepo } from '../helpers/repo.js';
import { FakeClaude } from '../helpers/agent.js';

export interface World {
  r: TempRepo;
  agent: FakeClaude;
}

export function enabledRepo(): TempRepo {
  const r = makeRepo();
  const res = r.entire(['enable']);
  expect(res.status, res.stderr).toBe(0);
  r.git(['add', '.entire/settings.json', '.entire/.gitignore', '.claude/settings.json']);
  r.git(['commit', '-q', '--no-verify', '-m', 'enable entire']);
  return r;
}

export function world(): World {
  const r = enabledRepo();
  return { r, agent: new FakeClaude(r) };
}

/** `git commit` through the installed hooks; HC = a person at a terminal (ENTIRE_TEST_TTY=1). */
export function commit(r: TempRepo, args: string[], opts: { tty?: boolean; env?: Record<string, string | undefined>; cwd?: string } = {}) {
  const res = r.gitResult(['commit', ...args], {
    cwd: opts.cwd,
    env: { ENTIRE_TEST_TTY: opts.tty ? '1' : '0', GIT_EDITOR: opts.env?.['GIT_EDITOR'] ?? 'true', ...opts.env },
  });
  return res;
}

export function headMessage(r: TempRepo, rev = 'HEAD', cwd?: string): string {
  const raw = r.git(['cat-file', 'commit', rev], { cwd });
  return raw.slice(raw.indexOf('\n\n') + 2);
}

export function trailerIds(message: string): string[] {
  return [...message.matchAll(/^Entire-Checkpoint: ([0-9a-f]{12})$/gm)].map((m) => m[1]!);
}

export function checkpointIds(r: TempRepo): string[] {
  const out = r.gitResult(['ls-tree', '-d', '--name-only', 'entire/checkpoints/v1']);
  if (out.status !== 0) return [];
  const ids: string[] = [];
  for (const shard of out.stdout.trim().split('\n').filter((s) => /^[0-9a-f]{2}$/.test(s))) {
    for (const rest of r.git(['ls-tree', '-d', '--name-only', `entire/checkpoints/v1:${shard}`]).trim().split('\n')) ids.push(shard + rest);
  }
  return ids.sort();
}

export function showCheckpointFile(r: TempRepo, id: string, path: string): string {
  return r.git(['show', `entire/checkpoints/v1:${id.slice(0, 2)}/${id.slice(2)}/${path}`]);
}

export function stateOf(r: TempRepo, sid: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(r.dir, '.git', 'entire-sessions', `${sid}.json`), 'utf8')) as Record<string, unknown>;
}

export function shadowBranches(r: TempRepo): string[] {
  return r
    .git(['for-each-ref', '--format=%(refname:short)', 'refs/heads/entire/'])
    .trim()
    .split('\n')
    .filter((b) => b !== '' && b !== 'entire/checkpoints/v1');
}

export function expectClean(r: TempRepo): void {
  const f = fsck(r);
  expect(f.ok, f.output).toBe(true);
  const dir = join(r.dir, '.git', 'entire-sessions');
  if (existsSync(dir)) {
    for (const n of readdirSync(dir)) {
      expect(n.endsWith('.tmp'), `leftover ${n}`).toBe(false);
      expect(n.endsWith('.lock'), `leftover ${n}`).toBe(false);
      if (n.endsWith('.json')) JSON.parse(readFileSync(join(dir, n), 'utf8'));
    }
  }
}
