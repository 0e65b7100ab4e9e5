import { describe, it, expect, afterAll } from 'vitest';
import { chmodSync, mkdirSync, readFileSync, writeFileSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupAll, tempDir } from '../helpers/repo.js';
import { FakeClaude } from '../helpers/agent.js';
import { enabledRepo, commit, headMessage, trailerIds } from '../e2e/helpers.js';

afterAll(cleanupAll);

/** A stand-in `claude` on PATH that records its arguments, one per line. */
function fakeClaudeBin(): { dir: string; log: string } {
  const dir = tempDir('fake-bin-');
  const log = join(dir, 'argv.txt');
  writeFileSync(join(dir, 'claude'), `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a"; done > '${log}'\nexit 7\n`);
  chmodSync(join(dir, 'claude'), 0o755);
  return { dir, log };
}

describe('entire resume by thread (SPEC-2 §F.2, §F.3)', () => {
  it('--task picks the newest thread, restores it and --exec runs the resume command with the args after --', () => {
    const r = enabledRepo();
    const a = new FakeClaude(r);
    a.hookEnv = { ENTIRE_TASK_ID: 'T-9' };
    a.prompt('Create a.txt with the greeting text');
    a.write('a.txt', 'hi\n');
    a.say('Created a.txt.');
    expect(a.stop().status).toBe(0);
    r.git(['add', 'a.txt']);
    expect(commit(r, ['-m', 'a']).status).toBe(0);
    const [id] = trailerIds(headMessage(r));
    // the live transcript is gone (another machine, a cleaned home)
    rmSync(a.transcriptPath);
    const bin = fakeClaudeBin();
    const env = { PATH: `${bin.dir}:${process.env['PATH']}` };

    const list = r.entire(['resume', '--list', '--json'], { env });
    expect(list.status, list.stderr).toBe(0);
    expect((JSON.parse(list.stdout) as { threads: { session_id: string; task_id: string; checkpoints: string[] }[] }).threads[0]).toMatchObject({ session_id: a.sessionId, task_id: 'T-9', checkpoints: [id] });

    const res = r.entire(['resume', '--task', 'T-9', '--exec', '--', '-p', 'continue please'], { env });
    expect(res.stdout).toContain(`Restored transcript of session ${a.sessionId}`);
    expect(res.stdout).toContain(`To continue this session, run:\n  claude -r ${a.sessionId}\n`);
    // exits with the agent's status
    expect(res.status).toBe(7);
    expect(readFileSync(bin.log, 'utf8')).toBe(`-r\n${a.sessionId}\n-p\ncontinue please\n`);
    expect(existsSync(a.transcriptPath)).toBe(true);

    // the same thread by checkpoint, session prefix and commit
    for (const args of [['--checkpoint', id!], ['--session', a.sessionId.slice(0, 8)], ['--commit', 'HEAD']]) {
      const x = r.entire(['resume', ...args, '--list', '--json'], { env });
      expect((JSON.parse(x.stdout) as { threads: { session_id: string }[] }).threads.map((t) => t.session_id)).toEqual([a.sessionId]);
    }
    // two threads and --exec: refused
    const b = new FakeClaude(r);
    b.prompt('Another session on the same branch');
    b.say('ok');
    b.stop();
    const two = r.entire(['resume', '--exec'], { env });
    expect(two.status).toBe(1);
    expect(two.stderr).toContain('--exec needs exactly one thread');
  });

  it('falls back to a new session seeded with the register when the agent is not installed (F2)', () => {
    const r = enabledRepo();
    const a = new FakeClaude(r);
    a.hookEnv = { ENTIRE_TASK_ID: 'T-10' };
    a.prompt('Create b.txt with the farewell text');
    a.write('b.txt', 'bye\n');
    a.say('Created b.txt.');
    expect(a.stop().status).toBe(0);
    r.git(['add', 'b.txt']);
    expect(commit(r, ['-m', 'b']).status).toBe(0);
    const [id] = trailerIds(headMessage(r));
    const emptyBin = tempDir('no-agents-');
    mkdirSync(emptyBin, { recursive: true });
    const env = { PATH: `${emptyBin}:/usr/bin:/bin` };
    const res = r.entire(['resume', '--task', 'T-10'], { env });
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout).toContain(`Cannot resume Claude Code session ${a.sessionId}: claude is not on PATH.`);
    expect(res.stdout).toContain('Start a new session with its context:');
    expect(res.stdout).toContain(`Continue the work of an earlier Claude Code session (Entire checkpoint ${id}). Its context:`);
    expect(res.stdout).toContain('## Execution Register');
    expect(res.stdout).not.toContain('## User Prompts');
    const exec = r.entire(['resume', '--task', 'T-10', '--exec'], { env });
    expect(exec.status).toBe(1);
    const seed = readFileSync(join(r.dir, '.entire', 'tmp', `seed-${id}.md`), 'utf8');
    expect(seed).toMatch(/^Continue the work of an earlier Claude Code session/);
    expect(seed).toContain('- **Goal:** Create b.txt with the farewell text');
  });
});
