/**
 * SPEC-2 §E.2 (issue 18): 20 clones of one bare remote push at the same
 * moment, each with three new commits linking three new checkpoints. After
 * that one round every checkpoint a trailer names is on the remote, every
 * person's push succeeded, and the remote passes `git fsck`. (Measured
 * before backoff: 17 of 20 clones' checkpoints only arrived on their next push.)
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { cleanupAll } from '../helpers/repo.js';
import { bundleScript } from '../helpers/bundle.js';
import { bareRemote, checkpointsOn, clone, enabled, run, META } from '../sync/team-helpers.js';
import { count } from './helpers.js';

afterAll(cleanupAll);

const CLONES = 20;
const EACH = 3;

describe('concurrent pushers', () => {
  it(`${CLONES} clones pushing at once: every checkpoint lands on the remote in that one round`, async () => {
    const seeder = await bundleScript('test/helpers/team-seeder.ts');
    const remote = bareRemote();
    const clones = Array.from({ length: CLONES }, (_, i) => {
      const c = enabled(clone(remote, `c${i}`));
      c.git(['checkout', '-q', '-b', `feature-${i}`]);
      const s = spawnSync(process.execPath, [seeder, c.dir, String(EACH), `c${i}`], { env: c.env, encoding: 'utf8' });
      expect(s.status, s.stderr).toBe(0);
      return { repo: c, ids: s.stdout.split('\n').filter((l) => l !== ''), branch: `feature-${i}` };
    });
    const results = await Promise.all(clones.map((c) => run(c.repo, 'git', ['push', '-q', 'origin', c.branch])));
    count('races', CLONES);
    results.forEach((r, i) => expect(r.status, `clone ${i}: ${r.stderr}`).toBe(0));
    // every person's branch arrived
    for (const c of clones) expect(remote.git(['rev-parse', `refs/heads/${c.branch}`]).trim()).toBe(c.repo.git(['rev-parse', 'HEAD']).trim());
    // every trailer pushed names a checkpoint on the remote, after this one round
    const onRemote = new Set(checkpointsOn(remote));
    const named = clones.flatMap((c) =>
      c.repo
        .git(['log', '--format=%(trailers:key=Entire-Checkpoint,valueonly)', `origin/main..${c.branch}`])
        .split('\n')
        .filter((l) => l !== ''),
    );
    expect(named).toHaveLength(CLONES * EACH);
    expect(named.filter((id) => !onRemote.has(id))).toEqual([]);
    expect(onRemote.size).toBe(CLONES * EACH);
    // no warnings: nobody gave up
    for (const r of results) expect(r.stderr).not.toMatch(/\[entire\].*(fail|could not)/i);
    const fsck = remote.gitResult(['fsck', '--no-progress', '--strict']);
    expect(fsck.status, fsck.stderr + fsck.stdout).toBe(0);
    expect(remote.git(['rev-list', '--count', META]).trim()).not.toBe('0');
  });
});
