import { describe, it, expect, afterAll } from 'vitest';
import { existsSync, utimesSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { makeRepo, cleanupAll, tempDir, type TempRepo } from '../helpers/repo.js';
import { commonDir, head, writeState, snapshot, daysAgo, writeCheckpoint } from './helpers.js';

afterAll(cleanupAll);

/** A pid no process has (above Linux's pid_max). */
const DEAD_PID = 2147483646;

function branchExists(r: TempRepo, name: string): boolean {
  return r.gitResult(['rev-parse', '--verify', '-q', `refs/heads/${name}`]).status === 0;
}

function sessionsPath(r: TempRepo, name: string): string {
  return join(commonDir(r), 'entire-sessions', name);
}

describe('clean', () => {
  it('nothing orphaned', () => {
    const r = makeRepo();
    const res = r.entire(['clean']);
    expect(res.status).toBe(0);
    expect(res.stdout).toBe('No orphaned items to clean up.\n');
    expect(JSON.parse(r.entire(['clean', '--json']).stdout)).toEqual({ items: [], deleted: 0 });
  });

  it('SPEC §11.38: lists the stray branch, never a referenced one; --force deletes only the stray', async () => {
    const r = makeRepo();
    const base = head(r);
    const live = `entire/${base.slice(0, 7)}-e3b0c4`;
    writeState(commonDir(r), { session_id: 's-live', base_commit: base, worktree_path: r.dir, phase: 'active', files_touched: ['a.go'] });
    r.git(['branch', live, 'HEAD']);
    r.git(['branch', 'entire/abcdef1-e3b0c4', 'HEAD']);
    await writeCheckpoint(r, { checkpointId: 'a1b2c3d4e5f6', sessionId: 's-old' }); // creates entire/checkpoints/v1

    const before = snapshot(r);
    const preview = r.entire(['clean']);
    expect(preview.status, preview.stderr).toBe(0);
    expect(preview.stdout).toBe(
      'Found 1 orphaned item(s):\n' +
        '  shadow branch entire/abcdef1-e3b0c4 (no session or pending checkpoint references it)\n' +
        'Run with --force to delete these items.\n',
    );
    expect(preview.stdout).not.toContain(live);
    expect(preview.stdout).not.toContain('checkpoints/v1');
    expect(snapshot(r)).toEqual(before); // the preview changes nothing

    const json = JSON.parse(r.entire(['clean', '--json']).stdout);
    expect(Object.keys(json)).toEqual(['items', 'deleted']);
    expect(json.items).toEqual([{ kind: 'shadow-branch', name: 'entire/abcdef1-e3b0c4', reason: 'no session or pending checkpoint references it' }]);
    expect(json.deleted).toBe(0);

    const forced = r.entire(['clean', '--force']);
    expect(forced.status, forced.stderr).toBe(0);
    expect(forced.stdout.trimEnd().split('\n').pop()).toBe('Deleted 1 item(s).');
    expect(branchExists(r, 'entire/abcdef1-e3b0c4')).toBe(false);
    expect(branchExists(r, live)).toBe(true);
    expect(branchExists(r, 'entire/checkpoints/v1')).toBe(true);
    expect(existsSync(sessionsPath(r, 's-live.json'))).toBe(true);
    expect(r.entire(['clean']).stdout).toBe('No orphaned items to clean up.\n');
  });

  it('a branch named only by a pending condensation, or by a legacy name, is kept', () => {
    const r = makeRepo();
    const base = head(r);
    writeState(commonDir(r), {
      session_id: 's-pending',
      base_commit: '1111111111111111111111111111111111111111',
      worktree_path: r.dir,
      phase: 'ended',
      ended_at: daysAgo(30),
      pending_condensations: [
        { checkpoint_id: 'a1b2c3d4e5f6', commit: base, files: ['a'], transcript_start: 0, transcript_end: 1, step_count: 1, turn_id: '', shadow_branch: 'entire/2222222-e3b0c4', attempts: 1, last_error: 'x', first_failed_at: '' },
      ],
    });
    writeState(commonDir(r), { session_id: 's-legacy', base_commit: base, worktree_path: r.dir, phase: 'idle' });
    r.git(['branch', 'entire/2222222-e3b0c4', 'HEAD']);
    r.git(['branch', `entire/${base.slice(0, 7)}`, 'HEAD']); // legacy main-worktree name
    const json = JSON.parse(r.entire(['clean', '--json']).stdout);
    expect(json.items).toEqual([]); // the old ENDED state has pending work: not prunable either
  });

  it('prunable states, states of vanished worktrees, stale locks, scratch files and temp refs', () => {
    const r = makeRepo();
    const common = commonDir(r);
    const base = head(r);
    writeState(common, { session_id: 's-ended-old', base_commit: base, worktree_path: r.dir, phase: 'ended', ended_at: daysAgo(8) });
    writeState(common, { session_id: 's-ended-recent', base_commit: base, worktree_path: r.dir, phase: 'ended', ended_at: daysAgo(6) });
    writeState(common, { session_id: 's-gone', base_commit: base, worktree_path: join(r.dir, '..', 'gone-wt'), worktree_id: 'gone-wt', phase: 'idle' });
    writeState(common, { session_id: 's-live', base_commit: base, worktree_path: r.dir, phase: 'idle' });
    writeFileSync(sessionsPath(r, 's-dead.lock'), JSON.stringify({ pid: DEAD_PID, created_ms: Date.now(), token: 'x' }) + '\n');
    writeFileSync(sessionsPath(r, 's-mine.lock'), JSON.stringify({ pid: process.pid, created_ms: Date.now(), token: 'y' }) + '\n');
    mkdirSync(join(r.dir, '.entire', 'tmp'), { recursive: true });
    const oldScratch = join(r.dir, '.entire', 'tmp', 'pre-prompt-s-ended-old.json');
    const liveScratch = join(r.dir, '.entire', 'tmp', 'pre-prompt-s-live.json');
    const freshScratch = join(r.dir, '.entire', 'tmp', 'pre-prompt-s-fresh.json');
    for (const f of [oldScratch, liveScratch, freshScratch]) writeFileSync(f, '{}\n');
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 60 * 60 * 1000);
    utimesSync(oldScratch, twoDaysAgo, twoDaysAgo);
    utimesSync(liveScratch, twoDaysAgo, twoDaysAgo);
    r.git(['update-ref', `refs/entire-tmp/${DEAD_PID}-abcd1234`, 'HEAD']);
    r.git(['update-ref', `refs/entire-tmp/${process.pid}-abcd1234`, 'HEAD']);

    const before = snapshot(r);
    const doc = JSON.parse(r.entire(['clean', '--json']).stdout);
    expect(snapshot(r)).toEqual(before);
    const names = doc.items.map((i: any) => `${i.kind} ${i.name}`).sort();
    expect(names).toEqual(
      [
        'session-state s-ended-old',
        'session-state s-gone',
        'lock entire-sessions/s-dead.lock',
        'scratch-file .entire/tmp/pre-prompt-s-ended-old.json',
        `temp-ref refs/entire-tmp/${DEAD_PID}-abcd1234`,
      ].sort(),
    );
    for (const i of doc.items) expect(Object.keys(i)).toEqual(['kind', 'name', 'reason']);

    const forced = r.entire(['clean', '--force', '--json']);
    expect(forced.status, forced.stderr).toBe(0);
    expect(JSON.parse(forced.stdout).deleted).toBe(5);
    expect(existsSync(sessionsPath(r, 's-ended-old.json'))).toBe(false);
    expect(existsSync(sessionsPath(r, 's-gone.json'))).toBe(false);
    expect(existsSync(sessionsPath(r, 's-ended-recent.json'))).toBe(true);
    expect(existsSync(sessionsPath(r, 's-live.json'))).toBe(true);
    expect(existsSync(sessionsPath(r, 's-dead.lock'))).toBe(false);
    expect(existsSync(sessionsPath(r, 's-mine.lock'))).toBe(true);
    expect(existsSync(oldScratch)).toBe(false);
    expect(existsSync(liveScratch)).toBe(true);
    expect(existsSync(freshScratch)).toBe(true);
    expect(r.gitResult(['rev-parse', '--verify', '-q', `refs/entire-tmp/${DEAD_PID}-abcd1234`]).status).not.toBe(0);
    expect(r.gitResult(['rev-parse', '--verify', '-q', `refs/entire-tmp/${process.pid}-abcd1234`]).status).toBe(0);
  });

  it('the shadow branch of a pruned state is listed with it and deleted in the same run', () => {
    const r = makeRepo();
    const base = head(r);
    const branch = `entire/${base.slice(0, 7)}-37eb19`;
    writeState(commonDir(r), {
      session_id: 's-wt-gone',
      base_commit: base,
      worktree_path: join(r.dir, '..', 'test-123'),
      worktree_id: 'test-123',
      phase: 'ended',
      ended_at: daysAgo(1),
      files_touched: ['x.txt'],
    });
    r.git(['branch', branch, 'HEAD']);
    const doc = JSON.parse(r.entire(['clean', '--json']).stdout);
    expect(doc.items.map((i: any) => i.kind).sort()).toEqual(['session-state', 'shadow-branch']);
    const res = r.entire(['clean', '--force']);
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout).toContain('Deleted 2 item(s).');
    expect(branchExists(r, branch)).toBe(false);
  });

  it('a stale commit intent is listed unless recovery still needs it', () => {
    const r = makeRepo();
    const intent = join(r.dir, '.git', 'entire-commit-intent.json');
    const old = new Date(Date.now() - 2 * 24 * 60 * 60 * 1000);
    const write = (id: string | null) => {
      writeFileSync(intent, JSON.stringify({ id, mode: 'new', head_before: head(r), created_at: old.toISOString(), sessions: {}, git_pid: DEAD_PID }) + '\n');
      utimesSync(intent, old, old);
    };
    write(null);
    let doc = JSON.parse(r.entire(['clean', '--json']).stdout);
    expect(doc.items).toEqual([{ kind: 'intent', name: 'entire-commit-intent.json', reason: expect.stringContaining('2 days old') }]);

    // HEAD carries the intent's ID and its checkpoint was never written: recovery (§6.5 step 6) needs it
    r.git(['commit', '-q', '--no-verify', '--allow-empty', '-m', 'x', '-m', 'Entire-Checkpoint: d1d2d3d4d5d6']);
    write('d1d2d3d4d5d6');
    doc = JSON.parse(r.entire(['clean', '--json']).stdout);
    expect(doc.items).toEqual([]);
    const res = r.entire(['clean', '--force']);
    expect(res.status).toBe(0);
    expect(existsSync(intent)).toBe(true);
  });

  it('outside a repository: "Not a git repository.", exit 1', () => {
    const r = makeRepo();
    const res = r.entire(['clean'], { cwd: tempDir() });
    expect(res.status).toBe(1);
    expect(res.stderr).toBe('Not a git repository.\n');
  });
});
