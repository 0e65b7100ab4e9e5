/**
 * Handing the session lock to a turn-end worker (SessionLock.handOver,
 * adoptSessionLock; src/strategy/turn-end-worker.ts).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireSessionLock, adoptSessionLock, inspectLock } from '../../src/session/lock.js';
import { isEntireError } from '../../src/errors.js';
import { tempDir } from '../helpers/repo.js';

const SID = 'handover-session';

function commonDir(): string {
  return join(tempDir(), '.git');
}

describe('session lock handover', () => {
  it('the lock names the new holder, is not removed by the giver, and is adopted only by its token', async () => {
    const dir = commonDir();
    const lock = await acquireSessionLock(dir, SID);
    const holder = spawn('sleep', ['30']);
    try {
      lock.handOver(holder.pid!);
      lock.release(); // the giver's release no longer touches it
      const info = inspectLock(lock.path)!;
      expect(info).toMatchObject({ pid: holder.pid, token: lock.token, stale: false, handedOver: true });
      expect(adoptSessionLock(dir, SID, 'not-the-token')).toBeNull();
      const adopted = adoptSessionLock(dir, SID, lock.token)!;
      expect(adopted).not.toBeNull();
      expect(JSON.parse(readFileSync(lock.path, 'utf8'))['pid']).toBe(process.pid);
      adopted.release();
      expect(inspectLock(lock.path)).toBeNull();
    } finally {
      holder.kill();
    }
  });

  it('a waiter with an explicit bound (git hooks) gives up on a worker; the default waits it out', async () => {
    const dir = commonDir();
    const lock = await acquireSessionLock(dir, SID);
    const holder = spawn('sleep', ['30']);
    const prev = process.env['ENTIRE_LOCK_WAIT_MS'];
    process.env['ENTIRE_LOCK_WAIT_MS'] = '100';
    try {
      lock.handOver(holder.pid!);
      const bounded = await acquireSessionLock(dir, SID, { waitMs: 100 }).then(
        () => 'acquired',
        (e: unknown) => (isEntireError(e) ? e.code : String(e)),
      );
      expect(bounded).toBe('LOCK_TIMEOUT');
      // the worker finishes (dies) well after the 100 ms default wait: the waiter is still there
      const waiting = acquireSessionLock(dir, SID);
      await new Promise((res) => setTimeout(res, 400));
      holder.kill();
      const got = await waiting;
      expect(inspectLock(got.path)?.pid).toBe(process.pid);
      got.release();
    } finally {
      holder.kill();
      if (prev === undefined) delete process.env['ENTIRE_LOCK_WAIT_MS'];
      else process.env['ENTIRE_LOCK_WAIT_MS'] = prev;
    }
  });
});
