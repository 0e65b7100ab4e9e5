/**
 * Issue 25 point 11: our `opencode export`/`import`/`session delete` runs must
 * not leave OpenCode's npm-install lock behind (OpenCode 1.18.33 starts a
 * background `npm install @opencode-ai/plugin` in every config directory it
 * loads, under `$XDG_STATE_HOME/opencode/locks/<sha1>.lock/`, and exits before
 * it is done; the next `opencode` then waits ≈ 55 s for the lock to go stale).
 * A fake `opencode` does what the real one does to that directory (a lock of
 * its own pid, never released) and logs the environment it was given.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { chmodSync, existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { cleanupAll, FIXTURES, makeRepo, tempDir } from '../helpers/repo.js';
import { openCodeLocksDir, releaseLocksLeftBy } from '../../src/agents/opencode/locks.js';
import { exportOpenCodeSession, importOpenCodeSession } from '../../src/agents/opencode/cli.js';

afterAll(cleanupAll);

const SID = 'ses_debada643ffe4X1HvAuBtC20wH';
const EXPORT = readFileSync(join(FIXTURES, 'real-agents', 'opencode', 'export-sample.json'));

/** A lock directory as OpenCode's EffectFlock writes it. */
function writeLock(locks: string, name: string, meta: { pid: number; hostname?: string; createdAt?: Date; token?: string }): string {
  const dir = join(locks, `${name}.lock`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(join(dir, 'heartbeat'), '');
  writeFileSync(
    join(dir, 'meta.json'),
    JSON.stringify({ token: meta.token ?? 'tok-' + name.slice(0, 6), pid: meta.pid, hostname: meta.hostname ?? hostname(), createdAt: (meta.createdAt ?? new Date()).toISOString() }),
  );
  return dir;
}

/** The pid of a process that has exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', '0']);
  return r.pid;
}

const hex = (c: string) => c.repeat(40);

describe('releaseLocksLeftBy: only locks of a gone process of this host, made during our run', () => {
  it('releases the dead run’s lock and keeps a live holder’s, an older one, another host’s, one being broken', () => {
    const state = tempDir();
    const env = { HOME: '/nonexistent', XDG_STATE_HOME: state };
    const locks = openCodeLocksDir(env)!;
    expect(locks).toBe(join(state, 'opencode', 'locks'));
    const from = Date.now();
    const dead = deadPid();
    const left = writeLock(locks, hex('a'), { pid: dead });
    const live = writeLock(locks, hex('b'), { pid: process.pid });
    const older = writeLock(locks, hex('c'), { pid: dead, createdAt: new Date(from - 60_000) });
    const elsewhere = writeLock(locks, hex('d'), { pid: dead, hostname: 'another-host' });
    const breaking = writeLock(locks, hex('e'), { pid: dead });
    mkdirSync(`${breaking}.breaker`);
    const notALock = join(locks, 'npm-install.lock');
    mkdirSync(notALock);
    const released = releaseLocksLeftBy(env, from, Date.now());
    expect(released).toEqual([`${hex('a')}.lock`]);
    expect(existsSync(left)).toBe(false);
    expect(existsSync(`${left}.breaker`)).toBe(false);
    for (const kept of [live, older, elsewhere, breaking, notALock]) expect(existsSync(kept), kept).toBe(true);
  });

  it('a lock with no owner written in it (the run exited between mkdir and meta.json): released when made during our run, else kept', () => {
    const state = tempDir();
    const env = { HOME: '/nonexistent', XDG_STATE_HOME: state };
    const locks = openCodeLocksDir(env)!;
    mkdirSync(locks, { recursive: true });
    const old = join(locks, `${hex('7')}.lock`);
    mkdirSync(old);
    utimesSync(old, new Date(Date.now() - 120_000), new Date(Date.now() - 120_000));
    const from = Date.now();
    const ours = join(locks, `${hex('8')}.lock`);
    mkdirSync(ours);
    writeFileSync(join(ours, 'heartbeat'), '');
    expect(releaseLocksLeftBy(env, from, Date.now())).toEqual([`${hex('8')}.lock`]);
    expect(existsSync(ours)).toBe(false);
    expect(existsSync(old)).toBe(true);
  });

  it('without XDG_STATE_HOME: ~/.local/state/opencode/locks; nothing there: nothing to do', () => {
    expect(openCodeLocksDir({ HOME: '/h' })).toBe('/h/.local/state/opencode/locks');
    expect(openCodeLocksDir({ HOME: '/h', XDG_STATE_HOME: 'relative' })).toBe('/h/.local/state/opencode/locks');
    expect(releaseLocksLeftBy({ HOME: tempDir() }, 0, Date.now())).toEqual([]);
  });
});

describe('our opencode runs', () => {
  const saved = { PATH: process.env['PATH'], XDG_STATE_HOME: process.env['XDG_STATE_HOME'] };
  afterEach(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  /**
   * A fake `opencode` that, like the real one, takes an npm-install lock in its state directory
   * and exits without releasing it; it logs argv and OPENCODE_DISABLE_PROJECT_CONFIG.
   */
  function fakeOpenCode(): { bin: string; state: string; log: () => string[] } {
    const bin = tempDir();
    const state = tempDir();
    writeFileSync(
      join(bin, 'opencode'),
      `#!/bin/sh
echo "project-config-disabled=\${OPENCODE_DISABLE_PROJECT_CONFIG:-no} $*" >> "${join(bin, 'argv.log')}"
lock="$XDG_STATE_HOME/opencode/locks/${hex('f')}.lock"
mkdir -p "$lock"
printf '{"token":"t","pid":%s,"hostname":"%s","createdAt":"%s"}' $$ "${hostname()}" "$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)" > "$lock/meta.json"
: > "$lock/heartbeat"
case "$1" in
  export) cat "${join(bin, 'held.json')}" ;;
esac
`,
    );
    chmodSync(join(bin, 'opencode'), 0o755);
    writeFileSync(join(bin, 'held.json'), EXPORT);
    process.env['PATH'] = `${bin}:${saved.PATH}`;
    process.env['XDG_STATE_HOME'] = state;
    return { bin, state, log: () => readFileSync(join(bin, 'argv.log'), 'utf8').trim().split('\n') };
  }

  it('export and import: no project configuration, and no install lock left behind; a live holder’s lock stays', async () => {
    const repo = makeRepo();
    const fake = fakeOpenCode();
    const locks = join(fake.state, 'opencode', 'locks');
    const live = writeLock(locks, hex('1'), { pid: process.pid });
    expect('bytes' in (await exportOpenCodeSession(repo.dir, SID))).toBe(true);
    expect(existsSync(join(locks, `${hex('f')}.lock`))).toBe(false);
    await importOpenCodeSession(repo.dir, SID, EXPORT);
    expect(existsSync(join(locks, `${hex('f')}.lock`))).toBe(false);
    expect(existsSync(live)).toBe(true);
    expect(fake.log()).toEqual([`project-config-disabled=1 export --pure ${SID}`, expect.stringMatching(/^project-config-disabled=1 import --pure \//)]);
  });
});
