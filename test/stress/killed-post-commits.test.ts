/**
 * Issue 25 point 10: post-commit hooks SIGKILLed from outside at 50–700 ms,
 * eight commits in a row, on a loaded machine (a CPU hog beside it: two
 * bounded busy-loop child processes). The next normal commit must write its
 * own checkpoint, and every trailer of the eight killed commits must resolve
 * (P1) once the next hooks ran. Looped: the failure was seen in 1 run in 4.
 * The cause, a kill inside the in-process ref transaction leaving
 * `<ref>.lock` behind, is shown deterministically in
 * test/e2e/killed-ref-lock.test.ts.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { cleanupAll, type TempRepo } from '../helpers/repo.js';
import { FakeClaude } from '../helpers/agent.js';
import { enabledRepo, headMessage, trailerIds, commit } from '../e2e/helpers.js';
import { count, expectTrailersResolve, expectFsck, statesParse, expectHookOk } from './helpers.js';

afterAll(cleanupAll);

const ROUNDS = Number(process.env['ENTIRE_KILLED_ROUNDS'] ?? '2');
const KILLS = 8;
/** How long the hog may run at most (it is killed at the end of each round anyway). */
const HOG_MS = Number(process.env['ENTIRE_KILLED_HOG_MS'] ?? '60000');

/** Busy loops bounded in time (they end by themselves even if the test dies). */
function cpuHog(ms: number): ChildProcess[] {
  if (ms <= 0) return [];
  return [0, 1].map(() => spawn(process.execPath, ['-e', `const end = Date.now() + ${ms}; while (Date.now() < end) {}`], { stdio: 'ignore' }));
}

function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

/** The post-commit CLI processes below `root` (git commit's pid). */
function postCommitHooks(root: number): number[] {
  const out: number[] = [];
  for (const n of readdirSync('/proc')) {
    if (!/^\d+$/.test(n)) continue;
    let cmd: string;
    try {
      cmd = readFileSync(`/proc/${n}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (!cmd.includes('entire.cjs\0hooks\0git\0post-commit')) continue;
    let p: number | null = Number(n);
    for (let i = 0; i < 6 && p !== null && p > 1; i++) {
      if (p === root) {
        out.push(Number(n));
        break;
      }
      p = parentOf(p);
    }
  }
  return out;
}

/** `git commit` whose post-commit is SIGKILLed `killAfterMs` after it started; whether it was killed. */
async function commitKillingPostCommit(r: TempRepo, message: string, killAfterMs: number): Promise<boolean> {
  const git = spawn('git', ['commit', '-q', '-m', message], { cwd: r.dir, env: { ...r.env, ENTIRE_TEST_TTY: '0', GIT_EDITOR: 'true' }, stdio: 'ignore' });
  const exited = new Promise<number | null>((res) => git.on('exit', (code) => res(code)));
  let done = false;
  void exited.then(() => (done = true));
  let killed = false;
  let seenAt: number | null = null;
  while (!done) {
    const hooks = postCommitHooks(git.pid!);
    if (hooks.length > 0) {
      seenAt ??= Date.now();
      if (Date.now() - seenAt >= killAfterMs) {
        for (const p of hooks) {
          try {
            process.kill(p, 'SIGKILL');
            killed = true;
          } catch {
            /* already gone */
          }
        }
      }
    }
    await new Promise((res) => setTimeout(res, 5));
  }
  expect(await exited, `git commit ${message}`).toBe(0);
  return killed;
}

describe('post-commits SIGKILLed at 50–700 ms beside a CPU hog (issue 25 point 10)', () => {
  for (let round = 0; round < ROUNDS; round++) {
    it(`round ${round + 1}: eight killed post-commits, then a normal commit: every trailer resolves`, async () => {
      const r = enabledRepo();
      const agent = new FakeClaude(r);
      const hog = cpuHog(HOG_MS);
      try {
        let kills = 0;
        for (let i = 0; i < KILLS; i++) {
          agent.prompt(`write f${i}`);
          agent.write(`f${i}.go`, `package f${i}\n`);
          agent.say(`wrote f${i} MARKER-${i}`);
          expectHookOk(agent.stop(), `stop ${i}`);
          r.git(['add', `f${i}.go`]);
          const delay = 50 + Math.round((i * 650) / (KILLS - 1));
          if (await commitKillingPostCommit(r, `f${i}`, delay)) kills++;
          count('fault points');
        }
        expect(kills, 'no post-commit was killed').toBeGreaterThan(0);
        console.log(`killed-post-commits round ${round + 1}: ${kills} of ${KILLS} post-commits killed`);
        // the next normal commit (its agent turn first, as a person would)
        agent.prompt('write last');
        agent.write('last.go', 'package last\n');
        agent.say('wrote last MARKER-LAST');
        expectHookOk(agent.stop(), 'last stop');
        r.git(['add', 'last.go']);
        const res = commit(r, ['-m', 'last']);
        expect(res.status, res.stderr).toBe(0);
        const [lastId] = trailerIds(headMessage(r));
        expect(lastId, 'the normal commit got no trailer').toBeDefined();
        expectFsck(r);
        statesParse(r);
        expectTrailersResolve(r);
      } finally {
        for (const h of hog) h.kill('SIGKILL');
      }
    });
  }
});
