/**
 * Installed git hooks are stubs (SPEC §8.11, hooks/README.md): they record the package and
 * source its hooks/run.sh, so an upgrade of the package changes what installed hooks do; the
 * LIVE fast path starts no Node; a package that is gone leaves git working and the chained
 * hooks running; the package of an `entire` on PATH is found in npm's layouts. Hooks of the
 * older style, which inlined everything, are replaced by `enable` (and by the next agent turn)
 * and removed by `disable --uninstall`.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { appendFileSync, chmodSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { makeRepo, cleanupAll, tempDir, FIXTURES, PROJECT_ROOT, type TempRepo } from '../helpers/repo.js';
import { FakeClaude } from '../helpers/agent.js';
import { cliCopy, entireOnPath, gitPath, pathWithoutEntire } from './util.js';

afterAll(() => cleanupAll());

const HOOKS = ['prepare-commit-msg', 'commit-msg', 'post-commit', 'pre-push'];
const NOT_FOUND = (h: string) => `[entire] 'entire' not found; skipping Entire ${h} hook`;

/** `enable` run by the CLI at `cli` (so the per-machine hooks record its package). */
function enableWith(r: TempRepo, cli: string): void {
  const res = spawnSync(process.execPath, [cli, 'enable'], { cwd: r.dir, env: r.env, encoding: 'utf8' });
  expect(res.status, res.stderr).toBe(0);
}

/**
 * Replaces a package's CLI with one that only records how it was called (one line per call:
 * argv, then NODE_OPTIONS, ENTIRE_ORIG_NODE_OPTIONS and ENTIRE_GIT_PID), and returns the record's path.
 */
function recordCalls(pkgRoot: string): string {
  const calls = join(tempDir('entire-calls-'), 'calls');
  writeFileSync(
    join(pkgRoot, 'bin', 'entire.cjs'),
    `#!/usr/bin/env node\nrequire('fs').appendFileSync(${JSON.stringify(calls)}, JSON.stringify([process.argv.slice(2).join(' '), process.env.NODE_OPTIONS ?? null, process.env.ENTIRE_ORIG_NODE_OPTIONS ?? null, process.env.ENTIRE_GIT_PID ?? null]) + '\\n');\n`,
  );
  chmodSync(join(pkgRoot, 'bin', 'entire.cjs'), 0o755);
  return calls;
}

function calledHooks(calls: string): string[] {
  if (!existsSync(calls)) return [];
  const hooks = readFileSync(calls, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => (JSON.parse(l) as string[])[0]!.split(' ')[2]!);
  rmSync(calls);
  return hooks;
}

function commit(r: TempRepo, args: string[], env: Record<string, string> = {}) {
  const c = r.gitResult(['commit', '-q', ...args], { env });
  expect(c.status, c.stderr).toBe(0);
  return c;
}

function live(r: TempRepo): string {
  const dir = join(gitPath(r, 'entire-sessions'));
  mkdirSync(dir, { recursive: true });
  return join(dir, 'LIVE');
}

/** A foreign hook that logs its name and arguments into `log`, installed before `enable`. */
function foreignHook(r: TempRepo, hook: string, log: string, status = 0): void {
  const file = join(gitPath(r, 'hooks'), hook);
  writeFileSync(file, `#!/bin/sh\necho "${hook} $*" >> "${log}"\nexit ${status}\n`);
  chmodSync(file, 0o755);
}

/**
 * A copy of the package installed as npm lays it out, its CLI recording calls:
 * <prefix>/bin/entire → ../lib/node_modules/entire/…, or node_modules/.bin/entire → ../entire/….
 */
function npmLayout(layout: 'global' | 'local'): { bin: string; calls: string } {
  const base = tempDir('entire-npm-');
  const pkg = layout === 'global' ? join(base, 'lib', 'node_modules', 'entire') : join(base, 'node_modules', 'entire');
  const bin = layout === 'global' ? join(base, 'bin') : join(base, 'node_modules', '.bin');
  for (const d of ['bin', 'dist', 'hooks']) cpSync(join(PROJECT_ROOT, d), join(pkg, d), { recursive: true });
  mkdirSync(bin, { recursive: true });
  symlinkSync(layout === 'global' ? '../lib/node_modules/entire/bin/entire.cjs' : '../entire/bin/entire.cjs', join(bin, 'entire'));
  return { bin, calls: recordCalls(pkg) };
}

