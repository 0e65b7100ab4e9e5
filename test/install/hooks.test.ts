/**
 * Installed git hooks at work: husky (SPEC §11.3), linked worktrees (§11.4)
 * and fail-open when the CLI is missing or crashing (§11.6, P4).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { makeRepo, cleanupAll, tempDir, type TempRepo } from '../helpers/repo.js';
import { FakeClaude } from '../helpers/agent.js';
import { cliCopy, entireOnPath, gitPath, pathWithoutEntire } from './util.js';

afterAll(() => cleanupAll());

const HOOKS = ['prepare-commit-msg', 'commit-msg', 'post-commit', 'pre-push'];

function trailerId(message: string): string | null {
  return /^Entire-Checkpoint: ([0-9a-f]{12})$/m.exec(message)?.[1] ?? null;
}

function checkpointFiles(r: TempRepo, id: string, cwd?: string): string[] {
  return r
    .git(['ls-tree', '-r', '--name-only', 'entire/checkpoints/v1', '--', `${id.slice(0, 2)}/${id.slice(2)}`], { cwd })
    .split('\n')
    .filter((l) => l !== '');
}

/** A session whose turn wrote `file` (so the next commit of it qualifies). */
function agentTurn(r: TempRepo, file: string, opts: { cwd?: string } = {}): FakeClaude {
  const agent = new FakeClaude(r, undefined, opts);
  agent.sessionStart();
  agent.prompt(`create ${file}`);
  agent.write(file, `made by the agent: ${file}\n`);
  const stop = agent.stop();
  expect(stop.status, stop.stderr).toBe(0);
  return agent;
}

describe('husky (core.hooksPath=.husky, SPEC §8.11, §11.3)', () => {
  it('appends a marked block to the existing .husky/post-commit, which still runs; entire (on PATH) checkpoints the commit', () => {
    const r = makeRepo();
    const marker = join(r.dir, '..', 'husky-marker');
    const original = `#!/usr/bin/env sh\necho ran >> "${marker}"\n`;
    mkdirSync(join(r.dir, '.husky'));
    writeFileSync(join(r.dir, '.husky', 'post-commit'), original);
    chmodSync(join(r.dir, '.husky', 'post-commit'), 0o755);
    r.git(['config', 'core.hooksPath', '.husky']);

    const en = r.entire(['enable']);
    expect(en.status, en.stderr).toBe(0);
    const text = readFileSync(join(r.dir, '.husky', 'post-commit'), 'utf8');
    expect(text.startsWith(original)).toBe(true);
    expect(text).toContain('# Entire CLI hooks');
    expect(text).toContain('# end Entire CLI hooks');
    // shared with teammates: no absolute path of this machine
    expect(text).not.toContain(r.dir);
    expect(text).not.toContain(process.execPath);
    for (const h of HOOKS) expect(existsSync(join(r.dir, '.husky', h)), h).toBe(true);
    expect(existsSync(join(r.dir, '.git', 'hooks', 'post-commit'))).toBe(false);

    // enabling again changes nothing (the block is not appended twice)
    expect(r.entire(['enable']).status).toBe(0);
    expect(readFileSync(join(r.dir, '.husky', 'post-commit'), 'utf8')).toBe(text);

    const bin = entireOnPath();
    const env = { PATH: `${bin}:${process.env['PATH']}` };
    agentTurn(r, 'a.txt');
    r.git(['add', 'a.txt']);
    const c = r.gitResult(['commit', '-m', 'agent work'], { env });
    expect(c.status, c.stderr).toBe(0);
    expect(readFileSync(marker, 'utf8')).toBe('ran\n');
    const id = trailerId(r.git(['log', '-1', '--format=%B']));
    expect(id).not.toBeNull();
    expect(checkpointFiles(r, id!)).toContain(`${id!.slice(0, 2)}/${id!.slice(2)}/0/full.jsonl`);

    // without entire on PATH the husky file still runs the user's part and git proceeds
    r.write('b.txt', 'b\n');
    r.git(['add', 'b.txt']);
    const c2 = r.gitResult(['commit', '-m', 'no entire'], { env: { PATH: pathWithoutEntire() } });
    expect(c2.status, c2.stderr).toBe(0);
    expect(readFileSync(marker, 'utf8')).toBe('ran\nran\n');
  });

  it('disable --uninstall removes exactly the block and keeps the husky file', () => {
    const r = makeRepo();
    const original = '#!/usr/bin/env sh\necho hi\n';
    mkdirSync(join(r.dir, '.husky'));
    writeFileSync(join(r.dir, '.husky', 'post-commit'), original);
    r.git(['config', 'core.hooksPath', '.husky']);
    expect(r.entire(['enable']).status).toBe(0);
    expect(r.entire(['disable', '--uninstall', '--force']).status).toBe(0);
    expect(readFileSync(join(r.dir, '.husky', 'post-commit'), 'utf8')).toBe(original);
    // files we created only for the block are gone
    expect(existsSync(join(r.dir, '.husky', 'pre-push'))).toBe(false);
  });
});

