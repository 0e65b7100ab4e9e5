/**
 * `entire resume <branch> [--force]` (SPEC §8.8) through the built CLI, real
 * git and a scripted Claude session.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { appendFileSync, existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeRepo, cleanupAll, type TempRepo } from '../helpers/repo.js';
import { FakeClaude } from '../helpers/agent.js';

afterAll(() => cleanupAll());

/** A session on `feature` whose work is committed there; back on main afterwards. */
function sessionOnFeature(): { r: TempRepo; agent: FakeClaude; transcript: string; storedPath: string } {
  const r = makeRepo();
  expect(r.entire(['enable']).status).toBe(0);
  r.git(['checkout', '-q', '-b', 'feature']);
  const agent = new FakeClaude(r);
  agent.sessionStart();
  agent.prompt('build the feature');
  agent.write('f.txt', 'feature\n');
  expect(agent.stop().status).toBe(0);
  r.git(['add', 'f.txt']);
  expect(r.gitResult(['commit', '-m', 'feature work']).status).toBe(0);
  // a later commit without a checkpoint: resume must look further back
  r.write('notes.txt', 'n\n');
  r.git(['add', 'notes.txt']);
  expect(r.gitResult(['commit', '-m', 'plain commit']).status).toBe(0);
  const id = /^Entire-Checkpoint: ([0-9a-f]{12})$/m.exec(r.git(['log', '-1', '--skip=1', '--format=%B']))![1]!;
  const md = JSON.parse(r.git(['show', `entire/checkpoints/v1:${id.slice(0, 2)}/${id.slice(2)}/0/metadata.json`])) as { transcript_path: string };
  const transcript = readFileSync(agent.transcriptPath, 'utf8');
  r.git(['checkout', '-q', 'main']);
  return { r, agent, transcript, storedPath: md.transcript_path };
}

describe('resume', () => {
  it('checks the branch out, restores the transcript to $HOME/<transcript_path> and prints the resume command', () => {
    const { r, agent, storedPath } = sessionOnFeature();
    expect(join(r.home, storedPath)).toBe(agent.transcriptPath);
    rmSync(agent.transcriptPath);
    const res = r.entire(['resume', 'feature']);
    expect(res.status, res.stderr).toBe(0);
    expect(r.git(['rev-parse', '--abbrev-ref', 'HEAD']).trim()).toBe('feature');
    expect(existsSync(agent.transcriptPath)).toBe(true);
    const restored = readFileSync(agent.transcriptPath, 'utf8');
    expect(restored).toContain('build the feature');
    const out = res.stdout.trimEnd().split('\n');
    expect(out.slice(-2)).toEqual(['To continue this session, run:', `  claude -r ${agent.sessionId}`]);
  });

  it('never replaces a differing local transcript without --force (SPEC-2 §A.10); with it, keeps a backup', () => {
    const { r, agent } = sessionOnFeature();
    appendFileSync(agent.transcriptPath, JSON.stringify({ type: 'user', uuid: 'x', message: { role: 'user', content: 'LOCAL-ONLY' } }) + '\n');
    const local = readFileSync(agent.transcriptPath, 'utf8');
    const res = r.entire(['resume', 'feature']);
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout).toContain(`Kept ${agent.transcriptPath} (differs; --force overwrites)`);
    expect(readFileSync(agent.transcriptPath, 'utf8')).toBe(local);
    expect(res.stdout).toContain(`  claude -r ${agent.sessionId}`);

    // a shorter local file is not replaced either (the v1 line-count rule is gone)
    r.git(['checkout', '-q', 'main']);
    writeFileSync(agent.transcriptPath, '{}\n');
    expect(r.entire(['resume', 'feature']).stdout).toContain('(differs; --force overwrites)');
    expect(readFileSync(agent.transcriptPath, 'utf8')).toBe('{}\n');

    const forced = r.entire(['resume', 'feature', '--force']);
    expect(forced.status, forced.stderr).toBe(0);
    expect(readFileSync(agent.transcriptPath, 'utf8')).toContain('build the feature');
    const bak = /previous file kept as (\S+\.entire-bak-\d{14})\)/.exec(forced.stdout)?.[1];
    expect(bak, forced.stdout).toBeDefined();
    expect(readFileSync(bak!, 'utf8')).toBe('{}\n');
    expect(statSync(bak!).mode & 0o777).toBe(0o600);
    // the same bytes again: nothing to replace, no new backup
    const again = r.entire(['resume', 'feature']);
    expect(again.stdout).toContain('is already at');
  });

  it('a branch without checkpoints: says so, exit 0, and is checked out', () => {
    const r = makeRepo();
    expect(r.entire(['enable']).status).toBe(0);
    r.git(['branch', 'plain']);
    const res = r.entire(['resume', 'plain']);
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout.trim()).toBe('No Entire checkpoint found on plain.');
    expect(r.git(['rev-parse', '--abbrev-ref', 'HEAD']).trim()).toBe('plain');
  });

  it('an unknown branch: one line, exit 1, nothing changes', () => {
    const r = makeRepo();
    expect(r.entire(['enable']).status).toBe(0);
    const res = r.entire(['resume', 'nope']);
    expect(res.status).toBe(1);
    expect(res.stderr.trim()).toBe('Error: branch not found: nope');
    expect(r.git(['rev-parse', '--abbrev-ref', 'HEAD']).trim()).toBe('main');
  });

  it('when disabled it says so and exits 0 without checking out', () => {
    const { r } = sessionOnFeature();
    expect(r.entire(['disable']).status).toBe(0);
    const res = r.entire(['resume', 'feature']);
    expect(res.status).toBe(0);
    expect(res.stdout.trim()).toBe('Entire is disabled. Run `entire enable` to re-enable.');
    expect(r.git(['rev-parse', '--abbrev-ref', 'HEAD']).trim()).toBe('main');
  });

  it('restores a teammate’s session fetched from a remote (read from origin/entire/checkpoints/v1)', () => {
    const { r, agent } = sessionOnFeature();
    const remote = makeRepo({ bare: true });
    // our pre-push hook sends the checkpoints along
    r.git(['push', '-q', remote.dir, 'main', 'feature']);
    expect(remote.git(['rev-parse', 'entire/checkpoints/v1']).trim()).toBe(r.git(['rev-parse', 'entire/checkpoints/v1']).trim());
    const other = makeRepo();
    other.git(['remote', 'add', 'origin', remote.dir]);
    other.git(['fetch', '-q', 'origin']);
    expect(other.entire(['enable']).status).toBe(0);
    const res = other.entire(['resume', 'feature']);
    expect(res.status, res.stderr).toBe(0);
    expect(other.git(['rev-parse', '--abbrev-ref', 'HEAD']).trim()).toBe('feature');
    expect(res.stdout).toContain(`  claude -r ${agent.sessionId}`);
    const restored = res.stdout.split('\n').find((l) => l.startsWith('Restored transcript'));
    expect(restored).toBeDefined();
    const path = restored!.slice(restored!.lastIndexOf(' to ') + 4);
    expect(path.startsWith(other.home)).toBe(true);
    expect(readFileSync(path, 'utf8')).toContain('build the feature');
  });
});
