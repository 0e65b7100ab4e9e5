/**
 * `entire rewind` (SPEC §8.7; checklist §11.40, §11.45) through the built
 * CLI, real git and a scripted Claude session.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeRepo, cleanupAll, type TempRepo } from '../helpers/repo.js';
import { FakeClaude } from '../helpers/agent.js';

afterAll(() => cleanupAll());

interface Point {
  id: string;
  message: string;
  metadata_dir: string;
  date: string;
  is_task_checkpoint: boolean;
  tool_use_id?: string;
  is_logs_only: boolean;
  condensation_id?: string;
  session_id?: string;
  session_prompt?: string;
}

function list(r: TempRepo): Point[] {
  const res = r.entire(['rewind', '--list']);
  expect(res.status, res.stderr).toBe(0);
  return JSON.parse(res.stdout) as Point[];
}

function lines(path: string): number {
  return readFileSync(path, 'utf8').split('\n').filter((l) => l !== '').length;
}

/** Two agent turns: step 1 writes a.txt v1; step 2 rewrites a.txt and creates b.txt. */
function twoSteps(): { r: TempRepo; agent: FakeClaude; step1Lines: number } {
  const r = makeRepo();
  expect(r.entire(['enable']).status).toBe(0);
  const agent = new FakeClaude(r);
  agent.sessionStart();
  agent.prompt('create a.txt');
  agent.write('a.txt', 'v1\n');
  expect(agent.stop().status).toBe(0);
  const step1Lines = lines(agent.transcriptPath);
  agent.prompt('change a.txt and add b.txt');
  agent.write('a.txt', 'v2\n');
  agent.write('sub/b.txt', 'b\n');
  expect(agent.stop().status).toBe(0);
  return { r, agent, step1Lines };
}

function worktreeState(r: TempRepo): string {
  const read = (p: string) => (existsSync(join(r.dir, p)) ? readFileSync(join(r.dir, p), 'utf8') : null);
  return JSON.stringify([read('a.txt'), read('sub/b.txt'), read('README.md'), read('u.txt'), r.git(['ls-files', '-s']), r.git(['for-each-ref'])]);
}

