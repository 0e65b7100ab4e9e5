import { describe, it, expect, afterAll } from 'vitest';
import { chmodSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeRepo, cleanupAll } from '../helpers/repo.js';
import { withEnv } from '../helpers/env.js';
import { openRepo } from '../../src/git/repo.js';
import { changedBetween, differingFromCommit } from '../../src/strategy/head-diff.js';

afterAll(cleanupAll);

describe('paths that differ, without spawning git', () => {
  it('agrees with git diff-tree and git status on a few paths', async () => {
    const r = makeRepo();
    r.write('a.txt', 'a\n');
    r.write('b.sh', '#!/bin/sh\n');
    r.write('c.txt', 'c\n');
    r.write('dir/d.txt', 'd\n');
    const first = r.commitAll('base');
    r.write('a.txt', 'a2\n');
    chmodSync(join(r.dir, 'b.sh'), 0o755);
    rmSync(join(r.dir, 'c.txt'));
    r.write('new.txt', 'n\n');
    const second = r.commitAll('change');
    const repo = await withEnv(r.env, () => openRepo(r.dir));
    const paths = ['a.txt', 'b.sh', 'c.txt', 'dir/d.txt', 'new.txt', 'never.txt'];
    const changed = await withEnv(r.env, () => changedBetween(repo, first, second, paths));
    const gitChanged = r.git(['diff-tree', '-r', '--name-only', '--no-commit-id', first, second]).trim().split('\n');
    expect([...changed].sort()).toEqual(gitChanged.sort());
    // the work tree against HEAD
    r.write('a.txt', 'a3\n');
    rmSync(join(r.dir, 'dir/d.txt'));
    r.write('untracked.txt', 'u\n');
    symlinkSync('a.txt', join(r.dir, 'link'));
    chmodSync(join(r.dir, 'b.sh'), 0o644);
    const probe = ['a.txt', 'b.sh', 'dir/d.txt', 'new.txt', 'untracked.txt', 'link', 'never.txt'];
    const differing = await withEnv(r.env, () => differingFromCommit(repo, second, probe));
    expect([...differing].sort()).toEqual(['a.txt', 'b.sh', 'dir/d.txt', 'link', 'untracked.txt']);
    repo.objects.close();
  });

  it('trusts the index stat data only as git does: a same-size rewrite with the old mtime is still seen', async () => {
    const r = makeRepo();
    r.write('kept.txt', 'same bytes\n');
    r.write('sneaky.txt', 'original!\n');
    // let the index be written strictly after the files (not racily clean)
    await new Promise((res) => setTimeout(res, 20));
    const head = r.commitAll('base');
    const repo = await withEnv(r.env, () => openRepo(r.dir, { fast: true }));
    try {
      expect([...(await withEnv(r.env, () => differingFromCommit(repo, head, ['kept.txt', 'sneaky.txt'])))]).toEqual([]);
      const p = join(r.dir, 'sneaky.txt');
      const before = statSync(p);
      writeFileSync(p, 'modified!\n'); // same size
      utimesSync(p, before.atime, before.mtime); // mtime put back; ctime cannot be
      const d = await withEnv(r.env, () => differingFromCommit(repo, head, ['kept.txt', 'sneaky.txt']));
      expect([...d]).toEqual(['sneaky.txt']);
      expect(r.git(['status', '--porcelain']).trim()).toBe('M sneaky.txt');
    } finally {
      repo.objects.close();
    }
  });
});
