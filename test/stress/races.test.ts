/**
 * Races between real processes (issue 6 §2, SPEC P7, §11.32): concurrent
 * commits in linked worktrees, simultaneous Stops, a post-commit racing a
 * Stop of its own session, `git gc` during hooks, 20 hooks of one session at
 * once, and locks left by dead or stuck processes. No checkpoint and no state
 * update is lost; no lock or temp file is left behind.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, cleanupAll, makeRepo, type TempRepo } from '../helpers/repo.js';
import { FakeClaude } from '../helpers/agent.js';
import { enabledRepo, headMessage, trailerIds, checkpointIds, showCheckpointFile } from '../e2e/helpers.js';
import { count, refOid, METADATA, expectFsck, statesParse, expectTrailersResolve, expectHookOk, expectQuiet, leftovers, logLines } from './helpers.js';

afterAll(cleanupAll);

interface Done {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Start a process now; resolves when it exits. */
function start(cmd: string, args: string[], o: { cwd: string; env: NodeJS.ProcessEnv; input?: string }): Promise<Done> {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { cwd: o.cwd, env: o.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('error', reject);
    p.on('close', (status, signal) => resolve({ status, signal, stdout, stderr }));
    p.stdin.on('error', () => undefined);
    p.stdin.end(o.input ?? '');
  });
}

function gitAsync(r: TempRepo, args: string[], cwd = r.dir, env: Record<string, string> = {}): Promise<Done> {
  return start('git', args, { cwd, env: { ...r.env, ENTIRE_TEST_TTY: '0', GIT_EDITOR: 'true', ...env } });
}

function hookAsync(agent: FakeClaude, verb: string, extra: Record<string, unknown> = {}, env: Record<string, string> = {}): Promise<Done> {
  const input = JSON.stringify({ session_id: agent.sessionId, transcript_path: agent.transcriptPath, cwd: agent.cwd, hook_event_name: verb, ...extra });
  return start(process.execPath, [CLI, 'hooks', 'claude-code', verb], { cwd: agent.cwd, env: { ...agent.repo.env, ...env }, input });
}

function expectAllOk(results: Done[], what: string): void {
  for (const [i, d] of results.entries()) {
    expect(d.status, `${what} #${i}: ${d.stderr}`).toBe(0);
    expect(d.stderr.split('\n').filter((l) => /^\s+at /.test(l)), `${what} #${i}: stack trace`).toEqual([]);
  }
}

function expectNoLeftovers(r: TempRepo): void {
  expect(leftovers(r), 'lock/tmp files left behind').toEqual([]);
}

describe('concurrent commits', () => {
  it('8 linked worktrees, each with its own session, commit at the same moment: 8 checkpoints (§11.32)', async () => {
    count('races');
    const r = enabledRepo();
    const agents: FakeClaude[] = [];
    for (let i = 0; i < 8; i++) {
      const wt = join(r.dir, '..', `wt${i}`);
      r.git(['worktree', 'add', '-q', wt, '-b', `wt${i}`]);
      const a = new FakeClaude(r, undefined, { cwd: wt });
      a.prompt(`write w${i}`);
      a.write(`w${i}.go`, `package w${i}\n`);
      a.say(`MARKER-${i}`);
      expectHookOk(a.stop(), 'stop');
      r.git(['add', `w${i}.go`], { cwd: wt });
      agents.push(a);
    }
    const results = await Promise.all(agents.map((a, i) => gitAsync(r, ['commit', '-q', '-m', `w${i}`], a.cwd)));
    expectAllOk(results, 'commit');
    const ids = agents.map((a) => trailerIds(headMessage(r, 'HEAD', a.cwd)));
    for (const [i, got] of ids.entries()) expect(got, `worktree ${i} got no trailer`).toHaveLength(1);
    expect(checkpointIds(r).sort()).toEqual(ids.map((x) => x[0]!).sort());
    for (const [i, got] of ids.entries()) expect(showCheckpointFile(r, got[0]!, '0/full.jsonl')).toContain(`MARKER-${i}`);
    expectTrailersResolve(r);
    for (const [sid, s] of statesParse(r)) expect(s['pending_condensations'], sid).toBeUndefined();
    expectFsck(r);
    expectNoLeftovers(r);
  });
});

