/**
 * Issue 14, case 5 (SPEC-2 §A.4, A11): a cloned repository commits
 * `.entire/tmp` (or `.entire/logs`, or the log file itself) as a symlink
 * pointing into the victim's home. Hooks must write nothing through it, and
 * `clean --force`, `reset --force`, `disable --uninstall --force` must touch
 * nothing outside the work tree.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { cleanupAll, makeRepo, type TempRepo } from '../helpers/repo.js';
import { FakeClaude } from '../helpers/agent.js';
import { expectHomeUnchanged, homeSnapshot } from './helpers.js';

afterAll(cleanupAll);

/** A repository whose committed `.entire/<what>` is a symlink to `target` (relative, as a clone would have it). */
function planted(what: string, target: (r: TempRepo) => string): TempRepo {
  const r = makeRepo();
  mkdirSync(join(r.home, '.ssh'), { recursive: true });
  writeFileSync(join(r.home, '.ssh', 'id_ed25519'), 'PRIVATE KEY\n');
  writeFileSync(join(r.home, '.ssh', 'authorized_keys'), 'ssh-ed25519 AAAA mine\n');
  writeFileSync(join(r.home, '.ssh', 'known_hosts'), 'github.com ssh-ed25519 AAAA\n');
  writeFileSync(join(r.home, '.bashrc'), 'echo original\n');
  const link = join(r.dir, '.entire', what);
  mkdirSync(join(link, '..'), { recursive: true });
  symlinkSync(relative(join(link, '..'), target(r)), link);
  r.git(['add', '-f', `.entire/${what}`]);
  r.git(['commit', '-q', '--no-verify', '-m', 'a repository with a planted link']);
  const en = r.entire(['enable']);
  expect(en.status, en.stderr).toBe(0);
  // old files, so `clean` would consider them
  for (const f of ['id_ed25519', 'authorized_keys', 'known_hosts']) utimesSync(join(r.home, '.ssh', f), new Date(2020, 0, 1), new Date(2020, 0, 1));
  return r;
}

function agentTurnAndCommit(r: TempRepo): FakeClaude {
  const agent = new FakeClaude(r);
  expect(agent.sessionStart().status).toBe(0);
  expect(agent.prompt('write a.txt').status).toBe(0);
  agent.write('a.txt', 'a\n');
  r.git(['add', 'a.txt']);
  expect(r.gitResult(['commit', '-q', '-m', 'agent commit mid-turn']).status).toBe(0);
  expect(agent.stop().status).toBe(0);
  return agent;
}

describe.each([
  ['tmp → ~/.ssh', 'tmp', (r: TempRepo) => join(r.home, '.ssh')],
  ['logs → ~/.ssh', 'logs', (r: TempRepo) => join(r.home, '.ssh')],
  ['logs/entire.log → ~/.bashrc', 'logs/entire.log', (r: TempRepo) => join(r.home, '.bashrc')],
  ['tmp/pre-prompt-<sid>.json → ~/.bashrc', 'tmp/transcript-x.json', (r: TempRepo) => join(r.home, '.bashrc')],
])('case 5: .entire/%s', (_name, what, target) => {
  it('hooks write nothing through it; the session is still recorded; the link is untouched', () => {
    const r = planted(what, target);
    const before = homeSnapshot(r);
    agentTurnAndCommit(r);
    expectHomeUnchanged(r, before);
    expect(lstatSync(join(r.dir, '.entire', what)).isSymbolicLink()).toBe(true);
    // the commit is still linked: writes into .git are unaffected
    expect(r.git(['log', '-1', '--format=%B'])).toMatch(/Entire-Checkpoint: [0-9a-f]{12}/);
  });

  it('clean --force, reset --force and disable --uninstall --force touch nothing outside the work tree', () => {
    const r = planted(what, target);
    agentTurnAndCommit(r);
    const before = homeSnapshot(r);
    for (const args of [['clean', '--force'], ['reset', '--force'], ['doctor', '--force'], ['disable', '--uninstall', '--force']]) {
      const res = r.entire(args);
      expect(res.stderr, args.join(' ')).not.toMatch(/^\s+at /m);
      expectHomeUnchanged(r, before);
    }
    for (const f of ['id_ed25519', 'authorized_keys', 'known_hosts']) expect(existsSync(join(r.home, '.ssh', f))).toBe(true);
    expect(readFileSync(join(r.home, '.bashrc'), 'utf8')).toBe('echo original\n');
  });
});

describe('case 5: doctor names an unsafe .entire directory', () => {
  it('reports unsafe-entire-dir for a symlinked .entire/tmp', () => {
    const r = planted('tmp', (x) => join(x.home, '.ssh'));
    const res = r.entire(['doctor']);
    expect(res.stdout + res.stderr).toContain('unsafe-entire-dir');
  });
});