describe('installed hooks are stubs of the package', () => {
  it('each hook records node and the package, and holds none of the fast path, which is the package’s', () => {
    const r = makeRepo();
    expect(r.entire(['enable']).status).toBe(0);
    for (const h of HOOKS) {
      const text = readFileSync(join(gitPath(r, 'hooks'), h), 'utf8');
      const lines = text.split('\n');
      expect(lines.slice(0, 2)).toEqual(['#!/bin/sh', '# Entire CLI hooks']);
      expect(lines).toContain(`entire_stub=1 entire_hook=${h}`);
      expect(lines).toContain(`entire_node='${process.execPath}'`);
      expect(lines).toContain(`entire_pkg='${PROJECT_ROOT}'`);
      // the decision (LIVE marker, trailers, amend, intent) lives in hooks/run.sh
      for (const logic of ['LIVE', 'Entire-Checkpoint', 'entire-commit-intent', '/proc/']) expect(text, `${h}: ${logic}`).not.toContain(logic);
      // the line that sources the recorded runner comes before anything the fallback needs
      const source = lines.findIndex((l) => l.includes('command . "$entire_pkg/hooks/run.sh"; entire_done'));
      expect(source).toBeGreaterThan(0);
      expect(source).toBeLessThan(12);
      expect(lines.length).toBeLessThan(30);
    }
  });

  it('the fast path: Node starts only when a session is live, for a trailer, for --amend -m and for pre-push', () => {
    const remote = makeRepo({ bare: true });
    const r = makeRepo();
    r.git(['remote', 'add', 'origin', remote.dir]);
    const copy = cliCopy();
    enableWith(r, copy.cli);
    const calls = recordCalls(copy.root);

    r.write('a.txt', 'a\n');
    r.git(['add', 'a.txt']);
    commit(r, ['-m', 'nothing to do']);
    expect(calledHooks(calls)).toEqual([]);

    // a copied trailer must be seen by the CLI (prepare-commit-msg drops it; commit-msg checks)
    const msg = join(tempDir('entire-msg-'), 'msg');
    writeFileSync(msg, 'with a trailer\n\nEntire-Checkpoint: 0123456789ab\n');
    commit(r, ['--allow-empty', '-F', msg]);
    expect(calledHooks(calls)).toEqual(['prepare-commit-msg', 'commit-msg']);

    commit(r, ['--amend', '--allow-empty', '-m', 'reworded']);
    expect(calledHooks(calls)).toEqual(['prepare-commit-msg']);

    const marker = live(r);
    writeFileSync(marker, '');
    commit(r, ['--allow-empty', '-m', 'live'], { NODE_OPTIONS: '--no-deprecation' });
    const lines = readFileSync(calls, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as (string | null)[]);
    expect(lines.map((l) => l[0]!.split(' ').slice(0, 3).join(' '))).toEqual(['hooks git prepare-commit-msg', 'hooks git commit-msg', 'hooks git post-commit']);
    for (const [, nodeOptions, orig, gitPid] of lines) {
      expect(nodeOptions).toBeNull();
      expect(orig).toBe('--no-deprecation');
      expect(Number(gitPid)).toBeGreaterThan(1);
    }
    rmSync(calls);
    rmSync(marker);

    const push = r.gitResult(['push', '-q', 'origin', 'main']);
    expect(push.status, push.stderr).toBe(0);
    expect(calledHooks(calls)).toEqual(['pre-push']);
  });

  it('upgrading the package in place changes what installed hooks do; the hook files stay as they were', () => {
    const r = makeRepo();
    const copy = cliCopy();
    enableWith(r, copy.cli);
    const hooksDir = gitPath(r, 'hooks');
    const before = HOOKS.map((h) => readFileSync(join(hooksDir, h), 'utf8'));

    // the next version's runner: a new package in the same place, doing something new
    const seen = join(tempDir('entire-upgrade-'), 'seen');
    rmSync(copy.root, { recursive: true, force: true });
    for (const d of ['bin', 'dist', 'hooks']) cpSync(join(PROJECT_ROOT, d), join(copy.root, d), { recursive: true });
    appendFileSync(join(copy.root, 'hooks', 'run.sh'), `echo "$entire_hook" >> "${seen}"\n`);

    r.write('a.txt', 'a\n');
    r.git(['add', 'a.txt']);
    commit(r, ['-m', 'after the upgrade']);
    expect(readFileSync(seen, 'utf8')).toBe('prepare-commit-msg\ncommit-msg\npost-commit\n');
    expect(HOOKS.map((h) => readFileSync(join(hooksDir, h), 'utf8'))).toEqual(before);
  });

  it('a runner that does not parse (an upgrade cut short) cannot stop git, and chained hooks run', () => {
    const r = makeRepo();
    const log = join(tempDir('entire-chain-'), 'log');
    foreignHook(r, 'commit-msg', log);
    const copy = cliCopy();
    enableWith(r, copy.cli);
    writeFileSync(join(copy.root, 'hooks', 'run.sh'), 'if then fi (\n');
    r.write('a.txt', 'a\n');
    r.git(['add', 'a.txt']);
    commit(r, ['-m', 'still commits']);
    expect(r.git(['log', '-1', '--format=%s']).trim()).toBe('still commits');
    expect(readFileSync(log, 'utf8')).toMatch(/^commit-msg \S*COMMIT_EDITMSG\n$/);
  });
});

