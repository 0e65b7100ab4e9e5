import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync, mkdirSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { acquireSessionLock, acquireSessionLockSync, inspectLock, tryTakeover, withSessionLock } from '../../src/session/lock.js';
import { loadState } from '../../src/session/store.js';
import { isEntireError } from '../../src/errors.js';
import { tempDir } from '../helpers/repo.js';

let workerJs = '';

beforeAll(() => {
  workerJs = join(tempDir(), 'lock-worker.cjs');
  buildSync({
    entryPoints: [join(import.meta.dirname, 'lock-worker.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile: workerJs,
    logLevel: 'error',
  });
});

function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', ''], { stdio: 'ignore' });
  expect(r.status).toBe(0);
  return r.pid!;
}

function runWorker(commonDir: string, sid: string, n: number): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [workerJs, commonDir, sid, String(n)], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('session lock', () => {
  it('serialises read-modify-write across real processes (no lost update), even starting from a stale lock', async () => {
    const common = tempDir();
    const sid = 'contended';
    // A stale lock of a dead process that every worker meets first.
    mkdirSync(join(common, 'entire-sessions'), { recursive: true });
    writeFileSync(
      join(common, 'entire-sessions', `${sid}.lock`),
      JSON.stringify({ pid: deadPid(), created_ms: Date.now(), token: 'dead' }),
    );
    const procs = 6;
    const each = 15;
    const results = await Promise.all(Array.from({ length: procs }, () => runWorker(common, sid, each)));
    for (const r of results) expect(r, r.stderr).toMatchObject({ code: 0 });
    expect(loadState(common, sid)!.state.checkpoint_count).toBe(procs * each);
    const left = readdirSync(join(common, 'entire-sessions')).filter((n) => n.endsWith('.lock') || n.endsWith('.tmp') || n.endsWith('.takeover'));
    expect(left).toEqual([]);
  });

  it('takes over a lock whose pid is dead', async () => {
    const common = tempDir();
    mkdirSync(join(common, 'entire-sessions'), { recursive: true });
    const path = join(common, 'entire-sessions', 's.lock');
    writeFileSync(path, JSON.stringify({ pid: deadPid(), created_ms: Date.now(), token: 'old' }));
    expect(inspectLock(path)!.stale).toBe(true);
    const lock = await acquireSessionLock(common, 's', { waitMs: 2000 });
    expect(inspectLock(path)!.pid).toBe(process.pid);
    lock.release();
    expect(existsSync(path)).toBe(false);
  });

  it('does not take over a live lock that got the inode number of the stale lock it replaced', async () => {
    const common = tempDir();
    mkdirSync(join(common, 'entire-sessions'), { recursive: true });
    const path = join(common, 'entire-sessions', 's.lock');
    // A waiter judged a dead process's lock stale; meanwhile another waiter removed it and
    // took the lock, and the file system gave the new lock the same inode number.
    const live = await acquireSessionLock(common, 's', { waitMs: 2000 });
    const now = inspectLock(path)!;
    const seenEarlier = { ...now, pid: deadPid(), token: 'dead', stale: true, mtimeMs: now.mtimeMs - 5_000 };
    expect(tryTakeover(path, seenEarlier)).toBe(true); // "look again"
    expect(inspectLock(path)).toMatchObject({ pid: process.pid, token: now.token, stale: false });
    expect(existsSync(`${path}.takeover`)).toBe(false);
    // the very lock it saw is still taken over
    writeFileSync(path, JSON.stringify({ pid: deadPid(), created_ms: Date.now(), token: 'gone' }));
    expect(tryTakeover(path, inspectLock(path)!)).toBe(true);
    expect(existsSync(path)).toBe(false);
    live.release();
  });

  it('takes over a lock older than the stale bound even if its pid is alive', () => {
    const common = tempDir();
    mkdirSync(join(common, 'entire-sessions'), { recursive: true });
    const path = join(common, 'entire-sessions', 's.lock');
    writeFileSync(path, JSON.stringify({ pid: process.pid, created_ms: Date.now() - 60_000, token: 'old' }));
    const lock = acquireSessionLockSync(common, 's', { waitMs: 2000 });
    expect(inspectLock(path)!.stale).toBe(false);
    lock.release();
  });

  it('an unparseable lock file ages by its mtime', () => {
    const common = tempDir();
    mkdirSync(join(common, 'entire-sessions'), { recursive: true });
    const path = join(common, 'entire-sessions', 's.lock');
    writeFileSync(path, '');
    expect(inspectLock(path)!.stale).toBe(false);
    const old = (Date.now() - 120_000) / 1000;
    utimesSync(path, old, old);
    expect(inspectLock(path)!.stale).toBe(true);
  });

  it('throws LOCK_TIMEOUT while a live holder keeps it', async () => {
    const common = tempDir();
    const held = acquireSessionLockSync(common, 's');
    let err: unknown;
    try {
      await acquireSessionLock(common, 's', { waitMs: 150 });
    } catch (e) {
      err = e;
    }
    expect(isEntireError(err, 'LOCK_TIMEOUT')).toBe(true);
    expect((err as Error).message).toContain('s.lock');
    held.release();
    const again = acquireSessionLockSync(common, 's', { waitMs: 150 });
    again.release();
  });

  it('withSessionLock releases after a throwing callback', async () => {
    const common = tempDir();
    await expect(
      withSessionLock(common, 's', () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(existsSync(join(common, 'entire-sessions', 's.lock'))).toBe(false);
  });

  it('release does not remove a lock that was taken over by someone else', () => {
    const common = tempDir();
    const path = join(common, 'entire-sessions', 's.lock');
    const mine = acquireSessionLockSync(common, 's');
    writeFileSync(path, JSON.stringify({ pid: process.pid, created_ms: Date.now(), token: 'someone-else' }));
    mine.release();
    expect(existsSync(path)).toBe(true);
  });

  it('rejects invalid session ids', () => {
    expect(() => acquireSessionLockSync(tempDir(), '../x')).toThrow(/invalid session id/);
  });
});
