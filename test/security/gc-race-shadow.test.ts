/**
 * Issue 25 point 7 (SPEC-2 §A.11 for the shadow writer): `git gc --prune=now`
 * that listed the refs before a turn end moved its shadow branch deletes the
 * step's fresh objects after the writer's quick check (commit and root tree)
 * passed, leaving a branch that names a commit reaching missing objects
 * (seen with refs written through git, ENTIRE_LOCAL_REFS=0). The shadow
 * writer waits out a running gc, asks git, and writes the step again.
 *
 * Deterministic: a `gc.pid` naming a live process stands for the running gc;
 * while the hook waits on it, the test deletes the step's new objects (what
 * gc's prune does), then ends the "gc".
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { rmSync, unlinkSync, writeFileSync, existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { cleanupAll, CLI } from '../helpers/repo.js';
import { world } from '../e2e/helpers.js';

afterAll(cleanupAll);

describe('the shadow writer re-checks its new tip after a gc (issue 25 point 7)', () => {
  it('objects of a fresh step pruned under it: the step is written again, the branch reaches no missing object', async () => {
    const { r, agent } = world();
    const env = { ...r.env, ENTIRE_LOCAL_REFS: '0', ENTIRE_TURN_END: 'inline', ENTIRE_PACK_WRITES: '0' };
    agent.prompt('write a');
    agent.write('a.txt', `unique ${Math.random()}\n`);
    agent.say('wrote a');
    // a long-lived process stands for the running gc
    const fakeGc = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    const gcPid = join(r.dir, '.git', 'gc.pid');
    writeFileSync(gcPid, `${fakeGc.pid} ${hostname()}\n`);
    try {
      const input = JSON.stringify({ session_id: agent.sessionId, transcript_path: agent.transcriptPath, cwd: r.dir, hook_event_name: 'stop', stop_hook_active: false });
      const hook = spawn(process.execPath, [CLI, 'hooks', 'claude-code', 'stop'], { cwd: r.dir, env, stdio: ['pipe', 'ignore', 'pipe'] });
      let stderr = '';
      hook.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      hook.stdin.end(input);
      const exited = new Promise<number | null>((res) => hook.on('exit', (c) => res(c)));
      // the step lands on the shadow branch: then "prune" its loose objects, as gc would
      const shadowRef = (): string | null => {
        const out = r.git(['for-each-ref', '--format=%(refname)', 'refs/heads/entire/']).split('\n').filter((l) => l !== '' && !l.endsWith('/checkpoints/v1'));
        return out[0] ?? null;
      };
      let ref: string | null = null;
      for (let i = 0; i < 3000 && (ref = shadowRef()) === null; i++) await new Promise((res) => setTimeout(res, 10));
      expect(ref, 'no shadow step was written').not.toBeNull();
      const step = r.git(['rev-parse', ref!]).trim();
      const blob = r.git(['rev-parse', `${step}:a.txt`]).trim();
      const loose = join(r.dir, '.git', 'objects', blob.slice(0, 2), blob.slice(2));
      expect(existsSync(loose), 'the step’s blob was written loose').toBe(true);
      unlinkSync(loose);
      rmSync(gcPid);
      expect(await exited, stderr).toBe(0);
      // the branch is whole again: git finds every object it reaches
      const tip = r.git(['rev-parse', ref!]).trim();
      const walk = r.gitResult(['rev-list', '--objects', '--missing=print', tip]);
      expect(walk.status, walk.stderr).toBe(0);
      expect(walk.stdout.split('\n').filter((l) => l.startsWith('?'))).toEqual([]);
      expect(r.git(['cat-file', '-p', `${tip}:a.txt`])).toContain('unique');
      const d = JSON.parse(r.entire(['doctor', '--json']).stdout) as { findings: { kind: string }[] };
      expect(d.findings.map((f) => f.kind)).not.toContain('broken-shadow-ref');
    } finally {
      fakeGc.kill('SIGKILL');
      rmSync(gcPid, { force: true });
    }
  });
});
