/**
 * Issue 14, case 10 (SPEC-2 §A.12, A13): a basic-auth curl command and a
 * low-entropy password assignment go through capture (prompt, tool input,
 * tool output), a mid-turn commit, finalize and a push; neither secret is in
 * any object of either repository.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { cleanupAll, makeRepo, type TempRepo } from '../helpers/repo.js';
import { FakeClaude } from '../helpers/agent.js';
import { enabledRepo } from '../e2e/helpers.js';

afterAll(cleanupAll);

function objects(dir: string, env: NodeJS.ProcessEnv): string {
  const res = spawnSync('git', ['cat-file', '--batch-all-objects', '--batch', '--unordered'], { cwd: dir, env, maxBuffer: 1 << 30 });
  expect(res.status).toBe(0);
  return (res.stdout as Buffer).toString('utf8');
}

describe('case 10: new credential forms never reach git (A13)', () => {
  it('curl -u admin:<password> and DB_PASSWORD=<words> are redacted in every stored copy', () => {
    const r: TempRepo = enabledRepo();
    const remote = makeRepo({ bare: true });
    r.git(['remote', 'add', 'origin', remote.dir]);
    const agent = new FakeClaude(r);
    const curl = 'curl -u admin:S3cretPassw0rd https://api.example.com/v1/items';
    const env = 'DB_PASSWORD=correct-horse-battery-staple';
    agent.sessionStart();
    agent.prompt(`deploy with ${curl} and export ${env}`);
    agent.bash(curl, `{"ok":true}`);
    agent.bash(`echo ${env} >> .env.example`, '');
    agent.write('deploy.sh', '#!/bin/sh\necho deploy\n');
    r.git(['add', 'deploy.sh']);
    expect(r.gitResult(['commit', '-q', '-m', 'deploy script']).status).toBe(0);
    agent.say(`Done. I ran ${curl} and set ${env}.`);
    expect(agent.stop().status).toBe(0);
    const push = r.gitResult(['push', '-q', 'origin', 'main']);
    expect(push.status, push.stderr).toBe(0);
    for (const [what, dir] of [
      ['local', r.dir],
      ['remote', remote.dir],
    ] as const) {
      const all = objects(dir, r.env);
      expect(all, `${what}: no checkpoint stored`).toContain('Entire-Checkpoint');
      expect(all, what).not.toContain('S3cretPassw0rd');
      expect(all, what).not.toContain('correct-horse-battery-staple');
    }
  });
});

describe('pushing everything (SPEC-2 §A.12)', () => {
  it('git push --all warns that shadow branches go too; a push by name does not', () => {
    const r: TempRepo = enabledRepo();
    const remote = makeRepo({ bare: true });
    r.git(['remote', 'add', 'origin', remote.dir]);
    const agent = new FakeClaude(r);
    agent.sessionStart();
    agent.prompt('write w.txt');
    agent.write('w.txt', 'work in progress\n');
    expect(agent.stop().status).toBe(0);
    expect(r.git(['for-each-ref', '--format=%(refname)', 'refs/heads/entire/'])).toMatch(/refs\/heads\/entire\/[0-9a-f]{7}-[0-9a-f]{6}/);
    const byName = r.gitResult(['push', 'origin', 'main']);
    expect(byName.status, byName.stderr).toBe(0);
    expect(byName.stderr).not.toContain('shadow branches');
    const all = r.gitResult(['push', '--all', 'origin']);
    expect(all.status, all.stderr).toBe(0);
    expect(all.stderr).toContain("[entire] warning: this push sends every local branch, including Entire's shadow branches");
  });
});
