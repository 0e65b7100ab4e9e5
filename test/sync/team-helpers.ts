/** Clones of one bare remote, each with `entire enable`, making checkpointed commits through real hooks. */
import { expect } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { makeRepo, tempDir, testEnv, repoAt, type TempRepo } from '../helpers/repo.js';
import { FakeClaude } from '../helpers/agent.js';

export const META = 'entire/checkpoints/v1';

/** A bare remote with one commit on main. */
export function bareRemote(): TempRepo {
  const remote = makeRepo({ bare: true });
  const seed = makeRepo();
  seed.git(['push', '-q', remote.dir, 'main']);
  return remote;
}

export function clone(remote: TempRepo, name: string): TempRepo {
  const base = tempDir(`entire-clone-${name}-`);
  const home = join(base, 'home');
  mkdirSync(home);
  const env = testEnv(home);
  const dir = join(base, name);
  const r = spawnSync('git', ['clone', '-q', remote.dir, dir], { env, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return repoAt(dir, home, env);
}

export function enabled(r: TempRepo, ...args: string[]): TempRepo {
  const res = r.entire(['enable', ...args]);
  expect(res.status, res.stderr).toBe(0);
  return r;
}

/** One agent turn writing `file`, committed on the current branch (created when `branch` is given); returns the checkpoint id. */
export function checkpointedCommit(r: TempRepo, branch: string | null, file: string): string {
  if (branch) r.git(['checkout', '-q', '-b', branch]);
  const agent = new FakeClaude(r);
  agent.sessionStart();
  agent.prompt(`please create ${file}`);
  agent.write(file, `${file} from ${branch ?? 'here'}\n`);
  expect(agent.stop().status).toBe(0);
  r.git(['add', file]);
  const c = r.gitResult(['commit', '-m', `add ${file}`]);
  expect(c.status, c.stderr).toBe(0);
  const id = /^Entire-Checkpoint: ([0-9a-f]{12})$/m.exec(r.git(['log', '-1', '--format=%B']))?.[1];
  expect(id).toBeDefined();
  return id!;
}

/** The checkpoint ids on `ref` of `repo` (default: the metadata branch). */
export function checkpointsOn(repo: TempRepo, ref = META): string[] {
  const r = repo.gitResult(['ls-tree', '-d', '--name-only', '-r', ref]);
  if (r.status !== 0) return [];
  return r.stdout
    .split('\n')
    .filter((p) => /^[0-9a-f]{2}\/[0-9a-f]{10}$/.test(p))
    .map((p) => p.replace('/', ''))
    .sort();
}

export function run(r: TempRepo, cmd: string, args: string[]): Promise<{ status: number | null; stderr: string; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: r.dir, env: r.env });
    let stderr = '';
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (status) => resolve({ status, stderr, stdout }));
  });
}

/** Every object id in a repository's object store (loose and packed). */
export function objectList(repo: TempRepo): Set<string> {
  const out = repo.git(['cat-file', '--batch-all-objects', '--batch-check=%(objectname)']);
  return new Set(out.split('\n').filter((l) => l !== ''));
}

/** Object ids reachable from `revs` (commits, trees, blobs). */
export function reachable(repo: TempRepo, revs: string[]): Set<string> {
  const out = repo.git(['rev-list', '--objects', ...revs]);
  return new Set(out.split('\n').filter((l) => l !== '').map((l) => l.split(' ')[0]!));
}
