/**
 * Team sync on push (SPEC §6.9; checklist §11.33, §11.34): two clones and a
 * bare remote on this machine, real `git push` running our pre-push hook.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeRepo, cleanupAll, tempDir, testEnv, repoAt, type TempRepo } from '../helpers/repo.js';
import { FakeClaude } from '../helpers/agent.js';
import { bundleScript } from '../helpers/bundle.js';

afterAll(() => cleanupAll());

const META = 'entire/checkpoints/v1';

/** A bare remote with one commit on main. */
function bareRemote(): TempRepo {
  const remote = makeRepo({ bare: true });
  const seed = makeRepo();
  seed.git(['push', '-q', remote.dir, 'main']);
  return remote;
}

function clone(remote: TempRepo, name: string): TempRepo {
  const base = tempDir(`entire-clone-${name}-`);
  const home = join(base, 'home');
  mkdirSync(home);
  const env = testEnv(home);
  const dir = join(base, name);
  spawnSync('git', ['clone', '-q', remote.dir, dir], { env, encoding: 'utf8' });
  return repoAt(dir, home, env);
}

function enabled(r: TempRepo, ...args: string[]): TempRepo {
  const res = r.entire(['enable', ...args]);
  expect(res.status, res.stderr).toBe(0);
  return r;
}

/** One agent turn writing `file`, committed on `branch`; returns the checkpoint id. */
function checkpointedCommit(r: TempRepo, branch: string, file: string): string {
  r.git(['checkout', '-q', '-b', branch]);
  const agent = new FakeClaude(r);
  agent.sessionStart();
  agent.prompt(`please create ${file}`);
  agent.write(file, `${file} from ${branch}\n`);
  expect(agent.stop().status).toBe(0);
  r.git(['add', file]);
  const c = r.gitResult(['commit', '-m', `add ${file}`]);
  expect(c.status, c.stderr).toBe(0);
  const id = /^Entire-Checkpoint: ([0-9a-f]{12})$/m.exec(r.git(['log', '-1', '--format=%B']))?.[1];
  expect(id).toBeDefined();
  return id!;
}

function remoteCheckpoints(remote: TempRepo): string[] {
  const r = remote.gitResult(['ls-tree', '-d', '--name-only', '-r', META]);
  if (r.status !== 0) return [];
  return r.stdout
    .split('\n')
    .filter((p) => /^[0-9a-f]{2}\/[0-9a-f]{10}$/.test(p))
    .map((p) => p.replace('/', ''))
    .sort();
}

function pushAsync(r: TempRepo, args: string[]): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('git', args, { cwd: r.dir, env: r.env });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (status) => resolve({ status, stderr }));
  });
}

