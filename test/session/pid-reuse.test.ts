/**
 * Issue 25 point 10: pids wrap (32768 on this kind of machine) and a busy
 * machine reuses a killed hook's pid within seconds. A session lock or a
 * commit intent records its process's start time too, so a reused pid does
 * not make a dead holder look alive (a lock held for 30 s, an intent never
 * recovered and then overwritten by the next commit's).
 */
import { describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/repo.js';
import { acquireSessionLock, inspectLock } from '../../src/session/lock.js';
import { processAlive, processStartTime } from '../../src/process-identity.js';
import { intentStaleness } from '../../src/strategy/commit-message.js';

const live = process.ppid;

describe('a process is its pid and its start time', () => {
  it('processAlive: the same pid with another start time is another process', () => {
    const start = processStartTime(live);
    expect(start).toMatch(/^\d+$/);
    expect(processAlive(live, start!)).toBe(true);
    expect(processAlive(live, '1')).toBe(false);
    expect(processAlive(live, undefined)).toBe(true); // not recorded: the pid decides, as before
  });

  it('a session lock naming a live pid that started at another time is stale and taken over at once', async () => {
    const common = tempDir();
    const dir = join(common, 'entire-sessions');
    mkdirSync(dir, { recursive: true });
    const lock = join(dir, 'sess-1.lock');
    writeFileSync(lock, JSON.stringify({ pid: live, pid_start: '1', created_ms: Date.now(), token: 'abc' }) + '\n');
    expect(inspectLock(lock)?.stale).toBe(true);
    const held = await acquireSessionLock(common, 'sess-1', { waitMs: 200 });
    held.release();
    expect(existsSync(lock)).toBe(false);
    // the live holder itself (its true start time) is waited for
    writeFileSync(lock, JSON.stringify({ pid: live, pid_start: processStartTime(live), created_ms: Date.now(), token: 'abc' }) + '\n');
    expect(inspectLock(lock)?.stale).toBe(false);
    await expect(acquireSessionLock(common, 'sess-1', { waitMs: 100 })).rejects.toThrow(/timed out/);
  });

  it('a commit intent whose git pid now names another process is stale', () => {
    const base = { id: '0123456789ab', mode: 'new' as const, head_before: 'x', created_at: new Date().toISOString(), sessions: {} };
    expect(intentStaleness({ ...base, git_pid: live, git_start: '1' }, new Date())).toBe('process-exited');
    expect(intentStaleness({ ...base, git_pid: live, git_start: processStartTime(live)! }, new Date())).toBeNull();
    expect(intentStaleness({ ...base, git_pid: live }, new Date())).toBeNull();
  });
});
