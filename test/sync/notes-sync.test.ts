/**
 * SPEC-2 §D.1, D9: the notes index travels through a bare remote between two
 * clones. pre-push sends `refs/notes/entire`; when the remote's moved, the two
 * are merged as a union of lines per commit, and the person's push succeeds.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeRepo, cleanupAll, tempDir, testEnv, repoAt, type TempRepo } from '../helpers/repo.js';
import { FakeClaude } from '../helpers/agent.js';

afterAll(() => cleanupAll());

const NOTES = 'refs/notes/entire';

function bareRemote(): TempRepo {
  const remote = makeRepo({ bare: true });
  const seed = makeRepo();
  seed.git(['push', '-q', remote.dir, 'main']);
  return remote;
}

function clone(remote: TempRepo, name: string): TempRepo {
  const base = tempDir(`entire-notes-${name}-`);
  const home = join(base, 'home');
  mkdirSync(home);
  const env = testEnv(home);
  const dir = join(base, name);
  spawnSync('git', ['clone', '-q', remote.dir, dir], { env, encoding: 'utf8' });
  const r = repoAt(dir, home, env);
  const res = r.entire(['enable']);
  expect(res.status, res.stderr).toBe(0);
  return r;
}

function checkpointedCommit(r: TempRepo, branch: string, file: string): { id: string; sha: string } {
  r.git(['checkout', '-q', '-b', branch]);
  const agent = new FakeClaude(r);
  agent.prompt(`please create ${file}`);
  agent.write(file, `${file} from ${branch}\n`);
  expect(agent.stop().status).toBe(0);
  r.git(['add', file]);
  const c = r.gitResult(['commit', '-m', `add ${file}`]);
  expect(c.status, c.stderr).toBe(0);
  const id = /^Entire-Checkpoint: ([0-9a-f]{12})$/m.exec(r.git(['log', '-1', '--format=%B']))?.[1];
  expect(id).toBeDefined();
  return { id: id!, sha: r.git(['rev-parse', 'HEAD']).trim() };
}

/** The note of `sha` on notes ref `ref` (flat, or one fanout level as ours are), as lines. */
function notesOn(repo: TempRepo, ref: string, sha: string): string[] {
  for (const path of [sha, `${sha.slice(0, 2)}/${sha.slice(2)}`]) {
    const r = repo.gitResult(['show', `${ref}:${path}`]);
    if (r.status === 0) return r.stdout.split('\n').filter((l) => l !== '');
  }
  return [];
}

describe('notes through a bare remote', () => {
  it('round-trip between two clones, a diverged notes ref merged as a union of lines', () => {
    const remote = bareRemote();
    const a = clone(remote, 'a');
    const b = clone(remote, 'b');
    expect(a.git(['config', '--get-all', 'remote.origin.fetch'])).toContain('+refs/notes/entire*:refs/entire/remotes/origin/notes/entire*');

    const ca = checkpointedCommit(a, 'fa', 'a.txt');
    const pa = a.gitResult(['push', '-q', 'origin', 'fa']);
    expect(pa.status, pa.stderr).toBe(0);
    expect(notesOn(remote, NOTES, ca.sha)).toEqual([`Entire-Checkpoint: ${ca.id}`]);

    // b notes its own commit and, by hand, a's commit with another line; it has not fetched a's notes
    b.git(['fetch', '-q', 'origin', 'fa']);
    const cb = checkpointedCommit(b, 'fb', 'b.txt');
    b.git(['notes', `--ref=${NOTES}`, 'add', '-f', '-m', 'Entire-Checkpoint: 0123456789ab', ca.sha]);
    const pb = b.gitResult(['push', '-q', 'origin', 'fb']);
    expect(pb.status, pb.stderr).toBe(0);
    expect(b.git(['ls-remote', remote.dir, 'refs/heads/fb']).trim()).not.toBe('');
    expect(notesOn(remote, NOTES, cb.sha)).toEqual([`Entire-Checkpoint: ${cb.id}`]);
    expect(notesOn(remote, NOTES, ca.sha)).toEqual([`Entire-Checkpoint: 0123456789ab`, `Entire-Checkpoint: ${ca.id}`].sort());

    // a fetches: the remote's notes land in its tracking ref, and explain reads them
    a.git(['fetch', '-q', 'origin']);
    expect(notesOn(a, 'refs/entire/remotes/origin/notes/entire', cb.sha)).toEqual([`Entire-Checkpoint: ${cb.id}`]);
    expect(remote.gitResult(['fsck', '--strict', '--no-progress']).status).toBe(0);
  });

  it('an unreachable remote for notes never fails the push of the branch', () => {
    const remote = bareRemote();
    const a = clone(remote, 'c');
    checkpointedCommit(a, 'fc', 'c.txt');
    // the remote refuses every update of refs/notes/* (a hook), the branch goes through
    const hook = join(remote.dir, 'hooks', 'update');
    writeFileSync(hook, '#!/bin/sh\ncase "$1" in refs/notes/*) exit 1;; esac\nexit 0\n', { mode: 0o755 });
    const p = a.gitResult(['push', 'origin', 'fc']);
    expect(p.status, p.stderr).toBe(0);
    expect(a.git(['ls-remote', remote.dir, 'refs/heads/fc']).trim()).not.toBe('');
    expect(p.stderr).toMatch(/\[entire\] warning: push of commit notes failed/);
  });
});
