/**
 * Small packs written by hooks (src/git/pack-write.ts, pack-policy.ts, the
 * BatchWriter of odb.ts) and their merging (pack-merge.ts): git must accept
 * every pack (verify-pack, fsck), every object must read back identically
 * through git and our reader, hooks must fall back to loose objects where a
 * pack would be unwelcome, and a merge must lose nothing.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { readdirSync, readFileSync, writeFileSync, existsSync, fsyncSync, statSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { makeRepo, fsck, cleanupAll, type TempRepo } from '../helpers/repo.js';
import { withEnv } from '../helpers/env.js';
import { openRepo, type Repo } from '../../src/git/repo.js';
import { writeCommitLoose } from '../../src/git/odb.js';
import { updateRefs } from '../../src/git/refs.js';
import { mergeSmallPacks, packFsync } from '../../src/git/pack-merge.js';
import { setFsyncForTests } from '../../src/git/pack-policy.js';
import { encodePack, entryHeader } from '../../src/git/pack-write.js';
import { crc32 } from '../../src/git/checksums.js';
import { LocalObjects } from '../../src/git/local-odb.js';
import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';

afterAll(cleanupAll);

const ident = { name: 'T', email: 't@example.com' };

const packsOf = (r: TempRepo) => readdirSync(join(r.dir, '.git', 'objects', 'pack')).filter((n) => n.endsWith('.pack')).sort();
const looseCount = (r: TempRepo) => Number(/count: (\d+)/.exec(r.git(['count-objects', '-v']))![1]);
const allObjects = (r: TempRepo) => r.git(['cat-file', '--batch-all-objects', '--batch-check=%(objectname) %(objecttype) %(objectsize)']).trim().split('\n').sort();

async function commitN(r: TempRepo, repo: Repo, n: number, ref = 'refs/heads/meta', env: NodeJS.ProcessEnv = {}): Promise<string[]> {
  const out: string[] = [];
  let parent: string | null = null;
  try {
    parent = r.git(['rev-parse', '--verify', '-q', ref]).trim() || null;
  } catch {
    parent = null;
  }
  for (let i = 0; i < n; i++) {
    const oid: string = await withEnv({ ...r.env, ...env }, () =>
      writeCommitLoose(repo, {
        message: `step ${i}\n`,
        parent,
        author: ident,
        changes: [
          { op: 'put', path: `ab/cd${i}/0/metadata.json`, content: JSON.stringify({ i, pad: 'x'.repeat(i * 50) }) + '\n' },
          { op: 'put', path: `ab/cd${i}/0/prompt.txt`, content: `prompt ${i}\n` },
          { op: 'put', path: `ab/cd${i}/metadata.json`, content: `{"n":${i}}\n` },
        ],
      }),
    );
    await updateRefs(repo, [{ ref, newOid: oid, oldOid: parent }]);
    parent = oid;
    out.push(oid);
  }
  return out;
}

function verifyPacks(r: TempRepo): void {
  for (const p of packsOf(r)) {
    const v = r.gitResult(['verify-pack', join(r.dir, '.git', 'objects', 'pack', p.replace(/\.pack$/, '.idx'))]);
    expect(v.status, v.stderr).toBe(0);
  }
}

describe('small packs from hooks (src/git/pack-write.ts, pack-policy.ts)', () => {
  it('writes one pack per commit write that git verifies, fscks and reads back', async () => {
    const r = makeRepo();
    const repo = await withEnv(r.env, () => openRepo(r.dir));
    const loose0 = looseCount(r);
    const commits = await commitN(r, repo, 3);
    expect(packsOf(r)).toHaveLength(3);
    expect(looseCount(r)).toBe(loose0); // nothing loose
    verifyPacks(r);
    const f = fsck(r);
    expect(f.ok, f.output).toBe(true);
    expect(r.git(['show', `${commits[2]}:ab/cd2/0/prompt.txt`])).toBe('prompt 2\n');
    // the reader of a fresh process finds them too
    const local = new LocalObjects(join(r.dir, '.git', 'objects'), 'sha1', null);
    expect(local.readOid(commits[2]!)?.type).toBe('commit');
    repo.objects.close();
  });

  it('does not pack again, in the same process, blobs an earlier write of that process packed', async () => {
    const r = makeRepo();
    const repo = await withEnv(r.env, () => openRepo(r.dir));
    const shared = 'context shared by a checkpoint and its carry-forward\n'.repeat(200);
    const write = (ref: string, path: string, extra: string) =>
      withEnv(r.env, () =>
        writeCommitLoose(repo, {
          message: `${ref}\n`,
          parent: null,
          author: ident,
          changes: [
            { op: 'put', path: `${path}/context.md`, content: shared },
            { op: 'put', path: `${path}/extra.txt`, content: extra },
          ],
        }),
      );
    const first = await write('one', 'a', 'first\n');
    const packs1 = packsOf(r);
    const second = await write('two', 'b', 'second\n');
    const added = packsOf(r).filter((p) => !packs1.includes(p));
    expect(added).toHaveLength(1);
    const idx = join(r.dir, '.git', 'objects', 'pack', added[0]!.replace(/\.pack$/, '.idx'));
    const listed = r.git(['verify-pack', '-v', idx]);
    const sharedOid = r.git(['rev-parse', `${first}:a/context.md`]).trim();
    expect(r.git(['rev-parse', `${second}:b/context.md`]).trim()).toBe(sharedOid);
    expect(listed).not.toContain(sharedOid); // only the second write's new objects
    expect(listed).toContain(r.git(['rev-parse', `${second}:b/extra.txt`]).trim());
    verifyPacks(r);
    const f = fsck(r);
    expect(f.ok, f.output).toBe(true);
    repo.objects.close();
  });

  it('produces byte-identical packs and indexes to what git index-pack builds for the same entries', () => {
    const objs = [Buffer.from('hello\n'), Buffer.from('x'.repeat(40_000)), Buffer.from('')].map((content) => {
      const oid = createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
      return { oid, bytes: Buffer.concat([entryHeader('blob', content.length), deflateSync(content)]) };
    });
    const enc = encodePack(objs);
    const r = makeRepo();
    const p = join(r.dir, 'x.pack');
    writeFileSync(p, enc.pack);
    r.git(['index-pack', p]);
    const gitIdx = readFileSync(join(r.dir, 'x.idx'));
    expect(gitIdx.equals(enc.idx)).toBe(true);
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
  });

  it('writes loose objects where a pack is unwelcome', async () => {
    const cases: { name: string; setup: (r: TempRepo) => void; env?: NodeJS.ProcessEnv; format?: 'sha256' }[] = [
      { name: 'switched off', setup: () => {}, env: { ENTIRE_PACK_WRITES: '0' } },
      {
        name: 'multi-pack-index',
        setup: (r) => {
          r.git(['repack', '-q', '-d']);
          r.git(['multi-pack-index', 'write']);
        },
      },
      { name: 'near gc.autoPackLimit', setup: (r) => r.git(['config', 'gc.autoPackLimit', '11']) }, // room for one pack
      { name: 'sha256', setup: () => {}, format: 'sha256' },
    ];
    for (const c of cases) {
      const r = makeRepo(c.format ? { objectFormat: c.format } : {});
      c.setup(r);
      const repo = await withEnv(r.env, () => openRepo(r.dir));
      const packs0 = packsOf(r).length;
      await commitN(r, repo, 2, 'refs/heads/meta', c.env);
      const added = packsOf(r).length - packs0;
      expect(added, c.name).toBe(c.name === 'near gc.autoPackLimit' ? 1 : 0);
      const f = fsck(r);
      expect(f.ok, `${c.name}: ${f.output}`).toBe(true);
      repo.objects.close();
    }
  });
});

describe('merging small packs (src/git/pack-merge.ts)', () => {
  it('folds several small packs into one without losing an object', async () => {
    const r = makeRepo();
    const repo = await withEnv(r.env, () => openRepo(r.dir));
    const reader = new LocalObjects(join(r.dir, '.git', 'objects'), 'sha1', null);
    const commits = await commitN(r, repo, 6);
    // a reader that has listed the packs and opened some of them before the merge
    expect(reader.readOid(commits[1]!)?.type).toBe('commit');
    const before = allObjects(r);
    expect(packsOf(r)).toHaveLength(6);
    const res = mergeSmallPacks(repo);
    expect(res.merged).toBe(6);
    expect(packsOf(r)).toHaveLength(1);
    expect(allObjects(r)).toEqual(before);
    verifyPacks(r);
    const f = fsck(r);
    expect(f.ok, f.output).toBe(true);
    // a reader that listed the merged-away packs finds everything again
    const again = new LocalObjects(join(r.dir, '.git', 'objects'), 'sha1', null);
    for (const c of commits) expect(again.readOid(c)?.type).toBe('commit');
    // … and so does the one holding the old list (opened packs stay readable, the rest are looked up again)
    for (const c of commits.slice(2)) expect(reader.read(`${c}:ab/cd0/0/prompt.txt`)?.data.toString()).toBe('prompt 0\n');
    // below the threshold nothing happens
    await commitN(r, repo, 2);
    expect(mergeSmallPacks(repo).merged).toBe(0);
    repo.objects.close();
  });

  it('leaves kept packs, packs with deltas and big packs alone', async () => {
    const r = makeRepo();
    // git's own pack with deltas: similar files in several commits, repacked
    const text = Array.from({ length: 300 }, (_, i) => `line ${i}\n`).join('');
    for (let i = 0; i < 4; i++) {
      r.write('f.txt', text + `edit ${i}\n`);
      r.commitAll(`c${i}`);
    }
    r.git(['repack', '-a', '-d', '-q']);
    const gitPack = packsOf(r);
    expect(gitPack).toHaveLength(1);
    expect(r.git(['verify-pack', '-v', join(r.dir, '.git', 'objects', 'pack', gitPack[0]!.replace('.pack', '.idx'))])).toMatch(/chain length/);
    const repo = await withEnv(r.env, () => openRepo(r.dir));
    await commitN(r, repo, 5);
    const ours = packsOf(r).filter((p) => !gitPack.includes(p));
    writeFileSync(join(r.dir, '.git', 'objects', 'pack', ours[0]!.replace('.pack', '.keep')), '');
    const res = mergeSmallPacks(repo);
    expect(res.merged).toBe(4);
    const after = packsOf(r);
    expect(after).toContain(gitPack[0]);
    expect(after).toContain(ours[0]);
    expect(after).toHaveLength(3);
    expect(existsSync(join(r.dir, '.git', 'objects', 'pack', ours[1]!))).toBe(false);
    const f = fsck(r);
    expect(f.ok, f.output).toBe(true);
    repo.objects.close();
  });

  it('does nothing next to a multi-pack-index', async () => {
    const r = makeRepo();
    const repo = await withEnv(r.env, () => openRepo(r.dir));
    await commitN(r, repo, 5);
    r.git(['multi-pack-index', 'write']);
    expect(mergeSmallPacks(repo).merged).toBe(0);
    expect(packsOf(r)).toHaveLength(5);
    repo.objects.close();
  });

  it('flushes the merged pack, its index and their directory before it deletes an input (core.fsync)', async () => {
    const r = makeRepo();
    const repo = await withEnv(r.env, () => openRepo(r.dir));
    const dir = join(r.dir, '.git', 'objects', 'pack');
    const merge = async (fsync: string | null): Promise<string[]> => {
      if (fsync === null) r.gitResult(['config', '--unset', 'core.fsync']);
      else r.git(['config', 'core.fsync', fsync]);
      const inputs = packsOf(r);
      const calls: string[] = [];
      setFsyncForTests((fd, what) => {
        // every input still there when each flush happens
        calls.push(inputs.every((p) => existsSync(join(dir, p))) ? what : `${what} after a deletion`);
        fsyncSync(fd);
      });
      try {
        expect((await withEnv(r.env, async () => mergeSmallPacks(repo))).merged).toBe(inputs.length);
      } finally {
        setFsyncForTests(null);
      }
      return calls;
    };
    // four commit writes of new content: four small packs
    const four = async (k: number): Promise<void> => {
      for (let i = 0; i < 4; i++) {
        await withEnv(r.env, () => writeCommitLoose(repo, { message: `${k}.${i}`, author: ident, changes: [{ op: 'put', path: `r${k}/${i}/a`, content: `a ${k} ${i}\n` }, { op: 'put', path: `r${k}/${i}/b`, content: `b ${k} ${i}\n` }] }));
      }
    };
    await four(0);
    expect(await merge(null)).toEqual(['pack', 'index', 'directory']); // git's default flushes packs and their indexes
    await four(1);
    expect(await merge('none')).toEqual([]);
    await four(2);
    expect(await merge('objects,-pack')).toEqual(['pack', 'directory']); // `-pack` also names pack-metadata
    await four(3);
    expect(await merge('-pack-metadata')).toEqual(['pack', 'directory']);
    await four(4);
    expect(await merge('pack-metadata,-pack')).toEqual(['index', 'directory']);
    expect(packsOf(r)).toHaveLength(1);
    const f = fsck(r);
    expect(f.ok, f.output).toBe(true);
    repo.objects.close();
  });

  it('reads core.fsync as git 2.39 does: the pack and index flushes git itself makes (trace2 counters)', async () => {
    const r = makeRepo();
    const pack = spawnSync('git', ['pack-objects', '--all', '--stdout'], { cwd: r.dir, env: r.env, input: '' }).stdout;
    expect(pack.length).toBeGreaterThan(32);
    const trace = join(r.home, 'trace.json');
    const values = ['', 'none', 'committed', 'added', 'all', 'pack', '-pack', 'pack-metadata', '-pack-metadata', 'p', '-p', 'none,pack', 'pack,none', 'objects,-pack', 'loose-object', '-', 'pack ', 'bogus', 'derived-metadata,-pack', 'reference,-pack-m'];
    for (const v of values) {
      r.git(['config', 'core.fsync', v]);
      rmSync(trace, { force: true });
      for (const n of readdirSync(join(r.dir, '.git', 'objects', 'pack'))) rmSync(join(r.dir, '.git', 'objects', 'pack', n));
      const g = spawnSync('git', ['index-pack', '--stdin'], { cwd: r.dir, env: { ...r.env, GIT_TRACE2_EVENT: trace }, input: pack });
      expect(g.status, g.stderr.toString()).toBe(0);
      const m = /"key":"fsync\/hardware-flush","value":"(\d+)"/.exec(existsSync(trace) ? readFileSync(trace, 'utf8') : '');
      const gits = m ? Number(m[1]) : 0;
      const ours = packFsync({ commonDir: join(r.dir, '.git'), gitDir: join(r.dir, '.git') }, r.env);
      expect(Number(ours.pack) + Number(ours.index), JSON.stringify(v)).toBe(gits);
    }
    expect(packFsync({ commonDir: join(r.dir, '.git'), gitDir: join(r.dir, '.git') }, { ...r.env, GIT_TEST_FSYNC: '0' })).toEqual({ pack: false, index: false });
  });

  it('gives the merged pack the group’s bits in a shared repository, as git’s own packs', async () => {
    const r = makeRepo();
    r.git(['config', 'core.sharedRepository', 'group']);
    const repo = await withEnv(r.env, () => openRepo(r.dir));
    // shared repositories get their objects from fast-import: make small whole-object packs of ours
    await withEnv({ ...r.env, ENTIRE_PACK_WRITES: '1' }, async () => {
      for (let i = 0; i < 4; i++) {
        const enc = encodePack(
          [Buffer.from(`blob ${i}\n`)].map((b) => {
            const oid = createHash('sha1').update(`blob ${b.length}\0`).update(b).digest('hex');
            return { oid, bytes: Buffer.concat([entryHeader('blob', b.length), deflateSync(b)]) };
          }),
        );
        const { writePackFiles } = await import('../../src/git/pack-policy.js');
        writePackFiles(repo, enc);
      }
    });
    const old = process.umask(0o077);
    try {
      expect(mergeSmallPacks(repo, { minPacks: 2 }).merged).toBe(4);
    } finally {
      process.umask(old);
    }
    const files = readdirSync(join(r.dir, '.git', 'objects', 'pack')).filter((n) => /\.(pack|idx)$/.test(n));
    expect(files).toHaveLength(2);
    // git repack under the same umask leaves -r--r----- (0440)
    for (const n of files) expect((statSync(join(r.dir, '.git', 'objects', 'pack', n)).mode & 0o777).toString(8), n).toBe('440');
    repo.objects.close();
  });
});