describe('pre-push team sync', () => {
  it('mirrors the branch; a rejected second pusher merges (2 parents) and the remote holds every checkpoint (§11.33)', () => {
    const remote = bareRemote();
    const a = enabled(clone(remote, 'a'));
    const b = enabled(clone(remote, 'b'));
    const idA = checkpointedCommit(a, 'feature-a', 'a.txt');
    const idB = checkpointedCommit(b, 'feature-b', 'b.txt');

    const pa = a.gitResult(['push', '-q', 'origin', 'feature-a']);
    expect(pa.status, pa.stderr).toBe(0);
    expect(pa.stderr).toContain('[entire] Pushing session logs to origin...');
    expect(remote.git(['rev-parse', META]).trim()).toBe(a.git(['rev-parse', META]).trim());

    // b's own metadata branch started from its own root: its push is rejected, fetched and merged
    const pb = b.gitResult(['push', '-q', 'origin', 'feature-b']);
    expect(pb.status, pb.stderr).toBe(0);
    expect(remote.git(['rev-parse', 'refs/heads/feature-b']).trim()).toBe(b.git(['rev-parse', 'HEAD']).trim());
    const tip = b.git(['log', '-1', '--format=%s%x00%P', META]).trim().split('\0');
    expect(tip[0]).toBe('Merge remote session logs');
    expect(tip[1]!.split(' ')).toHaveLength(2);
    expect(remote.git(['rev-parse', META]).trim()).toBe(b.git(['rev-parse', META]).trim());
    expect(remoteCheckpoints(remote)).toEqual([idA, idB].sort());
    for (const id of [idA, idB]) {
      const md = JSON.parse(remote.git(['show', `${META}:${id.slice(0, 2)}/${id.slice(2)}/0/metadata.json`])) as { checkpoint_id: string };
      expect(md.checkpoint_id).toBe(id);
    }
    expect(remote.gitResult(['fsck', '--no-progress']).status).toBe(0);
  });

  it('two clones pushing at the same time both end up on the remote', async () => {
    const remote = bareRemote();
    const a = enabled(clone(remote, 'a'));
    const b = enabled(clone(remote, 'b'));
    const idA = checkpointedCommit(a, 'feature-a', 'a.txt');
    const idB = checkpointedCommit(b, 'feature-b', 'b.txt');
    const [ra, rb] = await Promise.all([pushAsync(a, ['push', '-q', 'origin', 'feature-a']), pushAsync(b, ['push', '-q', 'origin', 'feature-b'])]);
    expect(ra.status, ra.stderr).toBe(0);
    expect(rb.status, rb.stderr).toBe(0);
    // whichever lost the race merged; a later push by the other one settles it either way
    let ids = remoteCheckpoints(remote);
    if (ids.length < 2) {
      for (const r of [a, b]) expect(r.gitResult(['push', '-q', 'origin', 'HEAD']).status).toBe(0);
      ids = remoteCheckpoints(remote);
    }
    expect(ids).toEqual([idA, idB].sort());
    const merges = remote.git(['log', '--merges', '--format=%s', META]).split('\n').filter((l) => l !== '');
    expect(merges.length).toBeGreaterThanOrEqual(1);
    expect(merges.every((m) => m === 'Merge remote session logs')).toBe(true);
  });

  it('push_sessions:false (enable --skip-push-sessions): the branch never reaches the remote', () => {
    const remote = bareRemote();
    const a = enabled(clone(remote, 'a'), '--skip-push-sessions');
    checkpointedCommit(a, 'feature-a', 'a.txt');
    const p = a.gitResult(['push', '-q', 'origin', 'feature-a']);
    expect(p.status, p.stderr).toBe(0);
    expect(p.stderr).not.toContain('Pushing session logs');
    expect(remote.gitResult(['rev-parse', '--verify', '-q', `refs/heads/${META}`]).status).not.toBe(0);
    expect(remote.git(['rev-parse', 'refs/heads/feature-a']).trim()).toBe(a.git(['rev-parse', 'HEAD']).trim());
  });

  it('a remote that rejects the metadata push: the person’s push still succeeds, with one warning line', () => {
    const remote = bareRemote();
    const hook = join(remote.dir, 'hooks', 'pre-receive');
    writeFileSync(hook, '#!/bin/sh\nwhile read old new ref; do case "$ref" in refs/heads/entire/*) echo "no entire refs here" >&2; exit 1;; esac; done\nexit 0\n');
    chmodSync(hook, 0o755);
    const a = enabled(clone(remote, 'a'));
    checkpointedCommit(a, 'feature-a', 'a.txt');
    const p = a.gitResult(['push', '-q', 'origin', 'feature-a']);
    expect(p.status, p.stderr).toBe(0);
    expect(remote.git(['rev-parse', 'refs/heads/feature-a']).trim()).toBe(a.git(['rev-parse', 'HEAD']).trim());
    expect(remote.gitResult(['rev-parse', '--verify', '-q', `refs/heads/${META}`]).status).not.toBe(0);
    const warnings = p.stderr.split('\n').filter((l) => l.startsWith('[entire]') && !l.includes('Pushing session logs'));
    expect(warnings.length, p.stderr).toBeLessThanOrEqual(1);
  });

  it('a diverged remote sharing a checkpoint id with another session keeps both sessions (§11.34)', async () => {
    const writer = await bundleScript('test/helpers/store-writer.ts');
    const remote = bareRemote();
    const a = enabled(clone(remote, 'a'));
    const b = enabled(clone(remote, 'b'));
    const shared = 'c0ffee123456';
    const write = (r: TempRepo, sid: string) => {
      const w = spawnSync(process.execPath, [writer, r.dir, shared, sid], { env: r.env, encoding: 'utf8' });
      expect(w.status, w.stderr).toBe(0);
    };
    write(a, 'session-of-a');
    write(b, 'session-of-b');
    expect(a.gitResult(['push', '-q', 'origin', 'main']).status).toBe(0);
    b.write('x.txt', 'x\n');
    b.commitAll('b work');
    b.git(['checkout', '-q', '-b', 'b-work']);
    const pb = b.gitResult(['push', '-q', 'origin', 'b-work']);
    expect(pb.status, pb.stderr).toBe(0);

    const dir = `${shared.slice(0, 2)}/${shared.slice(2)}`;
    const tip = remote.git(['log', '-1', '--format=%s%x00%P', META]).trim().split('\0');
    expect(tip[0]).toBe('Merge remote session logs');
    expect(tip[1]!.split(' ')).toHaveLength(2);
    const sids = [0, 1].map(
      (n) => (JSON.parse(remote.git(['show', `${META}:${dir}/${n}/metadata.json`])) as { session_id: string }).session_id,
    );
    expect(sids.sort()).toEqual(['session-of-a', 'session-of-b']);
    const root = JSON.parse(remote.git(['show', `${META}:${dir}/metadata.json`])) as { sessions: { metadata: string }[] };
    expect(root.sessions.map((s) => s.metadata).sort()).toEqual([`/${dir}/0/metadata.json`, `/${dir}/1/metadata.json`]);
  });
});