describe('linked worktree (SPEC §8.11, §11.4)', () => {
  it('enable from a linked worktree installs where git runs hooks there, and a commit there is checkpointed', () => {
    const r = makeRepo();
    const wt = join(tempDir('entire-wt-'), 'wt');
    r.git(['worktree', 'add', '-q', '-b', 'feature', wt]);
    const en = r.entire(['enable'], { cwd: wt });
    expect(en.status, en.stderr).toBe(0);
    const hooksDir = gitPath(r, 'hooks', wt);
    expect(en.stdout).toContain(hooksDir);
    for (const h of HOOKS) expect(readFileSync(join(hooksDir, h), 'utf8'), h).toContain('# Entire CLI hooks');

    agentTurn(r, 'w.txt', { cwd: wt });
    r.git(['add', 'w.txt'], { cwd: wt });
    const c = r.gitResult(['commit', '-m', 'from the worktree'], { cwd: wt });
    expect(c.status, c.stderr).toBe(0);
    const id = trailerId(r.git(['log', '-1', '--format=%B'], { cwd: wt }));
    expect(id).not.toBeNull();
    const files = checkpointFiles(r, id!, wt);
    expect(files).toContain(`${id!.slice(0, 2)}/${id!.slice(2)}/0/metadata.json`);
    const meta = JSON.parse(r.git(['show', `entire/checkpoints/v1:${id!.slice(0, 2)}/${id!.slice(2)}/0/metadata.json`], { cwd: wt })) as {
      files_touched: string[];
      branch: string;
    };
    expect(meta.files_touched).toEqual(['w.txt']);
    expect(meta.branch).toBe('feature');
  });
});

describe('fail-open (SPEC §8.11, §11.6, P4)', () => {
  /** A live session with a qualifying file, hooks recording a CLI copy that `breakIt` then breaks. */
  function setup(breakIt: (copy: { root: string; cli: string }) => void): TempRepo {
    const r = makeRepo();
    const copy = cliCopy();
    // install from the copy, so the per-machine hooks record its (soon broken) package
    const installed = spawnSync(process.execPath, [copy.cli, 'enable'], { cwd: r.dir, env: r.env, encoding: 'utf8' });
    expect(installed.status, installed.stderr).toBe(0);
    expect(readFileSync(join(gitPath(r, 'hooks'), 'post-commit'), 'utf8')).toContain(`entire_pkg='${copy.root}'`);
    agentTurn(r, 'a.txt');
    breakIt(copy);
    r.git(['add', 'a.txt']);
    return r;
  }

  function commitAndCheck(r: TempRepo, env: Record<string, string>, maxLines: number): string {
    const before = r.git(['rev-parse', 'HEAD']).trim();
    const c = r.gitResult(['commit', '-m', 'still commits'], { env });
    expect(c.status, c.stderr).toBe(0);
    expect(r.git(['rev-parse', 'HEAD']).trim()).not.toBe(before);
    expect(r.git(['log', '-1', '--format=%s']).trim()).toBe('still commits');
    const ours = c.stderr.split('\n').filter((l) => l.trim() !== '');
    expect(ours.length, c.stderr).toBeLessThanOrEqual(maxLines);
    return c.stderr;
  }

  it('entire absent from PATH and the recorded CLI gone: the commit succeeds with one line per hook', () => {
    const r = setup((copy) => rmSync(copy.root, { recursive: true, force: true }));
    const stderr = commitAndCheck(r, { PATH: pathWithoutEntire() }, 3);
    expect(stderr).toContain("[entire] 'entire' not found; skipping Entire prepare-commit-msg hook");
  });

  it('an `entire` on PATH that exits 1: the commit succeeds, commit-msg included', () => {
    const calls = join(tempDir('entire-calls-'), 'calls');
    const bin = entireOnPath(`#!/bin/sh\necho "$*" >> "${calls}"\necho "entire crashed" >&2\nexit 1\n`);
    const r = setup((copy) => rmSync(copy.root, { recursive: true, force: true }));
    commitAndCheck(r, { PATH: pathWithoutEntire([bin]) }, 3);
    const called = readFileSync(calls, 'utf8');
    expect(called).toContain('hooks git prepare-commit-msg');
    expect(called).toContain('hooks git commit-msg');
    expect(called).toContain('hooks git post-commit');
  });

  it('a recorded CLI that crashes on start: the commit succeeds with ≤ 1 line per hook', () => {
    const r = setup((copy) => writeFileSync(join(copy.root, 'dist', 'entire.cjs'), 'throw new Error("broken build")\n'));
    const stderr = commitAndCheck(r, { PATH: pathWithoutEntire() }, 3);
    expect(stderr).not.toContain('    at ');
  });
});