describe('rewind --list', () => {
  it('lists the session’s steps newest first in the Go shape, and changes nothing (§11.40)', () => {
    const { r, agent } = twoSteps();
    const refsBefore = r.git(['for-each-ref']);
    const points = list(r);
    expect(points).toHaveLength(2);
    expect(points.map((p) => p.message)).toEqual(['Change a.txt and add b.txt', 'Create a.txt']);
    for (const p of points) {
      expect(Object.keys(p)).toEqual(['id', 'message', 'metadata_dir', 'date', 'is_task_checkpoint', 'is_logs_only', 'session_id', 'session_prompt']);
      expect(p.id).toMatch(/^[0-9a-f]{40}$/);
      expect(p.metadata_dir).toBe(`.entire/metadata/${agent.sessionId}`);
      expect(p.date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(p.is_logs_only).toBe(false);
      expect(p.is_task_checkpoint).toBe(false);
      expect(p.session_id).toBe(agent.sessionId);
      expect(p.session_prompt).toBe('create a.txt');
    }
    expect(r.git(['for-each-ref'])).toBe(refsBefore);
  });

  it('after a commit the checkpoint is a logs-only point with its condensation id', () => {
    const { r, agent } = twoSteps();
    r.git(['add', 'a.txt', 'sub/b.txt']);
    expect(r.gitResult(['commit', '-m', 'agent work']).status).toBe(0);
    const id = /^Entire-Checkpoint: ([0-9a-f]{12})$/m.exec(r.git(['log', '-1', '--format=%B']))![1]!;
    const points = list(r);
    const p = points.find((x) => x.is_logs_only);
    expect(p).toMatchObject({
      id: r.git(['rev-parse', 'HEAD']).trim(),
      message: 'agent work',
      metadata_dir: '',
      is_logs_only: true,
      condensation_id: id,
      session_id: agent.sessionId,
    });
    // the old HEAD's steps are not this HEAD's
    expect(points.filter((x) => !x.is_logs_only)).toEqual([]);
  });

  it('when disabled it says so and exits 0', () => {
    const { r } = twoSteps();
    expect(r.entire(['disable']).status).toBe(0);
    const res = r.entire(['rewind', '--list']);
    expect(res.status).toBe(0);
    expect(res.stdout.trim()).toBe('Entire is disabled. Run `entire enable` to re-enable.');
  });
});

describe('rewind --to', () => {
  it('restores the step’s files, deletes only agent-created files, keeps the index and protected dirs, restores the transcript', () => {
    const { r, agent, step1Lines } = twoSteps();
    // the person's own work: a staged new file and a change to .claude/
    r.write('u.txt', 'mine\n');
    r.git(['add', 'u.txt']);
    const claudeSettings = join(r.dir, '.claude', 'settings.json');
    writeFileSync(claudeSettings, readFileSync(claudeSettings, 'utf8').replace('"hooks"', '"hooks_edited_by_me": 1, "hooks"'));
    const claudeAfterEdit = readFileSync(claudeSettings, 'utf8');
    const indexBefore = r.git(['ls-files', '-s']);
    const step1 = list(r).find((p) => p.message === 'Create a.txt')!;

    const before = readFileSync(agent.transcriptPath, 'utf8');
    const res = r.entire(['rewind', '--to', step1.id.slice(0, 7), '--force']);
    expect(res.status, res.stderr).toBe(0);
    const out = res.stdout.trim().split('\n');
    // the longer transcript it replaced is kept aside (SPEC-2 §A.10)
    const bak = `${agent.transcriptPath}.entire-bak-`;
    expect(out[0]).toContain(`(previous file kept as ${bak}`);
    expect(readFileSync(/kept as (\S+)\)/.exec(out[0]!)![1]!, 'utf8')).toBe(before);
    expect(out[1]).toBe(`Rewound to ${step1.id.slice(0, 7)}. To continue: claude -r ${agent.sessionId}`);
    expect(readFileSync(join(r.dir, 'a.txt'), 'utf8')).toBe('v1\n');
    expect(existsSync(join(r.dir, 'sub', 'b.txt'))).toBe(false);
    expect(existsSync(join(r.dir, 'sub'))).toBe(false);
    expect(readFileSync(join(r.dir, 'u.txt'), 'utf8')).toBe('mine\n');
    expect(readFileSync(claudeSettings, 'utf8')).toBe(claudeAfterEdit);
    expect(r.git(['ls-files', '-s'])).toBe(indexBefore);
    expect(r.git(['diff', '--cached', '--name-only']).trim()).toBe('u.txt');
    // the transcript is back at the step: the second prompt is gone
    expect(lines(agent.transcriptPath)).toBe(step1Lines);
    expect(readFileSync(agent.transcriptPath, 'utf8')).not.toContain('change a.txt and add b.txt');
    // history untouched
    expect(r.git(['log', '--format=%s']).trim()).toBe('initial commit');
  });

  it('refuses to overwrite uncommitted changes the session did not make; nothing changes', () => {
    const { r } = twoSteps();
    r.write('README.md', '# edited by me after the agent\n');
    const before = worktreeState(r);
    const step1 = list(r).find((p) => p.message === 'Create a.txt')!;
    const res = r.entire(['rewind', '--to', step1.id, '--force']);
    expect(res.status).toBe(1);
    expect(res.stderr.trim()).toBe(
      'Error: rewind would overwrite uncommitted changes the session did not make: README.md. Commit or stash them first.',
    );
    expect(worktreeState(r)).toBe(before);
  });

  it('without --force and without a terminal: refuses, nothing changes', () => {
    const { r } = twoSteps();
    const before = worktreeState(r);
    const step1 = list(r).find((p) => p.message === 'Create a.txt')!;
    const res = r.entire(['rewind', '--to', step1.id]);
    expect(res.status).toBe(1);
    expect(res.stderr.trim()).toBe('Error: rewind requires --force when not interactive');
    expect(worktreeState(r)).toBe(before);
  });

  it('an unknown point: one line, exit 1', () => {
    const { r } = twoSteps();
    const before = worktreeState(r);
    const res = r.entire(['rewind', '--to', 'deadbeef', '--force']);
    expect(res.status).toBe(1);
    expect(res.stderr.trim()).toBe('Error: rewind point not found: deadbeef');
    expect(worktreeState(r)).toBe(before);
  });

  it('--logs-only restores the transcript and leaves the files', () => {
    const { r, agent, step1Lines } = twoSteps();
    const before = worktreeState(r);
    const step1 = list(r).find((p) => p.message === 'Create a.txt')!;
    const res = r.entire(['rewind', '--to', step1.id, '--logs-only', '--force']);
    expect(res.status, res.stderr).toBe(0);
    expect(worktreeState(r)).toBe(before);
    expect(lines(agent.transcriptPath)).toBe(step1Lines);
  });

  it('a committed (logs-only) point restores its transcripts; --reset needs a clean tree, then resets', () => {
    const { r, agent } = twoSteps();
    r.git(['add', 'a.txt', 'sub/b.txt']);
    expect(r.gitResult(['commit', '-m', 'agent work']).status).toBe(0);
    const first = r.git(['rev-parse', 'HEAD']).trim();
    const id = /^Entire-Checkpoint: ([0-9a-f]{12})$/m.exec(r.git(['log', '-1', '--format=%B']))![1]!;
    r.write('later.txt', 'later\n');
    r.commitAll('later work');
    rmSync(agent.transcriptPath);

    const res = r.entire(['rewind', '--to', id, '--force']);
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout.trim()).toBe(`Rewound to ${first.slice(0, 7)}. To continue: claude -r ${agent.sessionId}`);
    expect(readFileSync(agent.transcriptPath, 'utf8')).toContain('change a.txt and add b.txt');
    expect(r.git(['log', '-1', '--format=%s']).trim()).toBe('later work');

    r.write('README.md', 'dirty\n');
    const dirty = r.entire(['rewind', '--to', id, '--reset', '--force']);
    expect(dirty.status).toBe(1);
    expect(dirty.stderr).toContain('rewind --reset needs a clean work tree');
    expect(r.git(['log', '-1', '--format=%s']).trim()).toBe('later work');

    r.git(['checkout', '--', 'README.md']);
    const reset = r.entire(['rewind', '--to', id, '--reset', '--force']);
    expect(reset.status, reset.stderr).toBe(0);
    expect(r.git(['rev-parse', 'HEAD']).trim()).toBe(first);
    expect(existsSync(join(r.dir, 'later.txt'))).toBe(false);
  });
});


