/**
 * Crash during pre-push team sync (issue 6 §1), and re-running hooks for
 * the same event: the second run is a no-op (refs and states unchanged
 * apart from timestamps).
 */
import { describe, it, expect, afterAll } from 'vitest';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { cleanupAll, makeRepo, tempDir, repoAt, type TempRepo } from '../helpers/repo.js';
import { FakeClaude } from '../helpers/agent.js';
import { enabledRepo, commit, headMessage, trailerIds, checkpointIds } from '../e2e/helpers.js';
import { armFault, count, refOid, METADATA, expectFastForward, expectFsck, statesParse, expectTrailersResolve, expectHookOk, leftovers } from './helpers.js';

afterAll(cleanupAll);

function agentCommit(r: TempRepo, agent: FakeClaude, file: string): string {
  agent.prompt(`write ${file}`);
  agent.write(file, `// ${file}\n`);
  agent.say(`wrote ${file}`);
  expectHookOk(agent.stop(), 'stop');
  r.git(['add', file]);
  const c = commit(r, ['-m', `add ${file}`]);
  expect(c.status, c.stderr).toBe(0);
  const [id] = trailerIds(headMessage(r));
  expect(id).toBeDefined();
  return id!;
}

/** Put a checkpoint on the remote's metadata branch that the local repo does not have. */
function divergeRemote(remote: TempRepo, home: string): string {
  const dir = join(tempDir(), 'other');
  const o = repoAt(dir, home, remote.env);
  execFileSync('git', ['clone', '-q', '--no-checkout', remote.dir, dir], { env: remote.env });
  o.git(['fetch', '-q', 'origin', 'entire/checkpoints/v1:entire/checkpoints/v1']);
  const id = 'ab' + Math.random().toString(16).slice(2, 12).padEnd(10, '0');
  const shard = `${id.slice(0, 2)}/${id.slice(2)}`;
  const transcript = '{"type":"user","message":{"role":"user","content":"from a teammate"}}\n';
  const meta = { checkpoint_id: id, session_id: 'teammate-session', strategy: 'manual-commit', created_at: '2026-01-01T00:00:00Z', checkpoints_count: 1, files_touched: ['t.go'] };
  const root = {
    checkpoint_id: id,
    strategy: 'manual-commit',
    checkpoints_count: 1,
    files_touched: ['t.go'],
    sessions: [{ metadata: `/${shard}/0/metadata.json`, transcript: `/${shard}/0/full.jsonl`, context: '', content_hash: `/${shard}/0/content_hash.txt`, prompt: '' }],
  };
  const idx = join(dir, '..', 'idx');
  const env = { GIT_INDEX_FILE: idx };
  o.git(['read-tree', 'entire/checkpoints/v1'], { env });
  const put = (path: string, content: string) => {
    const oid = o.git(['hash-object', '-w', '--stdin'], { input: content }).trim();
    o.git(['update-index', '--add', '--cacheinfo', `100644,${oid},${path}`], { env });
  };
  put(`${shard}/metadata.json`, JSON.stringify(root, null, 2) + '\n');
  put(`${shard}/0/metadata.json`, JSON.stringify(meta, null, 2) + '\n');
  put(`${shard}/0/full.jsonl`, transcript);
  put(`${shard}/0/content_hash.txt`, 'sha256:0');
  const tree = o.git(['write-tree'], { env }).trim();
  const c = o.git(['commit-tree', tree, '-p', 'entire/checkpoints/v1', '-m', `Checkpoint: ${id}`]).trim();
  o.git(['push', '-q', '--no-verify', 'origin', `${c}:refs/heads/entire/checkpoints/v1`]);
  return id;
}

const PUSH_POINTS = [
  'pre-push:pre-push-before-push',
  'pre-push:pre-push-after-fetch',
  'pre-push:cas-before-update-ref',
  'pre-push:cas-after-update-ref',
  'pre-push:pre-push-after-merge',
];
// (pre-push asks the remote first (SPEC-2 §E.3), so a diverged remote is merged before the
// first push: there is no second push to crash in, unless another pusher wins the race)

