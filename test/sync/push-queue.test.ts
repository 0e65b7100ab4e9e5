/**
 * SPEC-3 §A.6 (issue 27): the checkpoint push queue the Go CLI writes
 * (`<common-dir>/entire-checkpoint-push-queue.jsonl`) is drained by our
 * pre-push, through the built CLI's installed hook, a real `git push` and a
 * bare remote. The queued refs are Go refs-v1 checkpoints written with git
 * plumbing (test/helpers/go-refs.ts), the queue lines as Go writes them.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeRepo, cleanupAll, tempDir, testEnv, repoAt, type TempRepo } from '../helpers/repo.js';
import { finalizeGoCheckpoint, goCheckpointTree, goRef, ulid, writeGoCheckpoint, type GoCheckpoint } from '../helpers/go-refs.js';

afterAll(() => cleanupAll());

const QUEUE = 'entire-checkpoint-push-queue.jsonl';
const SID = '28596a79-6247-4bc2-a031-f5848b31e039';

function bareRemote(): TempRepo {
  const remote = makeRepo({ bare: true });
  const seed = makeRepo();
  seed.git(['push', '-q', remote.dir, 'main']);
  return remote;
}

function clone(remote: TempRepo, name: string): TempRepo {
  const base = tempDir(`entire-clone-${name}-`);
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

function cp(id: string, text = 'hello'): GoCheckpoint {
  return { id, sessions: [{ sessionId: SID, transcript: JSON.stringify({ type: 'user', message: { role: 'user', content: text } }) + '\n', prompts: [text] }] };
}

function queuePath(r: TempRepo): string {
  return join(r.dir, '.git', QUEUE);
}

/** The queue as Go writes it: one compact `{"ref":…}` line per ref. */
function writeQueue(r: TempRepo, lines: string[]): void {
  writeFileSync(queuePath(r), lines.map((l) => l + '\n').join(''), { mode: 0o600 });
}

const line = (ref: string): string => JSON.stringify({ ref });

function queuedRefs(r: TempRepo): string[] {
  if (!existsSync(queuePath(r))) return [];
  return readFileSync(queuePath(r), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => (JSON.parse(l) as { ref: string }).ref);
}

function remoteRefs(remote: TempRepo): Map<string, string> {
  const out = new Map<string, string>();
  for (const l of remote.git(['for-each-ref', '--format=%(refname) %(objectname)', 'refs/entire/']).split('\n')) {
    const [ref, oid] = l.split(' ');
    if (ref && oid) out.set(ref, oid);
  }
  return out;
}

/** A user's commit and push of main (the pre-push hook runs). */
function userPush(r: TempRepo, env: Record<string, string> = {}): ReturnType<TempRepo['gitResult']> {
  r.write(`f-${Date.now()}-${Math.random()}.txt`, 'work\n');
  r.commitAll('user work');
  return r.gitResult(['push', 'origin', 'main'], { env });
}

function statusQueued(r: TempRepo): number {
  const s = r.entire(['status', '--json']);
  expect(s.status, s.stderr).toBe(0);
  return (JSON.parse(s.stdout) as { checkpoint_refs_queued: number }).checkpoint_refs_queued;
}

/** `n` Go checkpoint refs sharing one tree (one commit each): cheap enough for hundreds. */
function manyGoRefs(r: TempRepo, n: number): string[] {
  const tree = goCheckpointTree(r, cp(ulid(9999)));
  const refs: string[] = [];
  let stdin = '';
  for (let i = 0; i < n; i++) {
    const id = ulid(i);
    const commit = r.git(['commit-tree', tree], { input: `Checkpoint: ${id}\n\nEntire-Session: ${SID}\n` }).trim();
    stdin += `create ${goRef(id)} ${commit}\n`;
    refs.push(goRef(id));
  }
  r.git(['update-ref', '--stdin'], { input: stdin });
  return refs;
}

