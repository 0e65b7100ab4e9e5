import { describe, it, expect, afterAll, afterEach } from 'vitest';
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { makeRepo, fsck, cleanupAll, type TempRepo } from '../helpers/repo.js';
import { withEnv } from '../helpers/env.js';
import { openRepo, type Repo } from '../../src/git/repo.js';
import { writeShadowStep, readShadowTranscript, migrateShadow } from '../../src/store/shadow.js';

const repos: TempRepo[] = [];
const opened: Repo[] = [];
afterEach(() => {
  for (const r of repos.splice(0)) expect(fsck(r).ok).toBe(true);
  for (const r of opened.splice(0)) r.objects.close();
});
afterAll(cleanupAll);

async function setup(): Promise<{ r: TempRepo; repo: Repo; head: string }> {
  const r = makeRepo();
  repos.push(r);
  const repo = await withEnv(r.env, () => openRepo(r.dir));
  opened.push(repo);
  return { r, repo, head: r.git(['rev-parse', 'HEAD']).trim() };
}

describe('shadow store', () => {
  it('first step is parentless: HEAD tree + git-status paths + F(s) + redacted metadata overlay', async () => {
    const { r, repo, head } = await setup();
    r.write('a.go', 'package a\n');
    r.write('dirty.txt', 'user edit\n');
    const secret = 'ghp_FaKe7T0kEnF0rTeStS9xQ2mZ7vR1bN8kL3pJ';
    const res = await withEnv(r.env, () =>
      writeShadowStep(repo, {
        baseCommit: head,
        worktreeId: '',
        sessionId: 's1',
        paths: ['a.go'],
        statusPaths: ['a.go', 'dirty.txt'],
        metadata: { transcript: `{"type":"user","message":{"content":"key ${secret}"}}\n`, format: 'jsonl', prompts: [`add a.go with ${secret}`], summary: 'done' },
        subject: 'Add a.go',
      }),
    );
    expect(res.branch).toBe(`entire/${head.slice(0, 7)}-e3b0c4`);
    expect(res.changed).toBe(true);
    expect(r.git(['rev-list', '--count', res.branch]).trim()).toBe('1');
    expect(r.git(['rev-list', '--max-parents=0', res.branch]).trim()).toBe(res.commit);
    const files = r.git(['ls-tree', '-r', '--name-only', res.branch]).trim().split('\n');
    expect(files).toEqual(
      expect.arrayContaining(['README.md', 'a.go', 'dirty.txt', '.entire/metadata/s1/full.jsonl', '.entire/metadata/s1/prompt.txt', '.entire/metadata/s1/summary.txt']),
    );
    const all = r.git(['log', '-p', '--format=%B', res.branch]);
    expect(all).not.toContain(secret);
    expect(r.git(['log', '--format=%B', '-1', res.branch])).toBe('Add a.go\n\nEntire-Metadata: .entire/metadata/s1\nEntire-Session: s1\nEntire-Strategy: manual-commit\n\n');
    const t = await withEnv(r.env, () => readShadowTranscript(repo, res.branch, 's1', 'jsonl'));
    expect(t!.toString()).toContain('REDACTED');
  });

  it('later steps build on the tip and an unchanged tree writes no commit', async () => {
    const { r, repo, head } = await setup();
    const step = (content: string) => {
      r.write('a.go', content);
      return withEnv(r.env, () =>
        writeShadowStep(repo, {
          baseCommit: head,
          worktreeId: '',
          sessionId: 's1',
          paths: ['a.go'],
          metadata: { transcript: '{"n":1}\n', format: 'jsonl', prompts: ['p'] },
          subject: 'Step',
        }),
      );
    };
    const one = await step('v1\n');
    const two = await step('v2\n');
    expect(two.changed).toBe(true);
    expect(r.git(['rev-parse', `${two.commit}^`]).trim()).toBe(one.commit);
    const three = await step('v2\n');
    expect(three.changed).toBe(false);
    expect(three.commit).toBe(two.commit);
    // no reflog is started for a shadow branch (a file creation per base commit)
    expect(existsSync(join(r.dir, '.git', 'logs', 'refs', 'heads', one.branch))).toBe(false);
  });

  it('names branches of linked worktrees by the worktree hash', async () => {
    const { r, head } = await setup();
    const wt = join(r.dir, '..', 'wt');
    r.git(['worktree', 'add', '-q', wt, '-b', 'side']);
    const repo = await withEnv(r.env, () => openRepo(wt));
    opened.push(repo);
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(wt, 'x.txt'), 'x\n');
    const res = await withEnv(r.env, () =>
      writeShadowStep(repo, { baseCommit: head, worktreeId: repo.worktreeId, sessionId: 's', paths: ['x.txt'], metadata: null, subject: 'X' }),
    );
    expect(res.branch).toBe(`entire/${head.slice(0, 7)}-a721db`);
  });

  it('migrates a session to the new HEAD branch', async () => {
    const { r, repo, head } = await setup();
    r.write('a.go', 'a\n');
    await withEnv(r.env, () =>
      writeShadowStep(repo, { baseCommit: head, worktreeId: '', sessionId: 's1', paths: ['a.go'], metadata: { transcript: '{}\n', format: 'jsonl', prompts: [] }, subject: 'A' }),
    );
    r.write('other.txt', 'o\n');
    const newHead = r.commitAll('unrelated');
    const m = await withEnv(r.env, () => migrateShadow(repo, { fromBase: head, toBase: newHead, worktreeId: '', sessionId: 's1', paths: ['a.go'] }));
    expect(m.moved).toBe(true);
    expect(r.git(['show', `${m.to}:a.go`])).toBe('a\n');
  });
});