describe('the package is gone (SPEC §8.11 fail-open)', () => {
  it('commits go through with one line per hook, chained hooks keep running with their status', () => {
    const r = makeRepo();
    const log = join(tempDir('entire-chain-'), 'log');
    foreignHook(r, 'prepare-commit-msg', log);
    foreignHook(r, 'post-commit', log);
    const copy = cliCopy();
    enableWith(r, copy.cli);
    rmSync(copy.root, { recursive: true, force: true });

    r.write('a.txt', 'a\n');
    r.git(['add', 'a.txt']);
    const c = commit(r, ['-m', 'package gone'], { PATH: pathWithoutEntire() });
    expect(r.git(['log', '-1', '--format=%s']).trim()).toBe('package gone');
    expect(c.stderr.split('\n').filter((l) => l !== '')).toEqual(['prepare-commit-msg', 'commit-msg', 'post-commit'].map(NOT_FOUND));
    expect(readFileSync(log, 'utf8').split('\n').map((l) => l.split(' ')[0])).toEqual(['prepare-commit-msg', 'post-commit', '']);

    // a chained hook that fails still fails the commit (its status is kept)
    const refuse = join(gitPath(r, 'hooks'), 'commit-msg.pre-entire');
    writeFileSync(refuse, '#!/bin/sh\necho "team rule" >&2\nexit 1\n');
    chmodSync(refuse, 0o755);
    r.write('b.txt', 'b\n');
    r.git(['add', 'b.txt']);
    const refused = r.gitResult(['commit', '-q', '-m', 'refused'], { env: { PATH: pathWithoutEntire() } });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('team rule');
  });

  for (const layout of ['global', 'local'] as const) {
    it(`finds the package of the \`entire\` on PATH in npm's ${layout} layout, fast path included`, () => {
      const r = makeRepo();
      const gone = cliCopy();
      enableWith(r, gone.cli);
      rmSync(gone.root, { recursive: true, force: true });

      const { bin, calls } = npmLayout(layout);
      const env = { PATH: pathWithoutEntire([bin]) };

      r.write('a.txt', 'a\n');
      r.git(['add', 'a.txt']);
      const quiet = commit(r, ['-m', 'nothing to do'], env);
      expect(quiet.stderr).toBe('');
      expect(calledHooks(calls)).toEqual([]);
      writeFileSync(live(r), '');
      commit(r, ['--allow-empty', '-m', 'live'], env);
      expect(calledHooks(calls)).toEqual(['prepare-commit-msg', 'commit-msg', 'post-commit']);
    });
  }

  it('a committed hooks dir (core.hooksPath=.githooks) records no path of this machine and finds the package on PATH', () => {
    const r = makeRepo();
    r.git(['config', 'core.hooksPath', '.githooks']);
    expect(r.entire(['enable']).status).toBe(0);
    for (const h of HOOKS) {
      const text = readFileSync(join(r.dir, '.githooks', h), 'utf8');
      expect(text, h).toContain("entire_pkg=''");
      expect(text, h).not.toContain(PROJECT_ROOT);
      expect(text, h).not.toContain(process.execPath);
    }
    const { bin, calls } = npmLayout('global');
    const env = { PATH: pathWithoutEntire([bin]) };
    commit(r, ['--allow-empty', '-m', 'nothing to do'], env);
    expect(calledHooks(calls)).toEqual([]);
    writeFileSync(live(r), '');
    commit(r, ['--allow-empty', '-m', 'live'], env);
    expect(calledHooks(calls)).toEqual(['prepare-commit-msg', 'commit-msg', 'post-commit']);
  });

  it('an `entire` on PATH whose package cannot be found decides alone: it runs for every hook', () => {
    const r = makeRepo();
    const gone = cliCopy();
    enableWith(r, gone.cli);
    rmSync(gone.root, { recursive: true, force: true });
    const calls = join(tempDir('entire-calls-'), 'calls');
    const bin = entireOnPath(`#!/bin/sh\necho "$*" >> "${calls}"\n`);
    commit(r, ['--allow-empty', '-m', 'x'], { PATH: pathWithoutEntire([bin]) });
    const called = readFileSync(calls, 'utf8').split('\n').filter((l) => l !== '');
    expect(called.map((l) => l.split(' ').slice(0, 3).join(' '))).toEqual(['hooks git prepare-commit-msg', 'hooks git commit-msg', 'hooks git post-commit']);
  });
});

