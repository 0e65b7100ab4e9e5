/**
 * Issue 14, cases 6 and 8 (SPEC-2 §A.2, A.5, A9, A10): what an agent's hook
 * stdin names — a transcript, a subagent id — is checked before anything is
 * opened, read into git or named in a tree.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, writeFileSync, ftruncateSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CLI, cleanupAll, type TempRepo } from '../helpers/repo.js';
import { FakeClaude } from '../helpers/agent.js';
import { enabledRepo } from '../e2e/helpers.js';
import { logLines } from '../stress/helpers.js';

afterAll(cleanupAll);

/** Every object of the repository, as one buffer (for "never stored" checks). */
function allObjects(r: TempRepo): string {
  const res = spawnSync('git', ['cat-file', '--batch-all-objects', '--batch', '--unordered'], { cwd: r.dir, env: r.env, maxBuffer: 1 << 30 });
  return (res.stdout as Buffer).toString('latin1');
}

function allTreePaths(r: TempRepo): string[] {
  const out: string[] = [];
  for (const ref of r.git(['for-each-ref', '--format=%(refname)', 'refs/heads/']).split('\n').filter(Boolean)) {
    out.push(...r.git(['ls-tree', '-r', '-t', '--name-only', '--full-tree', ref]).split('\n').filter(Boolean));
  }
  return out;
}

describe('case 6: a post-task agentId names nothing outside the transcript dir (A10)', () => {
  it('agentId x/../../../../outside: nothing read, no tree entry "..", exit 0', () => {
    const r = enabledRepo();
    const agent = new FakeClaude(r);
    // a *.jsonl the attacker wants read into git
    const outside = join(dirname(r.dir), 'outside.jsonl');
    writeFileSync(outside, JSON.stringify({ type: 'user', message: { role: 'user', content: 'SECRET-OUTSIDE-ROOT' } }) + '\n');
    agent.sessionStart();
    agent.prompt('run a task');
    expect(agent.hook('pre-task', { tool_name: 'Task', tool_use_id: 'toolu_01', tool_input: { description: 'd', prompt: 'p', subagent_type: 'x' } }).status).toBe(0);
    agent.write('t.txt', 'task output\n');
    for (const agentId of ['x/../../../../outside', '../../outside', 'a b', 'x'.repeat(200)]) {
      const res = agent.hook('post-task', {
        tool_name: 'Task',
        tool_use_id: 'toolu_01',
        tool_input: { description: 'd', prompt: 'p', subagent_type: 'x' },
        tool_response: { status: 'completed', agentId, content: [] },
      });
      expect(res.status).toBe(0);
    }
    expect(agent.stop().status).toBe(0);
    expect(logLines(r).filter((l) => l['msg'] === 'hook input refused').length).toBe(4);
    r.git(['add', 't.txt']);
    expect(r.gitResult(['commit', '-q', '-m', 'task']).status).toBe(0);
    expect(allObjects(r)).not.toContain('SECRET-OUTSIDE-ROOT');
    for (const p of allTreePaths(r)) expect(p.split('/')).not.toContain('..');
  });

  it('a tool_use_id with a path in it: the hook exits 0 and writes nothing', () => {
    const r = enabledRepo();
    const agent = new FakeClaude(r);
    agent.sessionStart();
    const res = agent.hook('pre-task', { tool_name: 'Task', tool_use_id: '../../x', tool_input: {} });
    expect(res.status).toBe(0);
    expect(res.stderr.split('\n').filter(Boolean).length).toBeLessThanOrEqual(1);
  });
});

