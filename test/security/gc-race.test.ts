/**
 * Conformance A14 (issue 14 case 11): `git gc --prune=now` during turns and
 * commits. After `entire doctor --force` the metadata branch and every
 * trailer whose data survived resolve; the hooks never fail git. No timing
 * assertions: whether a gc wins a race in a given run is up to the scheduler.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeRepo, cleanupAll, fsck, type TempRepo } from '../helpers/repo.js';
import { FakeClaude } from '../helpers/agent.js';

afterAll(() => cleanupAll());

const META = 'refs/heads/entire/checkpoints/v1';

function enabledRepo(): TempRepo {
  const r = makeRepo();
  const res = r.entire(['enable']);
  expect(res.status, res.stderr).toBe(0);
  return r;
}

function noStackTrace(s: string | null | undefined): void {
  expect(s ?? '').not.toMatch(/\n\s+at /);
}

/** A turn writing `file`, then a person's commit of it: the commit and its trailer. */
function turnAndCommit(
  r: TempRepo,
  agent: FakeClaude,
  file: string,
  around: { between?: () => void; beforeGit?: () => void; afterGit?: () => void } = {},
): { id: string; sha: string } {
  const between = around.between ?? (() => {});
  const p = agent.prompt(`create ${file}`);
  expect(p.status).toBe(0);
  noStackTrace(p.stderr);
  between();
  agent.write(file, `${file}\n`);
  const s = agent.stop();
  expect(s.status).toBe(0);
  noStackTrace(s.stderr);
  between();
  around.beforeGit?.();
  try {
    r.git(['add', file]);
    const c = r.gitResult(['commit', '-m', `add ${file}`]);
    expect(c.status, c.stderr).toBe(0);
    noStackTrace(c.stderr);
  } finally {
    around.afterGit?.();
  }
  between();
  const id = /^Entire-Checkpoint: ([0-9a-f]{12})$/m.exec(r.git(['log', '-1', '--format=%B']))?.[1];
  expect(id, `${file}: the commit carries a trailer`).toBeDefined();
  return { id: id!, sha: r.git(['rev-parse', 'HEAD']).trim() };
}

/** doctor --force until it has nothing left to fix (at most three runs); then no ref or trailer problem is left. */
function repairAndCheck(r: TempRepo, commits: { id: string; sha: string }[]): void {
  for (let i = 0; i < 3; i++) {
    const res = r.entire(['doctor', '--force']);
    noStackTrace(res.stderr);
    expect(res.status, res.stdout + res.stderr).toBe(0);
    if (!/^\[fixed\]/m.test(res.stdout)) break;
  }
  const report = JSON.parse(r.entire(['doctor', '--json']).stdout) as { findings: { kind: string; detail: string }[] };
  expect(report.findings.filter((f) => f.kind !== 'orphan-shadow-branch')).toEqual([]);
  expect(r.git(['cat-file', '-t', META]).trim()).toBe('commit');
  for (const c of commits) {
    const e = r.entire(['explain', '--commit', c.sha, '--json']);
    noStackTrace(e.stderr);
    expect(e.status, `${c.id}: ${e.stderr}`).toBe(0);
    expect(e.stdout).toContain(c.id);
  }
  expect(fsck(r).ok, fsck(r).output).toBe(true);
}

describe('git gc --prune=now against the hooks (A14)', () => {
  it('gc --prune=now between every hook: every trailer resolves', () => {
    const r = enabledRepo();
    const agent = new FakeClaude(r);
    agent.sessionStart();
    const gc = () => {
      const g = r.gitResult(['gc', '--prune=now', '--quiet']);
      expect(g.status, g.stderr).toBe(0);
    };
    const commits = ['g1.txt', 'g2.txt', 'g3.txt'].map((f) => turnAndCommit(r, agent, f, { between: gc }));
    repairAndCheck(r, commits);
  });

  it('gc --prune=now looping while turns and commits run: after doctor --force the branch and every trailer resolve', async () => {
    const r = enabledRepo();
    const stop = join(r.dir, '.git', 'stop-gc-loop');
    // git itself is not safe against it: between writing a commit (or `git add`'s blobs) and
    // naming it, its own objects go. So the loop holds off from `git add` until git has moved
    // main; post-commit (which runs after that) and every agent hook race it.
    const pause = join(r.dir, '.git', 'pause-gc-loop');
    const paused = join(r.dir, '.git', 'gc-loop-paused');
    const counted = join(r.dir, '.git', 'gc-loop-rounds');
    const script = [
      'n=0',
      `while [ ! -f '${stop}' ]; do`,
      `  if [ -f '${pause}' ] && [ "$(git rev-parse -q --verify refs/heads/main)" = "$(cat '${pause}' 2>/dev/null)" ]; then touch '${paused}'; sleep 0.01; continue; fi`,
      `  rm -f '${paused}'`,
      `  git gc --prune=now --quiet 2>/dev/null; n=$((n+1)); echo $n > '${counted}'`,
      'done',
      'echo $n',
    ].join('\n');
    const loop = spawn('sh', ['-c', script], { cwd: r.dir, env: r.env, stdio: ['ignore', 'pipe', 'ignore'] });
    let rounds = '';
    loop.stdout.on('data', (d: Buffer) => (rounds += d.toString()));
    // 'close', not 'exit': the loop's last line (its round count) may still be in the pipe at exit
    const ended = new Promise<void>((resolve) => loop.on('close', () => resolve()));
    try {
      const agent = new FakeClaude(r);
      agent.sessionStart();
      const commits: { id: string; sha: string }[] = [];
      for (const f of ['l1.txt', 'l2.txt', 'l3.txt', 'l4.txt']) {
        commits.push(
          turnAndCommit(r, agent, f, {
            beforeGit: () => {
              rmSync(paused, { force: true });
              writeFileSync(pause, r.git(['rev-parse', 'refs/heads/main']).trim());
              // a gc already running finishes first
              for (let i = 0; i < 6000 && !existsSync(paused); i++) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
            },
            afterGit: () => rmSync(pause, { force: true }),
          }),
        );
      }
      // the race must have run: on a loaded machine the loop may not have finished a round yet
      rmSync(pause, { force: true });
      for (let i = 0; i < 6000 && !existsSync(counted); i++) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
      writeFileSync(stop, '');
      await ended;
      expect(Number(rounds.trim())).toBeGreaterThan(0);
      repairAndCheck(r, commits);
    } finally {
      writeFileSync(stop, '');
      await ended;
    }
  });
});
