/**
 * A hook's input (src/cli/stdin.ts) as agents hand it over: a pipe (Node's spawn),
 * a regular file (`hook < file`, as a shell wrapper does), a named pipe filled in
 * pieces, and no input at all (/dev/null, closed). Read synchronously; every form
 * must give the hook the same payload.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupAll, CLI, testEnv } from '../helpers/repo.js';
import { world, stateOf } from './helpers.js';

afterAll(cleanupAll);

function payload(r: { dir: string }, sid: string, prompt: string): string {
  return JSON.stringify({ session_id: sid, transcript_path: join(r.dir, '..', `${sid}.jsonl`), cwd: r.dir, hook_event_name: 'UserPromptSubmit', prompt });
}

describe('hook input', () => {
  it('from a regular file', () => {
    const { r } = world();
    const file = join(r.dir, '..', 'in.json');
    writeFileSync(file, payload(r, 'sid-file-0001', 'from a file'));
    const fd = openSync(file, 'r');
    const res = spawnSync(process.execPath, [CLI, 'hooks', 'claude-code', 'user-prompt-submit'], { cwd: r.dir, env: testEnv(r.home), stdio: [fd, 'pipe', 'pipe'], encoding: 'utf8' });
    closeSync(fd);
    expect(res.status, res.stderr).toBe(0);
    expect(stateOf(r, 'sid-file-0001')['phase']).toBe('active');
  });

  it('from a named pipe written in pieces, with pauses between them', async () => {
    const { r } = world();
    const fifo = join(r.dir, '..', 'in.fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const text = payload(r, 'sid-fifo-0001', 'from a fifo ' + 'x'.repeat(200_000));
    // the writer is a shell: the hook's reads see the pieces arrive one by one
    const half = Math.floor(text.length / 2);
    writeFileSync(join(r.dir, '..', 'a.part'), text.slice(0, half));
    writeFileSync(join(r.dir, '..', 'b.part'), text.slice(half));
    const writer = spawn('sh', ['-c', `{ cat a.part; sleep 0.2; cat b.part; } > in.fifo`], { cwd: join(r.dir, '..') });
    const written = new Promise((ok) => writer.on('exit', ok));
    const done = new Promise<number>((ok) => {
      const hook = spawn(process.execPath, [CLI, 'hooks', 'claude-code', 'user-prompt-submit'], { cwd: r.dir, env: testEnv(r.home), stdio: [openSync(fifo, 'r'), 'ignore', 'ignore'] });
      hook.on('exit', (c) => ok(c ?? -1));
    });
    expect(await done).toBe(0);
    await written;
    const s = stateOf(r, 'sid-fifo-0001');
    expect(s['phase']).toBe('active');
  });

  it('none: /dev/null and a closed stdin run nothing and exit 0', () => {
    const { r } = world();
    for (const stdin of [openSync('/dev/null', 'r'), 'ignore'] as const) {
      const res = spawnSync(process.execPath, [CLI, 'hooks', 'claude-code', 'user-prompt-submit'], { cwd: r.dir, env: testEnv(r.home), stdio: [stdin, 'pipe', 'pipe'], encoding: 'utf8' });
      expect(res.status).toBe(0);
    }
    expect(existsSync(join(r.dir, '.git', 'entire-sessions', 'sid-file-0001.json'))).toBe(false);
  });

  it('over 64 MiB: refused with a logged cause, and the hook exits 0', () => {
    const { r } = world();
    const file = join(r.dir, '..', 'big.json');
    writeFileSync(file, payload(r, 'sid-big-00001', 'y'.repeat(65 * 1024 * 1024)));
    const fd = openSync(file, 'r');
    const res = spawnSync(process.execPath, [CLI, 'hooks', 'claude-code', 'user-prompt-submit'], { cwd: r.dir, env: testEnv(r.home), stdio: [fd, 'pipe', 'pipe'], encoding: 'utf8' });
    closeSync(fd);
    expect(res.status).toBe(0);
    expect(existsSync(join(r.dir, '.git', 'entire-sessions', 'sid-big-00001.json'))).toBe(false);
    expect(spawnSync('grep', ['-c', 'hook input larger than', join(r.dir, '.entire', 'logs', 'entire.log')], { encoding: 'utf8' }).stdout.trim()).toBe('1');
  });
});
