/**
 * In-process ref transactions (src/git/ref-files.ts) must leave exactly
 * what `git update-ref --stdin` leaves: refs, reflogs, no locks; detect
 * races; and defer to git for the cases they do not handle.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { existsSync, readFileSync, writeFileSync, mkdirSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { hostname } from 'node:os';
import { makeRepo, cleanupAll, type TempRepo } from '../helpers/repo.js';
import { withEnv } from '../helpers/env.js';
import { openRepo, type Repo } from '../../src/git/repo.js';
import { updateRefsInProcess } from '../../src/git/ref-files.js';
import { updateRefs } from '../../src/git/refs.js';
import { parseSharedRepository } from '../../src/git/shared-perm.js';

afterAll(cleanupAll);

async function withRepo<T>(t: TempRepo, fn: (r: Repo) => Promise<T> | T): Promise<T> {
  return withEnv(t.env, async () => {
    const r = await openRepo(t.dir, { fast: true });
    try {
      return await fn(r);
    } finally {
      r.objects.close();
    }
  });
}

function setup(): { t: TempRepo; a: string; b: string } {
  const t = makeRepo();
  const a = t.git(['rev-parse', 'HEAD']).trim();
  t.write('x.txt', 'x\n');
  const b = t.commitAll('second');
  return { t, a, b };
}

const REF = 'refs/heads/entire/checkpoints/v1';
const SHADOW = 'refs/heads/entire/abc1234-e3b0c4';

describe('in-process ref transactions (files backend)', () => {
  it('creates, moves and deletes refs with the reflog git writes, and leaves no lock', async () => {
    const { t, a, b } = setup();
    await withRepo(t, (r) => {
      expect(updateRefsInProcess(r, [{ ref: REF, newOid: a, oldOid: null }], 'entire')).toBe('ok');
      expect(updateRefsInProcess(r, [{ ref: REF, newOid: b, oldOid: a }, { ref: SHADOW, newOid: a, oldOid: null }], 'entire')).toBe('ok');
    });
    expect(t.git(['rev-parse', REF]).trim()).toBe(b);
    expect(t.git(['rev-parse', SHADOW]).trim()).toBe(a);
    const log = t.git(['reflog', 'show', '--format=%H %gs', REF]).trim().split('\n');
    expect(log).toEqual([`${b} entire`, `${a} entire`]);
    // the raw lines have git's layout: old new ident time tz TAB message
    const raw = readFileSync(join(t.dir, '.git', 'logs', REF), 'utf8').trim().split('\n');
    expect(raw[0]).toMatch(new RegExp(`^0{40} ${a} Test Committer <committer@example.com> \\d+ [+-]\\d{4}\\tentire$`));
    await withRepo(t, (r) => {
      expect(updateRefsInProcess(r, [{ ref: SHADOW, newOid: null, oldOid: a }], 'entire')).toBe('ok');
    });
    expect(t.gitResult(['rev-parse', '--verify', '-q', SHADOW]).status).not.toBe(0);
    expect(existsSync(join(t.dir, '.git', 'logs', SHADOW))).toBe(false);
    expect(t.git(['for-each-ref', '--format=%(refname)', 'refs/heads/entire/']).trim()).toBe(REF);
    expect(t.gitResult(['fsck', '--no-progress']).status).toBe(0);
    expect(existsSync(join(t.dir, '.git', REF + '.lock'))).toBe(false);
  });

  it('reports a race when an expected value does not hold, and changes nothing', async () => {
    const { t, a, b } = setup();
    t.git(['update-ref', REF, a]);
    await withRepo(t, (r) => {
      expect(updateRefsInProcess(r, [{ ref: REF, newOid: b, oldOid: b }], 'entire')).toBe('race');
      expect(updateRefsInProcess(r, [{ ref: REF, newOid: b, oldOid: null }], 'entire')).toBe('race');
      // all or nothing: the second ref's failed check keeps the first unchanged
      expect(updateRefsInProcess(r, [{ ref: SHADOW, newOid: b, oldOid: null }, { ref: REF, newOid: b, oldOid: b }], 'entire')).toBe('race');
    });
    expect(t.git(['rev-parse', REF]).trim()).toBe(a);
    expect(t.gitResult(['rev-parse', '--verify', '-q', SHADOW]).status).not.toBe(0);
    expect(existsSync(join(t.dir, '.git', SHADOW + '.lock'))).toBe(false);
  });

  it('reads packed refs as old values, and leaves deleting one to git', async () => {
    const { t, a, b } = setup();
    t.git(['update-ref', REF, a]);
    t.git(['update-ref', SHADOW, a]);
    t.git(['pack-refs', '--all']);
    await withRepo(t, async (r) => {
      expect(updateRefsInProcess(r, [{ ref: REF, newOid: b, oldOid: a }], 'entire')).toBe('ok');
      expect(updateRefsInProcess(r, [{ ref: SHADOW, newOid: null, oldOid: a }], 'entire')).toBeUndefined();
      // through the public API, git does it
      expect(await updateRefs(r, [{ ref: SHADOW, newOid: null, oldOid: a }])).toBe('ok');
    });
    expect(t.git(['rev-parse', REF]).trim()).toBe(b);
    expect(t.gitResult(['rev-parse', '--verify', '-q', SHADOW]).status).not.toBe(0);
    // a ref both packed and loose: deleting only the loose file would bring the packed value back
    t.git(['update-ref', SHADOW, a]);
    t.git(['pack-refs', '--all']);
    t.git(['update-ref', SHADOW, b]); // now loose (b) over packed (a)
    await withRepo(t, async (r) => {
      expect(updateRefsInProcess(r, [{ ref: SHADOW, newOid: null, oldOid: b }], 'entire')).toBeUndefined();
      expect(await updateRefs(r, [{ ref: SHADOW, newOid: null, oldOid: b }])).toBe('ok');
    });
    expect(t.gitResult(['rev-parse', '--verify', '-q', SHADOW]).status).not.toBe(0);
  });

  it('takes over a lock of its own kind whose holder is gone (killed mid-transaction, issue 25 point 10), never a live one', async () => {
    const { t, a, b } = setup();
    t.git(['update-ref', REF, a]);
    const lock = join(t.dir, '.git', REF + '.lock');
    // a process that ran and exited: its pid is free (or, on a busy machine, names a later process)
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const stat = (pid: number) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[19]!;
    const host = hostname().replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 64) || '_';
    // another machine's lock (a shared file system): never judged from here
    writeFileSync(lock, `entire-ref-lock ${gone.stdout} 12345 other-host\n`);
    await withRepo(t, (r) => {
      expect(updateRefsInProcess(r, [{ ref: REF, newOid: b, oldOid: a }], 'entire')).toBeUndefined();
    });
    writeFileSync(lock, `entire-ref-lock ${gone.stdout} 12345 ${host}\n`);
    await withRepo(t, (r) => {
      expect(updateRefsInProcess(r, [{ ref: REF, newOid: b, oldOid: a }], 'entire')).toBe('ok');
    });
    expect(t.git(['rev-parse', REF]).trim()).toBe(b);
    expect(existsSync(lock)).toBe(false);
    expect(existsSync(lock + '.entire-takeover')).toBe(false);
    // the pid of a live process, recorded with another start time: that pid was reused, the holder is gone
    writeFileSync(lock, `entire-ref-lock ${process.ppid} 1 ${host}\n`);
    await withRepo(t, (r) => {
      expect(updateRefsInProcess(r, [{ ref: REF, newOid: a, oldOid: b }], 'entire')).toBe('ok');
    });
    expect(t.git(['rev-parse', REF]).trim()).toBe(a);
    // a live holder (its pid and start time): left alone, the write defers to git (which refuses)
    writeFileSync(lock, `entire-ref-lock ${process.ppid} ${stat(process.ppid)} ${host}\n`);
    await withRepo(t, (r) => {
      expect(updateRefsInProcess(r, [{ ref: REF, newOid: b, oldOid: a }], 'entire')).toBeUndefined();
    });
    expect(readFileSync(lock, 'utf8')).toBe(`entire-ref-lock ${process.ppid} ${stat(process.ppid)} ${host}\n`);
    expect(t.git(['rev-parse', REF]).trim()).toBe(a);
  });

  it('defers to git when another process holds a lock, a directory is in the way, or HEAD is on the branch', async () => {
    const { t, a, b } = setup();
    t.git(['update-ref', REF, a]);
    writeFileSync(join(t.dir, '.git', REF + '.lock'), '');
    await withRepo(t, async (r) => {
      expect(updateRefsInProcess(r, [{ ref: REF, newOid: b, oldOid: a }], 'entire')).toBeUndefined();
      await expect(updateRefs(r, [{ ref: REF, newOid: b, oldOid: a }])).rejects.toThrow(/cannot update/);
    });
    expect(readFileSync(join(t.dir, '.git', REF + '.lock'), 'utf8')).toBe(''); // someone else's lock is left alone
    mkdirSync(join(t.dir, '.git', 'refs', 'heads', 'dir-ref', 'below'), { recursive: true });
    writeFileSync(join(t.dir, '.git', 'refs', 'heads', 'dir-ref', 'below', 'x'), a + '\n');
    await withRepo(t, (r) => {
      expect(updateRefsInProcess(r, [{ ref: 'refs/heads/dir-ref', newOid: b, oldOid: null }], 'entire')).toBeUndefined();
      expect(updateRefsInProcess(r, [{ ref: 'refs/heads/main', newOid: a, oldOid: b }], 'entire')).toBeUndefined();
    });
    expect(t.git(['rev-parse', 'main']).trim()).toBe(b);
    // the same clash with a packed ref
    t.git(['update-ref', 'refs/heads/packed-dir/x', a]);
    t.git(['pack-refs', '--all']);
    await withRepo(t, (r) => {
      expect(updateRefsInProcess(r, [{ ref: 'refs/heads/packed-dir', newOid: b, oldOid: null }], 'entire')).toBeUndefined();
    });
  });

  it('writes no reflog where git would not (logAllRefUpdates=false)', async () => {
    const { t, a } = setup();
    t.git(['config', 'core.logAllRefUpdates', 'false']);
    await withRepo(t, (r) => {
      expect(updateRefsInProcess(r, [{ ref: REF, newOid: a, oldOid: null }], 'entire')).toBe('ok');
    });
    expect(existsSync(join(t.dir, '.git', 'logs', REF))).toBe(false);
    expect(t.git(['rev-parse', REF]).trim()).toBe(a);
  });

  it('starts no reflog when asked not to (shadow branches), and still grows one that exists', async () => {
    const { t, a, b } = setup();
    await withRepo(t, (r) => {
      expect(updateRefsInProcess(r, [{ ref: SHADOW, newOid: a, oldOid: null, startReflog: false }], 'entire')).toBe('ok');
    });
    expect(t.git(['rev-parse', SHADOW]).trim()).toBe(a);
    expect(existsSync(join(t.dir, '.git', 'logs', SHADOW))).toBe(false);
    // a reflog git started (a shadow branch an older version wrote) keeps its lines
    t.git(['update-ref', '--create-reflog', '-m', 'git', REF, a]);
    await withRepo(t, (r) => {
      expect(updateRefsInProcess(r, [{ ref: REF, newOid: b, oldOid: a, startReflog: false }], 'entire')).toBe('ok');
    });
    expect(t.git(['reflog', 'show', '--format=%H %gs', REF]).trim().split('\n')).toEqual([`${b} entire`, `${a} git`]);
    expect(t.gitResult(['fsck', '--no-progress']).status).toBe(0);
  });

  it('writes the same reflog ident as git, crud and all', async () => {
    const { t, a } = setup();
    const env = { ...t.env, GIT_COMMITTER_NAME: ' Jane Q. Doe. ', GIT_COMMITTER_EMAIL: 'jane@example.com;' };
    t.git(['update-ref', '-m', 'by git', 'refs/heads/by-git', a], { env });
    await withEnv(env, async () => {
      const r = await openRepo(t.dir, { fast: true });
      try {
        expect(updateRefsInProcess(r, [{ ref: 'refs/heads/by-us', newOid: a, oldOid: null }], 'by us')).toBe('ok');
      } finally {
        r.objects.close();
      }
    });
    const identOf = (ref: string) => readFileSync(join(t.dir, '.git', 'logs', ref), 'utf8').split('\n')[0]!.split('\t')[0]!.split(' ').slice(2, -2).join(' ');
    expect(identOf('refs/heads/by-us')).toBe(identOf('refs/heads/by-git'));
    expect(identOf('refs/heads/by-git')).toBe('Jane Q. Doe <jane@example.com>');
    // an ident with angle brackets inside is git's to clean up
    await withEnv({ ...env, GIT_COMMITTER_EMAIL: '<odd@example.com>' }, async () => {
      const r = await openRepo(t.dir, { fast: true });
      try {
        expect(updateRefsInProcess(r, [{ ref: 'refs/heads/odd', newOid: a, oldOid: null }], 'odd')).toBeUndefined();
      } finally {
        r.objects.close();
      }
    });
  });
});

describe('core.sharedRepository (src/git/shared-perm.ts)', () => {
  const modeOf = (p: string) => (statSync(p).mode & 0o7777).toString(8);

  it('gives refs, reflogs and the directories it creates the modes git gives them, whatever the umask', async () => {
    const { t, a } = setup();
    const g = join(t.dir, '.git');
    const old = process.umask(0o077);
    try {
      for (const [i, value] of ['group', 'all', '0640', 'true', '1', 'umask', 'false'].entries()) {
        t.git(['config', 'core.sharedRepository', value]);
        // git itself, with the same umask
        const r = spawnSync('sh', ['-c', `umask 077 && git update-ref refs/heads/g${i}/deep/x ${a}`], { cwd: t.dir, env: t.env, encoding: 'utf8' });
        expect(r.status, r.stderr).toBe(0);
        await withRepo(t, (repo) => {
          expect(updateRefsInProcess(repo, [{ ref: `refs/heads/o${i}/deep/x`, newOid: a, oldOid: null }], 'entire'), value).toBe('ok');
        });
        for (const p of ['refs/heads/%/deep/x', 'refs/heads/%/deep', 'refs/heads/%', 'logs/refs/heads/%/deep/x', 'logs/refs/heads/%/deep', 'logs/refs/heads/%']) {
          expect(modeOf(join(g, p.replace('%', `o${i}`))), `${value}: ${p}`).toBe(modeOf(join(g, p.replace('%', `g${i}`))));
        }
      }
      // the values checked above are not all the same
      expect(modeOf(join(g, 'refs/heads/o0/deep/x'))).toBe('660');
      expect(modeOf(join(g, 'refs/heads/o0'))).toBe('2770');
      expect(modeOf(join(g, 'refs/heads/o1/deep/x'))).toBe('664');
      expect(modeOf(join(g, 'refs/heads/o2/deep/x'))).toBe('640');
      expect(modeOf(join(g, 'refs/heads/o5/deep/x'))).toBe('600');
      // a value git refuses (the owner must keep rw): git's to report
      t.git(['config', 'core.sharedRepository', '0460']);
      await withRepo(t, (repo) => {
        expect(updateRefsInProcess(repo, [{ ref: 'refs/heads/bad/x', newOid: a, oldOid: null }], 'entire')).toBeUndefined();
      });
    } finally {
      process.umask(old);
    }
  });

  it('reads core.sharedRepository as git does', () => {
    const cases: [string, number | undefined][] = [
      ['', 0], ['umask', 0], ['false', 0], ['no', 0], ['0', 0], ['group', 0o660], ['true', 0o660], ['1', 0o660], ['yes', 0o660],
      ['all', 0o664], ['world', 0o664], ['everybody', 0o664], ['2', 0o664], ['0660', -0o660], ['0640', -0o640], ['600', -0o600],
      ['0777', -0o666], ['0460', undefined], ['bogus', undefined], ['Group', undefined], ['9', 0o660],
    ];
    for (const [v, want] of cases) expect(parseSharedRepository(v), v).toBe(want);
  });
});