describe('pushing the metadata branch by hand', () => {
  it('`git push origin <branch> entire/checkpoints/v1` still succeeds', () => {
    const remote = bareRemote();
    const a = enabled(clone(remote, 'a'));
    checkpointedCommit(a, 'feature-a', 'a.txt');
    // the hook pushes the branch first; git's own update of the same ref must not then fail the person's push
    const p = a.gitResult(['push', '-q', 'origin', 'feature-a', META]);
    expect(p.status, p.stderr).toBe(0);
    expect(remote.git(['rev-parse', META]).trim()).toBe(a.git(['rev-parse', META]).trim());
  });
});

describe('a third clone reads what both pushed', () => {
  let remote: TempRepo;
  let commits: { sha: string; id: string }[] = [];
  let c: TempRepo;

  beforeAll(() => {
    remote = bareRemote();
    const a = enabled(clone(remote, 'a'));
    const b = enabled(clone(remote, 'b'));
    const idA = checkpointedCommit(a, 'feature-a', 'a.txt');
    const idB = checkpointedCommit(b, 'feature-b', 'b.txt');
    expect(a.gitResult(['push', '-q', 'origin', 'feature-a']).status).toBe(0);
    expect(b.gitResult(['push', '-q', 'origin', 'feature-b']).status).toBe(0);
    commits = [
      { sha: a.git(['rev-parse', 'HEAD']).trim(), id: idA },
      { sha: b.git(['rev-parse', 'HEAD']).trim(), id: idB },
    ];
    c = clone(remote, 'c');
  });

  it('the clone gets the metadata branch with both checkpoints', () => {
    const ids = c
      .git(['ls-tree', '-d', '-r', '--name-only', `origin/${META}`])
      .split('\n')
      .filter((p) => /^[0-9a-f]{2}\/[0-9a-f]{10}$/.test(p))
      .map((p) => p.replace('/', ''));
    expect(ids.sort()).toEqual(commits.map((x) => x.id).sort());
  });

  it('`entire explain --commit <sha>` shows each checkpoint', () => {
    for (const { sha, id } of commits) {
      const r = c.entire(['explain', '--commit', sha]);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toContain(id);
    }
  });
});