describe('SPEC-3 §A.6: pre-push drains the checkpoint push queue', () => {
  it('300 refs queued by the Go CLI reach the remote on a user push (in chunks); a ref missing locally is dropped', () => {
    const remote = bareRemote();
    const r = clone(remote, 'a');
    const refs = manyGoRefs(r, 300);
    const missing = goRef(ulid(5000));
    writeQueue(r, [...refs.slice(0, 150).map(line), line(missing), ...refs.slice(150).map(line)]);
    expect(statusQueued(r)).toBe(301);
    expect(r.entire(['status']).stdout).toContain('Checkpoint refs queued for push: 301');

    const trace = join(tempDir(), 'trace');
    const p = userPush(r, { GIT_TRACE: trace });
    expect(p.status, p.stderr).toBe(0);
    expect(p.stderr).toContain('Pushing 300 queued checkpoint refs to origin');
    expect(p.stderr).not.toContain('warning');

    const onRemote = remoteRefs(remote);
    for (const ref of refs) expect(onRemote.get(ref), ref).toBe(r.git(['rev-parse', ref]).trim());
    expect(onRemote.has(missing)).toBe(false);
    // chunks of ≤ 200, never forced
    const pushes = readFileSync(trace, 'utf8')
      .split('\n')
      .filter((l) => / built-in: git push --no-verify --porcelain /.test(l) && !/entire\/checkpoints\/v1|refs\/notes\//.test(l));
    expect(pushes).toHaveLength(2);
    expect(pushes.join('\n')).not.toMatch(/ \+|--force/);
    expect(queuedRefs(r)).toEqual([]);
    expect(statSync(queuePath(r)).mode & 0o777).toBe(0o600);
    expect(statusQueued(r)).toBe(0);
    expect(r.entire(['status']).stdout).not.toContain('queued for push');
  });

  /** Our clone and the remote both hold checkpoint `id` at `base`; the teammate's finalization `theirs` (tree from `their`) is on the remote only. */
  function teammateMovedRemote(their: GoCheckpoint | null): { remote: TempRepo; r: TempRepo; id: string; base: string; theirs: string } {
    const remote = bareRemote();
    const r = clone(remote, 'a');
    const id = ulid(42);
    const base = writeGoCheckpoint(r, cp(id));
    r.git(['push', '-q', '--no-verify', 'origin', `${goRef(id)}:${goRef(id)}`]);
    const tree = their ? goCheckpointTree(remote, their) : remote.git(['rev-parse', `${base}^{tree}`]).trim();
    const theirs = remote.git(['commit-tree', tree, '-p', base], { input: `Finalize transcript for Checkpoint: ${id}` }).trim();
    remote.git(['update-ref', goRef(id), theirs, base]);
    return { remote, r, id, base, theirs };
  }

  it("a ref whose remote copy has a teammate's later commit is replayed onto it and pushed fast-forward, never forced", () => {
    const { remote, r, id, theirs } = teammateMovedRemote(null);
    const ours = finalizeGoCheckpoint(r, cp(id, 'our finalization'));
    const other = ulid(43);
    writeGoCheckpoint(r, cp(other));
    writeQueue(r, [line(goRef(id)), line(goRef(other))]);

    const p = userPush(r);
    expect(p.status, p.stderr).toBe(0);
    expect(p.stderr).not.toContain('warning');
    expect(remote.git(['rev-parse', 'main']).trim()).toBe(r.git(['rev-parse', 'main']).trim());
    const tip = remote.git(['rev-parse', goRef(id)]).trim();
    expect(tip).toBe(r.git(['rev-parse', goRef(id)]).trim());
    // the teammate's commit is the replay's parent; our finalization's content is on top
    expect(remote.git(['rev-parse', `${tip}^`]).trim()).toBe(theirs);
    expect(remote.git(['rev-parse', `${tip}^{tree}`]).trim()).toBe(r.git(['rev-parse', `${ours}^{tree}`]).trim());
    expect(remote.git(['show', '-s', '--format=%s', tip]).trim()).toBe(`Finalize transcript for Checkpoint: ${id}`);
    expect(remoteRefs(remote).get(goRef(other))).toBe(r.git(['rev-parse', goRef(other)]).trim());
    expect(queuedRefs(r)).toEqual([]);
  });

  it("a replay that conflicts with the teammate's commit leaves the ref queued; the remote keeps the teammate's commit", () => {
    const { remote, r, id, theirs } = teammateMovedRemote(cp(ulid(42), 'their finalization'));
    const ours = finalizeGoCheckpoint(r, cp(id, 'our finalization'));
    const other = ulid(43);
    writeGoCheckpoint(r, cp(other));
    writeQueue(r, [line(goRef(id)), line(goRef(other))]);

    const p = userPush(r);
    expect(p.status, p.stderr).toBe(0);
    expect(remote.git(['rev-parse', 'main']).trim()).toBe(r.git(['rev-parse', 'main']).trim());
    expect(remote.git(['rev-parse', goRef(id)]).trim()).toBe(theirs);
    expect(r.git(['rev-parse', goRef(id)]).trim()).toBe(ours);
    expect(remoteRefs(remote).get(goRef(other))).toBe(r.git(['rev-parse', goRef(other)]).trim());
    expect(queuedRefs(r)).toEqual([goRef(id)]);
    expect(p.stderr).toContain('1 checkpoint ref not pushed to origin');
    expect(statusQueued(r)).toBe(1);
  });

  it('malformed and hostile queue lines are skipped and never reach git argv', () => {
    const remote = bareRemote();
    const r = clone(remote, 'a');
    const id = ulid(7);
    writeGoCheckpoint(r, cp(id));
    const hostile = [
      line('refs/heads/main'),
      line(`+${goRef(id)}`),
      line('refs/entire/checkpoints/../../heads/evil'),
      line('--exec=touch /tmp/pwned-entire'),
      line(`refs/entire/checkpoints/${id.slice(-2)}/--exec=x`),
      line(`refs/entire/checkpoints/ZZ/${id}`),
      line(`${goRef(id)}/extra`),
      '{"ref":',
      'not json',
      '["refs/heads/main"]',
      JSON.stringify({ ref: 'x'.repeat(5000) }),
    ];
    writeQueue(r, [...hostile, line(goRef(id))]);
    expect(statusQueued(r)).toBe(1);
    const trace = join(tempDir(), 'trace');
    const p = userPush(r, { GIT_TRACE: trace });
    expect(p.status, p.stderr).toBe(0);
    const pushes = readFileSync(trace, 'utf8')
      .split('\n')
      .filter((l) => / built-in: git push --no-verify --porcelain /.test(l) && !/entire\/checkpoints\/v1|refs\/notes\//.test(l));
    expect(pushes).toHaveLength(1);
    expect(pushes[0]).toMatch(new RegExp(`origin [0-9a-f]{40}:${goRef(id)}$`));
    for (const bad of ['--exec', 'refs/heads/main', '+refs', '..', '/ZZ/']) expect(pushes[0]).not.toContain(bad);
    expect(remoteRefs(remote).get(goRef(id))).toBe(r.git(['rev-parse', goRef(id)]).trim());
    expect([...remoteRefs(remote).keys()]).toEqual([goRef(id)]);
    // the rewrite leaves no malformed line behind
    expect(readFileSync(queuePath(r), 'utf8')).toBe('');
  });

  it("the user's push succeeds when the remote rejects refs/entire/*; the refs stay queued and status says how many", () => {
    const remote = bareRemote();
    const hook = join(remote.dir, 'hooks', 'update');
    writeFileSync(hook, '#!/bin/sh\ncase "$1" in refs/entire/*) echo "no entire refs here" >&2; exit 1;; esac\nexit 0\n');
    chmodSync(hook, 0o755);
    const r = clone(remote, 'a');
    const ids = [ulid(1), ulid(2), ulid(3)];
    for (const id of ids) writeGoCheckpoint(r, cp(id));
    writeQueue(r, ids.map((id) => line(goRef(id))));

    const p = userPush(r);
    expect(p.status, p.stderr).toBe(0);
    expect(remote.git(['rev-parse', 'main']).trim()).toBe(r.git(['rev-parse', 'main']).trim());
    expect(remoteRefs(remote).size).toBe(0);
    expect(p.stderr).toContain('3 checkpoint refs not pushed to origin');
    expect(queuedRefs(r)).toEqual(ids.map(goRef));
    expect(statusQueued(r)).toBe(3);
    expect(r.entire(['status']).stdout).toContain('Checkpoint refs queued for push: 3');
  });
});