describe('case 8: the transcript path from stdin (A9)', () => {
  it('a FIFO as transcript_path: every hook returns, exit 0, the work is still recorded', () => {
    const r = enabledRepo();
    const agent = new FakeClaude(r);
    const fifo = join(dirname(agent.transcriptPath), 'pipe.jsonl');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const hook = (verb: string, extra: Record<string, unknown> = {}) =>
      spawnSync(process.execPath, [CLI, 'hooks', 'claude-code', verb], {
        cwd: r.dir,
        env: { ...r.env, ENTIRE_STOP_WAIT_MS: '3000' },
        input: JSON.stringify({ session_id: agent.sessionId, transcript_path: fifo, cwd: r.dir, hook_event_name: verb, ...extra }),
        encoding: 'utf8',
        // a hang would be killed here and fail the status check below
        timeout: 30_000,
      });
    for (const [verb, extra] of [
      ['session-start', { source: 'startup' }],
      ['user-prompt-submit', { prompt: 'write f.txt' }],
    ] as const) {
      const res = hook(verb, extra);
      expect(res.signal, `${verb} was killed`).toBeNull();
      expect(res.status).toBe(0);
    }
    r.write('f.txt', 'x\n');
    const stop = hook('stop', { stop_hook_active: false });
    expect(stop.signal, 'stop was killed').toBeNull();
    expect(stop.status).toBe(0);
    r.git(['add', 'f.txt']);
    const c = r.gitResult(['commit', '-q', '-m', 'f']);
    expect(c.status).toBe(0);
    expect(r.git(['log', '-1', '--format=%B'])).toMatch(/Entire-Checkpoint: [0-9a-f]{12}/);
  });

  it('a readable file outside the agent root (/etc/passwd, a file in $HOME) is never read or stored', () => {
    const r = enabledRepo();
    const agent = new FakeClaude(r);
    const secret = join(r.home, 'notes.jsonl');
    writeFileSync(secret, JSON.stringify({ type: 'user', message: { role: 'user', content: 'SECRET-IN-HOME' } }) + '\n');
    for (const tp of ['/etc/passwd', secret]) {
      const input = (verb: string, extra: Record<string, unknown> = {}) =>
        JSON.stringify({ session_id: agent.sessionId, transcript_path: tp, cwd: r.dir, hook_event_name: verb, ...extra });
      expect(r.entire(['hooks', 'claude-code', 'user-prompt-submit'], { input: input('UserPromptSubmit', { prompt: 'go' }) }).status).toBe(0);
      r.write(`g${tp.length}.txt`, 'x\n');
      expect(r.entire(['hooks', 'claude-code', 'stop'], { input: input('Stop') }).status).toBe(0);
      r.git(['add', '-A']);
      expect(r.gitResult(['commit', '-q', '-m', 'g']).status).toBe(0);
    }
    const objects = allObjects(r);
    expect(objects).not.toContain('root:x:0:0');
    expect(objects).not.toContain('SECRET-IN-HOME');
    expect(logLines(r).some((l) => l['msg'] === 'transcript path refused')).toBe(true);
  });

  it('a 1 GB sparse transcript over the size cap is not read; hooks and the commit still work', () => {
    const r = enabledRepo();
    const agent = new FakeClaude(r);
    const big = join(dirname(agent.transcriptPath), 'big.jsonl');
    mkdirSync(dirname(big), { recursive: true });
    const fd = openSync(big, 'w');
    ftruncateSync(fd, 1024 * 1024 * 1024);
    closeSync(fd);
    const input = (verb: string, extra: Record<string, unknown> = {}) =>
      JSON.stringify({ session_id: agent.sessionId, transcript_path: big, cwd: r.dir, hook_event_name: verb, ...extra });
    expect(r.entire(['hooks', 'claude-code', 'user-prompt-submit'], { input: input('UserPromptSubmit', { prompt: 'go' }) }).status).toBe(0);
    r.write('h.txt', 'x\n');
    const stop = r.entire(['hooks', 'claude-code', 'stop'], { input: input('Stop') });
    expect(stop.status).toBe(0);
    r.git(['add', 'h.txt']);
    expect(r.gitResult(['commit', '-q', '-m', 'h']).status).toBe(0);
    expect(r.git(['log', '-1', '--format=%B'])).toMatch(/Entire-Checkpoint: [0-9a-f]{12}/);
    // the session is linked without a transcript: the file was never read
    const id = /Entire-Checkpoint: ([0-9a-f]{12})/.exec(r.git(['log', '-1', '--format=%B']))![1]!;
    const slot = r.git(['ls-tree', '--name-only', `entire/checkpoints/v1:${id.slice(0, 2)}/${id.slice(2)}/0`]);
    expect(slot).toContain('metadata.json');
    expect(slot).not.toContain('full.jsonl');
    const sizes = r.git(['cat-file', '--batch-all-objects', '--batch-check=%(objectsize)']).split('\n').map(Number);
    expect(Math.max(...sizes)).toBeLessThan(1024 * 1024);
  });
});