describe('hooks of the older, inlined style', () => {
  function plantInlined(r: TempRepo): string {
    const hooksDir = gitPath(r, 'hooks');
    for (const h of HOOKS) {
      cpSync(join(FIXTURES, 'hooks-inlined', h), join(hooksDir, h));
      chmodSync(join(hooksDir, h), 0o755);
    }
    return hooksDir;
  }

  it('doctor reports them; enable replaces them with stubs (no backup: they are ours); uninstall removes them', () => {
    const r = makeRepo();
    expect(r.entire(['enable']).status).toBe(0);
    const hooksDir = plantInlined(r);
    const log = join(tempDir('entire-chain-'), 'log');
    writeFileSync(join(hooksDir, 'post-commit.pre-entire'), `#!/bin/sh\necho chained >> "${log}"\n`);
    chmodSync(join(hooksDir, 'post-commit.pre-entire'), 0o755);

    const doc = r.entire(['doctor']);
    expect(doc.stdout).toContain('post-commit is of an older style that upgrades of entire do not reach');

    const en = r.entire(['enable']);
    expect(en.status, en.stderr).toBe(0);
    expect(en.stdout).toContain('✓ Git hooks installed in');
    expect(en.stderr).not.toContain('Backed up');
    for (const h of HOOKS) expect(readFileSync(join(hooksDir, h), 'utf8'), h).toContain(`entire_pkg='${PROJECT_ROOT}'`);
    expect(readdirSync(hooksDir).filter((n) => n.includes('.pre-entire'))).toEqual(['post-commit.pre-entire']);
    commit(r, ['--allow-empty', '-m', 'x']);
    expect(readFileSync(log, 'utf8')).toBe('chained\n');

    plantInlined(r);
    const un = r.entire(['disable', '--uninstall', '--force']);
    expect(un.status, un.stderr).toBe(0);
    expect(readdirSync(hooksDir).filter((n) => !n.endsWith('.sample')).sort()).toEqual(['post-commit']);
    expect(readFileSync(join(hooksDir, 'post-commit'), 'utf8')).toContain('echo chained');
  });

  it('the next agent turn rewrites them as stubs', () => {
    const r = makeRepo();
    expect(r.entire(['enable']).status).toBe(0);
    const hooksDir = plantInlined(r);
    const agent = new FakeClaude(r);
    agent.sessionStart();
    expect(agent.prompt('hello').status).toBe(0);
    for (const h of HOOKS) expect(readFileSync(join(hooksDir, h), 'utf8'), h).toContain('entire_stub=1');
  });

  it('husky: the inlined block is replaced by the stub block, the file’s own lines kept; uninstall removes it', () => {
    const r = makeRepo();
    mkdirSync(join(r.dir, '.husky'));
    cpSync(join(FIXTURES, 'hooks-inlined', 'husky-post-commit'), join(r.dir, '.husky', 'post-commit'));
    const mine = '#!/usr/bin/env sh\necho mine\n';
    writeFileSync(join(r.dir, '.husky', 'post-commit'), mine + readFileSync(join(r.dir, '.husky', 'post-commit'), 'utf8').replace(/^#!.*\n/, ''));
    r.git(['config', 'core.hooksPath', '.husky']);
    expect(r.entire(['enable']).status).toBe(0);
    const text = readFileSync(join(r.dir, '.husky', 'post-commit'), 'utf8');
    expect(text.startsWith(mine)).toBe(true);
    expect(text.match(/# Entire CLI hooks/g)).toHaveLength(1);
    expect(text).toContain('entire_stub=1 entire_hook=post-commit');
    expect(text).not.toContain('entire_cli=');
    expect(r.entire(['disable', '--uninstall', '--force']).status).toBe(0);
    expect(readFileSync(join(r.dir, '.husky', 'post-commit'), 'utf8')).toBe(mine);
  });
});
