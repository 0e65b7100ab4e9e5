import { describe, it, expect, afterAll } from 'vitest';
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { makeRepo, cleanupAll, tempDir, type TempRepo } from '../helpers/repo.js';
import { commonDir, head, writeState, snapshot } from './helpers.js';

afterAll(cleanupAll);

function stateFile(r: TempRepo, sid: string): string {
  return join(commonDir(r), 'entire-sessions', `${sid}.json`);
}

function branchExists(r: TempRepo, name: string): boolean {
  return r.gitResult(['rev-parse', '--verify', '-q', `refs/heads/${name}`]).status === 0;
}

/** A repo with an idle session on HEAD and its shadow branch. */
function setup(): { r: TempRepo; base: string; branch: string } {
  const r = makeRepo();
  const base = head(r);
  const branch = `entire/${base.slice(0, 7)}-e3b0c4`;
  writeState(commonDir(r), { session_id: 's-idle', base_commit: base, worktree_path: r.dir, phase: 'idle' });
  r.git(['branch', branch, 'HEAD']);
  return { r, base, branch };
}

describe('reset', () => {
  it('without a TTY and without --force: refuses, changes nothing', () => {
    const { r } = setup();
    const before = snapshot(r);
    const res = r.entire(['reset']);
    expect(res.status).toBe(1);
    expect(res.stderr).toBe('Error: reset requires --force when not interactive\n');
    expect(snapshot(r)).toEqual(before);
  });

  it('--force clears the sessions on HEAD and deletes the shadow branch', () => {
    const { r, branch } = setup();
    const res = r.entire(['reset', '--force']);
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout).toBe(`Cleared session state for s-idle\nDeleted shadow branch ${branch}\n`);
    expect(existsSync(stateFile(r, 's-idle'))).toBe(false);
    expect(branchExists(r, branch)).toBe(false);
  });

  it('a confirmation at the terminal replaces --force; "no" changes nothing', () => {
    const { r, branch } = setup();
    const before = snapshot(r);
    const no = r.entire(['reset'], { env: { ENTIRE_TEST_TTY: '1', ENTIRE_TEST_TTY_ANSWER: 'n' } });
    expect(no.status).toBe(0);
    expect(snapshot(r)).toEqual(before);
    const yes = r.entire(['reset'], { env: { ENTIRE_TEST_TTY: '1', ENTIRE_TEST_TTY_ANSWER: 'y' } });
    expect(yes.status, yes.stderr).toBe(0);
    expect(existsSync(stateFile(r, 's-idle'))).toBe(false);
    expect(branchExists(r, branch)).toBe(false);
  });

  it('refuses ACTIVE sessions without --force', () => {
    const { r, base, branch } = setup();
    writeState(commonDir(r), { session_id: 's-active', base_commit: base, worktree_path: r.dir, phase: 'active', agent_type: 'Claude Code' });
    const before = snapshot(r);
    const res = r.entire(['reset'], { env: { ENTIRE_TEST_TTY: '1', ENTIRE_TEST_TTY_ANSWER: 'y' } });
    expect(res.status).toBe(1);
    expect(res.stderr.split('\n')[0]).toBe('Active sessions detected on current HEAD:');
    expect(res.stderr).toContain('s-active');
    expect(snapshot(r)).toEqual(before);

    const forced = r.entire(['reset', '--force']);
    expect(forced.status, forced.stderr).toBe(0);
    expect(forced.stdout).toContain('Cleared session state for s-active');
    expect(forced.stdout).toContain('Cleared session state for s-idle');
    expect(branchExists(r, branch)).toBe(false);
  });

  it('keeps sessions on other bases and a branch a pending entry still names', () => {
    const { r, base, branch } = setup();
    const old = base;
    r.git(['commit', '-q', '--no-verify', '--allow-empty', '-m', 'second']);
    const now = head(r);
    const nowBranch = `entire/${now.slice(0, 7)}-e3b0c4`;
    writeState(commonDir(r), { session_id: 's-now', base_commit: now, worktree_path: r.dir, phase: 'idle' });
    r.git(['branch', nowBranch, 'HEAD']);
    // s-idle (on the old base) still has a pending condensation naming the new HEAD's branch
    writeState(commonDir(r), {
      session_id: 's-idle',
      base_commit: old,
      worktree_path: r.dir,
      phase: 'idle',
      pending_condensations: [
        { checkpoint_id: 'a1b2c3d4e5f6', commit: now, files: ['a'], transcript_start: 0, transcript_end: 1, step_count: 1, turn_id: '', shadow_branch: nowBranch, attempts: 1, last_error: 'x', first_failed_at: '' },
      ],
    });
    const res = r.entire(['reset', '--force']);
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout).toContain('Cleared session state for s-now');
    expect(res.stdout).toContain(`Kept shadow branch ${nowBranch}`);
    expect(existsSync(stateFile(r, 's-idle'))).toBe(true);
    expect(branchExists(r, nowBranch)).toBe(true);
    expect(branchExists(r, branch)).toBe(true);
  });

  it('--session resets one session of this worktree; unknown ones exit 1', () => {
    const { r, base } = setup();
    writeState(commonDir(r), { session_id: 's-other', base_commit: base, worktree_path: r.dir, phase: 'idle' });
    const res = r.entire(['reset', '--force', '--session', 's-other']);
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout).toContain('Cleared session state for s-other');
    expect(res.stdout).toContain('Kept shadow branch'); // s-idle still uses it
    expect(existsSync(stateFile(r, 's-idle'))).toBe(true);
    const missing = r.entire(['reset', '--force', '--session', 'nope']);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toBe('Error: session not found: nope\n');
  });

  it('nothing to reset: exit 0 without asking', () => {
    const r = makeRepo();
    const res = r.entire(['reset']);
    expect(res.status).toBe(0);
    expect(res.stdout).toContain('Nothing to reset');
  });

  it('worktree isolation (SPEC §11.39): reset --force in A keeps B', () => {
    const r = makeRepo();
    const wt = join(dirname(r.dir), 'wt');
    r.git(['worktree', 'add', '-q', '-b', 'feat', wt]);
    const wtDir = realpathSync(wt);
    const base = head(r);
    const common = commonDir(r);
    writeState(common, { session_id: 's-main', base_commit: base, worktree_path: r.dir, phase: 'idle' });
    writeState(common, { session_id: 's-wt', base_commit: base, worktree_path: wtDir, worktree_id: 'wt', phase: 'idle' });
    const mainBranch = `entire/${base.slice(0, 7)}-e3b0c4`;
    const wtBranch = `entire/${base.slice(0, 7)}-a721db`;
    r.git(['branch', mainBranch, 'HEAD']);
    r.git(['branch', wtBranch, 'HEAD']);

    const res = r.entire(['reset', '--force']);
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout).not.toContain('s-wt');
    expect(existsSync(stateFile(r, 's-main'))).toBe(false);
    expect(existsSync(stateFile(r, 's-wt'))).toBe(true);
    expect(branchExists(r, mainBranch)).toBe(false);
    expect(branchExists(r, wtBranch)).toBe(true);

    const inWt = r.entire(['reset', '--force'], { cwd: wtDir });
    expect(inWt.status, inWt.stderr).toBe(0);
    expect(inWt.stdout).toBe(`Cleared session state for s-wt\nDeleted shadow branch ${wtBranch}\n`);
    expect(existsSync(stateFile(r, 's-wt'))).toBe(false);
  });

  it('outside a repository: "Not a git repository.", exit 1', () => {
    const r = makeRepo();
    const res = r.entire(['reset', '--force'], { cwd: tempDir() });
    expect(res.status).toBe(1);
    expect(res.stderr).toBe('Not a git repository.\n');
  });
});