describe('simultaneous agent hooks', () => {
  it('two sessions of one worktree stop at the same moment (3 rounds): both steps land on the shared shadow branch', async () => {
    const r = enabledRepo();
    const a = new FakeClaude(r);
    const b = new FakeClaude(r);
    for (let round = 0; round < 3; round++) {
      count('races');
      a.prompt(`round ${round} a`);
      b.prompt(`round ${round} b`);
      a.write(`a${round}.go`, 'a\n');
      b.write(`b${round}.go`, 'b\n');
      a.say(`A-${round}`);
      b.say(`B-${round}`);
      const res = await Promise.all([hookAsync(a, 'stop'), hookAsync(b, 'stop')]);
      expectAllOk(res, 'stop');
      const states = statesParse(r);
      expect(states.get(a.sessionId)!['files_touched']).toContain(`a${round}.go`);
      expect(states.get(b.sessionId)!['files_touched']).toContain(`b${round}.go`);
      const head7 = r.git(['rev-parse', '--short=7', 'HEAD']).trim();
      const tree = r.git(['ls-tree', '-r', '--name-only', `entire/${head7}-e3b0c4`]);
      expect(tree).toContain(`a${round}.go`);
      expect(tree).toContain(`b${round}.go`);
      expectNoLeftovers(r);
    }
    r.git(['add', '-A', '.']);
    const c = spawnSync('git', ['commit', '-q', '-m', 'all'], { cwd: r.dir, env: { ...r.env, ENTIRE_TEST_TTY: '0' }, encoding: 'utf8' });
    expect(c.status, c.stderr).toBe(0);
    const [id] = trailerIds(headMessage(r));
    const root = JSON.parse(showCheckpointFile(r, id!, 'metadata.json'));
    expect(root.sessions).toHaveLength(2);
    expectFsck(r);
  });

  it('a post-commit races the Stop of its own session (3 rounds): the checkpoint is written and finalized', async () => {
    const r = enabledRepo();
    const agent = new FakeClaude(r);
    for (let round = 0; round < 3; round++) {
      count('races');
      agent.prompt(`round ${round}`);
      agent.write(`f${round}.go`, 'x\n');
      agent.say(`MARKER-${round}`);
      r.git(['add', `f${round}.go`]);
      agent.bash('git commit', 'ok');
      agent.say(`END-${round}`);
      const [c, s] = await Promise.all([gitAsync(r, ['commit', '-q', '-m', `f${round}`]), hookAsync(agent, 'stop')]);
      expectAllOk([c, s], 'commit/stop');
      const [id] = trailerIds(headMessage(r));
      expect(id, 'the commit lost its trailer').toBeDefined();
      expectTrailersResolve(r);
      // whichever ran first, the checkpoint holds the whole turn and nothing stays pending
      expect(showCheckpointFile(r, id!, '0/full.jsonl')).toContain(`END-${round}`);
      const st = statesParse(r).get(agent.sessionId)!;
      expect(st['turn_checkpoint_ids'], JSON.stringify(st)).toBeUndefined();
      expect(st['pending_condensations'], JSON.stringify(st)).toBeUndefined();
      expect(st['phase']).toBe('idle');
      expectNoLeftovers(r);
    }
    expectFsck(r);
  });

  it('20 concurrent Stop and prompt hooks of one session: parseable state, no tmp or lock files (§11.32)', async () => {
    count('races');
    const r = enabledRepo();
    const agent = new FakeClaude(r);
    agent.prompt('start');
    agent.write('a.go', 'a\n');
    const runs = Array.from({ length: 20 }, (_, i) =>
      i % 2 === 0 ? hookAsync(agent, 'stop', {}, { ENTIRE_LOCK_WAIT_MS: '20000' }) : hookAsync(agent, 'user-prompt-submit', { prompt: `p${i}` }, { ENTIRE_LOCK_WAIT_MS: '20000' }),
    );
    const res = await Promise.all(runs);
    expectAllOk(res, 'hook');
    for (const d of res) expectQuiet(d.stderr, 'hook', 1);
    const st = statesParse(r).get(agent.sessionId)!;
    expect(['active', 'idle']).toContain(st['phase']);
    expect(st['files_touched']).toEqual(['a.go']);
    expectNoLeftovers(r);
    expect(readdirSync(join(r.dir, '.entire', 'tmp')).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    expectFsck(r);
  });
});

describe('git gc during hooks', () => {
  it('gc.auto=1 makes every commit run gc --auto (detached) while the next hooks run', async () => {
    const r = enabledRepo();
    r.git(['config', 'gc.auto', '1']);
    r.git(['config', 'gc.autoPackLimit', '1']);
    const agent = new FakeClaude(r);
    for (let round = 0; round < 3; round++) {
      count('races');
      agent.prompt(`round ${round}`);
      agent.write(`g${round}.go`, 'x\n');
      agent.say(`MARKER-${round}`);
      expectHookOk(agent.stop(), 'stop');
      r.git(['add', `g${round}.go`]);
      const c = spawnSync('git', ['commit', '-q', '-m', `g${round}`], { cwd: r.dir, env: { ...r.env, ENTIRE_TEST_TTY: '0' }, encoding: 'utf8' });
      expect(c.status, c.stderr).toBe(0);
    }
    // let a detached gc finish before fsck
    for (let i = 0; i < 100 && existsSync(join(r.dir, '.git', 'gc.pid')); i++) await new Promise((res) => setTimeout(res, 50));
    expect(trailerIds(headMessage(r))).toHaveLength(1);
    expect(expectTrailersResolve(r)).toHaveLength(3);
    expectFsck(r);
    expectNoLeftovers(r);
  });

  it('git gc runs concurrently with a Stop, a commit and a finalization (3 rounds)', async () => {
    const r = enabledRepo();
    const agent = new FakeClaude(r);
    for (let round = 0; round < 3; round++) {
      count('races');
      agent.prompt(`round ${round}`);
      agent.write(`h${round}.go`, 'x\n');
      agent.say(`MARKER-${round}`);
      r.git(['add', `h${round}.go`]);
      // mid-turn commit with gc running alongside
      const [c, g1] = await Promise.all([gitAsync(r, ['commit', '-q', '-m', `h${round}`]), gitAsync(r, ['gc', '-q'])]);
      expectAllOk([c], 'commit');
      expect(g1.status, g1.stderr).toBe(0);
      agent.say(`END-${round}`);
      // the Stop finalizes the checkpoint while gc repacks again
      const [s, g2] = await Promise.all([hookAsync(agent, 'stop'), gitAsync(r, ['gc', '-q'])]);
      expectAllOk([s], 'stop');
      expect(g2.status, g2.stderr).toBe(0);
      const [id] = trailerIds(headMessage(r));
      expect(showCheckpointFile(r, id!, '0/full.jsonl')).toContain(`END-${round}`);
    }
    expect(expectTrailersResolve(r)).toHaveLength(3);
    expectFsck(r);
    expectNoLeftovers(r);
  });
});

describe('locks left behind', () => {
  function sessionsDir(r: TempRepo): string {
    return join(r.dir, '.git', 'entire-sessions');
  }
  function deadPid(): number {
    const p = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    return Number(p.stdout);
  }

  it('a lock of a dead process is taken over at once', () => {
    count('races');
    const r = enabledRepo();
    const agent = new FakeClaude(r);
    agent.prompt('start');
    writeFileSync(join(sessionsDir(r), `${agent.sessionId}.lock`), JSON.stringify({ pid: deadPid(), created_ms: Date.now(), token: 'dead' }) + '\n');
    agent.write('a.go', 'a\n');
    const res = agent.stop({ ENTIRE_LOCK_WAIT_MS: '1000' });
    expectHookOk(res, 'stop');
    expect(res.stderr).toBe('');
    expect(statesParse(r).get(agent.sessionId)!['phase']).toBe('idle');
    expect(statesParse(r).get(agent.sessionId)!['files_touched']).toEqual(['a.go']);
    expectNoLeftovers(r);
  });

  it('a lock of a live process older than 30 s is taken over; a garbled lock file too', () => {
    count('races', 2);
    const r = enabledRepo();
    const agent = new FakeClaude(r);
    agent.prompt('start');
    const lock = join(sessionsDir(r), `${agent.sessionId}.lock`);
    writeFileSync(lock, JSON.stringify({ pid: process.pid, created_ms: Date.now() - 31_000, token: 'old' }) + '\n');
    agent.write('a.go', 'a\n');
    expectHookOk(agent.stop({ ENTIRE_LOCK_WAIT_MS: '1000' }), 'stop');
    expect(statesParse(r).get(agent.sessionId)!['phase']).toBe('idle');
    expectNoLeftovers(r);
    // garbled content, old mtime: stale by age
    writeFileSync(lock, '{"pid":');
    const old = new Date(Date.now() - 60_000);
    spawnSync('touch', ['-d', old.toISOString(), lock]);
    expectHookOk(agent.prompt('next'), 'prompt');
    expect(statesParse(r).get(agent.sessionId)!['phase']).toBe('active');
    expectNoLeftovers(r);
  });

  it('a lock held by a live process: the hook gives up after ENTIRE_LOCK_WAIT_MS, logs it, and a commit leaves a pending side file that the next hook merges', () => {
    count('races', 2);
    const r = enabledRepo();
    const agent = new FakeClaude(r);
    agent.prompt('start');
    agent.write('a.go', 'a\n');
    agent.say('MARKER');
    expectHookOk(agent.stop(), 'stop');
    const lock = join(sessionsDir(r), `${agent.sessionId}.lock`);
    writeFileSync(lock, JSON.stringify({ pid: process.pid, created_ms: Date.now(), token: 'busy' }) + '\n');
    const res = agent.hook('user-prompt-submit', { prompt: 'blocked' }, { ENTIRE_LOCK_WAIT_MS: '200' });
    expectHookOk(res, 'blocked prompt');
    expect(logLines(r).some((l) => l['level'] === 'ERROR' && String(l['error'] ?? '').includes('lock'))).toBe(true);
    r.git(['add', 'a.go']);
    // post-commit waits its own bounded time for the lock, then leaves a side file
    const c = spawnSync('git', ['commit', '-q', '-m', 'a'], { cwd: r.dir, env: { ...r.env, ENTIRE_TEST_TTY: '0' }, encoding: 'utf8' });
    expect(c.status, c.stderr).toBe(0);
    expectQuiet(c.stderr, 'commit', 2);
    const [id] = trailerIds(headMessage(r));
    expect(id).toBeDefined();
    expect(readdirSync(sessionsDir(r)).some((n) => n.includes('.pending-'))).toBe(true);
    // the holder goes away; the next hook writes the checkpoint
    writeFileSync(lock, JSON.stringify({ pid: deadPid(), created_ms: Date.now(), token: 'busy' }) + '\n');
    expectHookOk(agent.prompt('go on'), 'prompt');
    expectTrailersResolve(r);
    expect(showCheckpointFile(r, id!, '0/full.jsonl')).toContain('MARKER');
    expect(readdirSync(sessionsDir(r)).some((n) => n.includes('.pending-'))).toBe(false);
    expectNoLeftovers(r);
    expectFsck(r);
  });
});

describe('concurrent pushes of diverged session logs', () => {
  it('two clones push to one remote at the same moment: the remote ends with both checkpoints', async () => {
    count('races');
    const remote = makeRepo({ bare: true });
    const a = enabledRepo();
    a.git(['remote', 'add', 'origin', remote.dir]);
    expect(a.gitResult(['push', '-q', 'origin', 'main']).status).toBe(0);
    const b = enabledRepo();
    b.git(['remote', 'add', 'origin', remote.dir]);
    b.git(['fetch', '-q', 'origin']);
    b.git(['reset', '-q', '--hard', 'origin/main']);
    b.git(['fetch', '-q', 'origin', '+entire/checkpoints/v1:entire/checkpoints/v1']);
    const ids: string[] = [];
    for (const [r, name] of [[a, 'a'], [b, 'b']] as const) {
      const ag = new FakeClaude(r);
      ag.prompt(`write ${name}`);
      ag.write(`${name}.go`, 'x\n');
      expectHookOk(ag.stop(), 'stop');
      r.git(['add', `${name}.go`]);
      expect(spawnSync('git', ['commit', '-q', '-m', name], { cwd: r.dir, env: { ...r.env, ENTIRE_TEST_TTY: '0' } }).status).toBe(0);
      ids.push(trailerIds(headMessage(r))[0]!);
      r.git(['checkout', '-q', '-b', `topic-${name}`]);
    }
    const res = await Promise.all([gitAsync(a, ['push', '-q', 'origin', 'topic-a']), gitAsync(b, ['push', '-q', 'origin', 'topic-b'])]);
    expectAllOk(res, 'push');
    // one of them may have lost the race three times; a later push settles it
    for (const r of [a, b]) expect(r.gitResult(['push', '-q', 'origin', `HEAD:refs/heads/${r === a ? 'topic-a' : 'topic-b'}`]).status).toBe(0);
    const remoteIds = checkpointIds(remote);
    for (const id of ids) expect(remoteIds).toContain(id);
    expect(refOid(remote, METADATA)).not.toBeNull();
    expectFsck(remote);
    expectFsck(a);
    expectFsck(b);
  });
});

describe('maintenance commands racing hooks', () => {
  it('clean --force and doctor --force run while sessions stop and commit (3 rounds): no step, state or checkpoint is lost', async () => {
    const r = enabledRepo();
    const known = new FakeClaude(r);
    for (let round = 0; round < 3; round++) {
      count('races');
      known.prompt(`round ${round}`);
      known.write(`k${round}.go`, 'k\n');
      known.say(`K-${round}`);
      // a new session starts while the known one stops and maintenance runs
      const fresh = new FakeClaude(r);
      const res = await Promise.all([
        hookAsync(known, 'stop'),
        hookAsync(fresh, 'user-prompt-submit', { prompt: `fresh ${round}` }),
        start(process.execPath, [CLI, 'clean', '--force'], { cwd: r.dir, env: r.env }),
        start(process.execPath, [CLI, 'doctor', '--force'], { cwd: r.dir, env: r.env }),
      ]);
      expectAllOk(res.slice(0, 2), 'hook');
      for (const d of res.slice(2)) expectQuiet(d.stderr, 'maintenance', 1);
      fresh.write(`f${round}.go`, 'f\n');
      fresh.say(`F-${round}`);
      const res2 = await Promise.all([hookAsync(fresh, 'stop'), start(process.execPath, [CLI, 'clean', '--force'], { cwd: r.dir, env: r.env })]);
      expectAllOk(res2.slice(0, 1), 'stop');
      expectQuiet(res2[1]!.stderr, 'clean', 1);
      const states = statesParse(r);
      expect(states.get(known.sessionId)!['files_touched']).toContain(`k${round}.go`);
      expect(states.get(fresh.sessionId)!['files_touched']).toContain(`f${round}.go`);
      const head7 = r.git(['rev-parse', '--short=7', 'HEAD']).trim();
      const tree = r.git(['ls-tree', '-r', '--name-only', `entire/${head7}-e3b0c4`]);
      expect(tree, 'a step was deleted by clean').toContain(`k${round}.go`);
      expect(tree, 'a step was deleted by clean').toContain(`f${round}.go`);
      r.git(['add', '-A', '.']);
      const [c, cl] = await Promise.all([gitAsync(r, ['commit', '-q', '-m', `round ${round}`]), start(process.execPath, [CLI, 'clean', '--force'], { cwd: r.dir, env: r.env })]);
      expectAllOk([c], 'commit');
      expectQuiet(cl.stderr, 'clean', 1);
      const [id] = trailerIds(headMessage(r));
      expect(id).toBeDefined();
      expectTrailersResolve(r);
      const slots = JSON.parse(showCheckpointFile(r, id!, 'metadata.json')).sessions.length;
      expect(slots).toBe(2);
    }
    expectFsck(r);
    expectNoLeftovers(r);
  });
});

describe('metadata branch writers racing each other', () => {
  it('a post-commit condense races a pre-push merge of diverged session logs (2 rounds): both land', async () => {
    const remote = makeRepo({ bare: true });
    const a = enabledRepo();
    a.git(['remote', 'add', 'origin', remote.dir]);
    expect(a.gitResult(['push', '-q', 'origin', 'main']).status).toBe(0);
    const b = enabledRepo();
    b.git(['remote', 'add', 'origin', remote.dir]);
    b.git(['fetch', '-q', 'origin']);
    b.git(['reset', '-q', '--hard', 'origin/main']);
    b.git(['fetch', '-q', 'origin', '+entire/checkpoints/v1:entire/checkpoints/v1']);
    const agentA = new FakeClaude(a);
    const agentB = new FakeClaude(b);
    const wt = join(a.dir, '..', 'a-wt');
    a.git(['worktree', 'add', '-q', wt, '-b', 'side']);
    const agentW = new FakeClaude(a, undefined, { cwd: wt });
    const expected: string[] = [];
    for (let round = 0; round < 2; round++) {
      count('races');
      // the remote moves on (b pushes a checkpoint), a has a new one of its own
      for (const [r, ag, name] of [[b, agentB, `b${round}`], [a, agentA, `a${round}`]] as const) {
        ag.prompt(`write ${name}`);
        ag.write(`${name}.go`, 'x\n');
        expectHookOk(ag.stop(), 'stop');
        r.git(['add', `${name}.go`]);
        expect(spawnSync('git', ['commit', '-q', '-m', name], { cwd: r.dir, env: { ...r.env, ENTIRE_TEST_TTY: '0' } }).status).toBe(0);
        expected.push(trailerIds(headMessage(r))[0]!);
      }
      expect(b.gitResult(['push', '-q', 'origin', `HEAD:refs/heads/b-topic-${round}`]).status).toBe(0);
      // in a's second worktree a session commits while a's push merges the diverged logs
      agentW.prompt(`write w${round}`);
      agentW.write(`w${round}.go`, 'x\n');
      expectHookOk(agentW.stop(), 'stop');
      a.git(['add', `w${round}.go`], { cwd: wt });
      const [p, c] = await Promise.all([gitAsync(a, ['push', '-q', 'origin', `HEAD:refs/heads/a-topic-${round}`]), gitAsync(a, ['commit', '-q', '-m', `w${round}`], wt)]);
      expectAllOk([p, c], 'push/commit');
      expected.push(trailerIds(headMessage(a, 'HEAD', wt))[0]!);
    }
    // one more push settles whatever lost a race
    expect(a.gitResult(['push', '-q', 'origin', 'HEAD:refs/heads/a-final']).status).toBe(0);
    const local = checkpointIds(a);
    const onRemote = checkpointIds(remote);
    for (const id of expected) {
      expect(local, `checkpoint ${id} lost locally`).toContain(id);
      expect(onRemote, `checkpoint ${id} never reached the remote`).toContain(id);
    }
    expectFsck(a);
    expectFsck(remote);
    expectNoLeftovers(a);
  });
});
