/**
 * Small packs written by hooks (src/git/pack-write.ts, pack-policy.ts, the
 * BatchWriter of odb.ts) and their merging (pack-merge.ts): git must accept
 * every pack (verify-pack, fsck), every object must read back identically
 * through git and our reader, hooks must fall back to loose objects where a
 * pack would be unwelcome, and a merge must lose nothing.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { makeRepo, fsck, cleanupAll, type TempRepo } from '../helpers/repo.js';
import { withEnv } from '../helpers/env.js';
import { openRepo, type Repo } from '../../src/git/repo.js';
import { writeCommitLoose } from '../../src/git/odb.js';
import { updateRefs } from '../../src/git/refs.js';
import { mergeSmallPacks } from '../../src/git/pack-merge.js';
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
});