describe('crash in pre-push while merging diverged session logs', () => {
  for (const point of PUSH_POINTS) {
    it(point, () => {
      count('fault points');
      const r = enabledRepo();
      const agent = new FakeClaude(r);
      const id1 = agentCommit(r, agent, 'a.go');
      const remote = makeRepo({ bare: true });
      r.git(['remote', 'add', 'origin', remote.dir]);
      const first = r.gitResult(['push', '-q', 'origin', 'main']);
      expect(first.status, first.stderr).toBe(0);
      expect(refOid(remote, METADATA)).toBe(refOid(r, METADATA));
      const theirs = divergeRemote(remote, r.home);
      const remoteTip0 = refOid(remote, METADATA);
      const id2 = agentCommit(r, agent, 'b.go');
      const tip0 = refOid(r, METADATA);

      const f = armFault(r, point);
      const res = r.gitResult(['push', '-q', 'origin', 'main'], { env: f.env });
      expect(res.status, `the person's push failed: ${res.stderr}`).toBe(0);
      expect(f.fired(), `fault point ${point} was never reached`).toBe(true);
      expect(refOid(remote, 'refs/heads/main')).toBe(refOid(r, 'HEAD'));
      expectFsck(r);
      expectFsck(remote);
      statesParse(r);
      expectFastForward(r, tip0);
      expectFastForward(remote, remoteTip0);

      // the next push completes the sync: both sides hold every checkpoint
      r.write('later.txt', 'later\n');
      r.git(['add', 'later.txt']);
      expect(commit(r, ['-m', 'later']).status).toBe(0);
      const again = r.gitResult(['push', '-q', 'origin', 'main']);
      expect(again.status, again.stderr).toBe(0);
      for (const repo of [r, remote]) {
        const ids = checkpointIds(repo);
        for (const id of [id1, id2, theirs]) expect(ids, `checkpoint ${id} missing`).toContain(id);
      }
      expect(refOid(remote, METADATA)).toBe(refOid(r, METADATA));
      expectFastForward(r, tip0);
      expectFastForward(remote, remoteTip0);
      expectTrailersResolve(r);
      expectFsck(r);
      expectFsck(remote);
    });
  }
});

// ---------------------------------------------------------------------------
// Idempotence: the same event twice changes nothing the second time.

function refsOf(r: TempRepo): string {
  return r
    .git(['for-each-ref', '--format=%(refname) %(objectname)'])
    .split('\n')
    .filter((l) => !l.startsWith('refs/entire-tmp/'))
    .join('\n');
}

const VOLATILE = new Set(['last_interaction_time']);

function statesOf(r: TempRepo, alsoIgnore: string[] = []): string {
  const out: Record<string, unknown> = {};
  for (const [sid, s] of statesParse(r)) {
    const copy: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(s)) if (!VOLATILE.has(k) && !alsoIgnore.includes(k)) copy[k] = v;
    out[sid] = copy;
  }
  return JSON.stringify(out, null, 1);
}

function expectNoOp(r: TempRepo, what: string, run: () => void, alsoIgnore: string[] = []): void {
  run();
  const refs = refsOf(r);
  const states = statesOf(r, alsoIgnore);
  run();
  expect(refsOf(r), `${what}: refs changed on the second run`).toBe(refs);
  expect(statesOf(r, alsoIgnore), `${what}: state changed on the second run`).toBe(states);
  expect(leftovers(r), `${what}: leftovers`).toEqual([]);
}

describe('re-running a hook for the same event is a no-op', () => {
  it('stop, session-start, session-end, post-task, post-commit, commit-msg, pre-push, doctor', () => {
    const r = enabledRepo();
    const agent = new FakeClaude(r);
    expectNoOp(r, 'session-start', () => expectHookOk(agent.sessionStart(), 'session-start'));
    agent.prompt('write a');
    agent.write('a.go', 'package a\n');
    agent.say('done');
    // the same Stop event again (Claude Code logs each Stop in the transcript once)
    const stopAgain = () => expectHookOk(agent.hook('stop', { stop_hook_active: false }), 'stop');
    expectHookOk(agent.stop(), 'stop');
    expectNoOp(r, 'stop', stopAgain);
    expectNoOp(r, 'prompt', () => expectHookOk(agent.hook('user-prompt-submit', { prompt: 'again' }), 'prompt'), ['turn_id']);
    expectNoOp(r, 'stop after a repeated prompt', stopAgain);
    const task = { tool_use_id: 'toolu_t1', tool_name: 'Task', tool_input: { description: 'd' } };
    expectNoOp(r, 'pre-task', () => expectHookOk(agent.hook('pre-task', task), 'pre-task'));
    expectNoOp(r, 'post-task', () => expectHookOk(agent.hook('post-task', { ...task, tool_response: { agentId: 'nope' } }), 'post-task'));

    r.git(['add', 'a.go']);
    expect(commit(r, ['-m', 'a']).status).toBe(0);
    expectTrailersResolve(r);
    expectNoOp(r, 'post-commit', () => expectHookOk(r.entire(['hooks', 'git', 'post-commit']), 'post-commit'));
    const msg = join(r.dir, '..', 'MSG');
    writeFileSync(msg, headMessage(r));
    expectNoOp(r, 'commit-msg', () => expectHookOk(r.entire(['hooks', 'git', 'commit-msg', msg]), 'commit-msg'));

    const remote = makeRepo({ bare: true });
    r.git(['remote', 'add', 'origin', remote.dir]);
    expect(r.gitResult(['push', '-q', 'origin', 'main']).status).toBe(0);
    expectNoOp(r, 'pre-push', () => expectHookOk(r.entire(['hooks', 'git', 'pre-push', 'origin', remote.dir]), 'pre-push'));
    expect(refOid(remote, METADATA)).toBe(refOid(r, METADATA));
    expectNoOp(r, 'doctor --force', () => expect(r.entire(['doctor', '--force']).status).toBe(0));
    expectNoOp(r, 'session-end', () => expectHookOk(agent.sessionEnd(), 'session-end'));
    expectFsck(r);
  });
});
