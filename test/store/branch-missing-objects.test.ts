/**
 * SPEC-2 §A.11 in the write loop: a commit `git gc --prune=now` deletes right
 * after the ref moved is written again; a ref naming a missing commit fails
 * writes at once (with the doctor hint) and is passed over by readers.
 */
import { describe, it, expect, afterAll, afterEach } from 'vitest';
import { join } from 'node:path';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { makeRepo, fsck, cleanupAll, type TempRepo } from '../helpers/repo.js';
import { withEnv } from '../helpers/env.js';
import { openRepo, type Repo } from '../../src/git/repo.js';
import { casWrite, ensureMetadataBranch, metadataTipForRead, refTarget } from '../../src/store/branch.js';
import { isEntireError } from '../../src/errors.js';

const META = 'refs/heads/entire/checkpoints/v1';
const TRACKING = 'refs/remotes/origin/entire/checkpoints/v1';

const repos: TempRepo[] = [];
const opened: Repo[] = [];
afterEach(() => {
  for (const r of opened.splice(0)) r.objects.close();
});
afterAll(cleanupAll);

async function setup(): Promise<{ r: TempRepo; repo: Repo }> {
  const r = makeRepo();
  r.env['ENTIRE_PACK_WRITES'] = '0'; // loose objects: files a test can delete
  repos.push(r);
  const repo = await withEnv(r.env, () => openRepo(r.dir, { fast: true }));
  opened.push(repo);
  await withEnv(r.env, () => ensureMetadataBranch(repo));
  return { r, repo };
}

function loose(r: TempRepo, oid: string): string {
  return join(r.dir, '.git', 'objects', oid.slice(0, 2), oid.slice(2));
}

const put = (name: string, text: string) => async () => ({ message: `write ${name}`, changes: [{ op: 'put' as const, path: name, content: text }] });

describe('casWrite and missing objects', () => {
  it('a commit pruned right after the ref moved is written again, once', async () => {
    const { r, repo } = await setup();
    const before = r.git(['rev-parse', META]).trim();
    // play `git gc --prune=now` winning the race: the first look at the new commit finds it deleted
    const read = repo.objects.read.bind(repo.objects);
    let pruned: string | null = null;
    repo.objects.read = async (name: string) => {
      if (pruned === null && name !== before && name === (await refTarget(repo, META))) {
        const tree = r.git(['rev-parse', `${name}^{tree}`]).trim();
        for (const oid of [name, tree]) rmSync(loose(r, oid), { force: true });
        pruned = name;
        return null;
      }
      return read(name);
    };
    const res = await withEnv(r.env, () => casWrite(repo, META, put('a.txt', 'A\n')));
    repo.objects.read = read;
    expect(pruned).not.toBeNull();
    expect(res.changed).toBe(true);
    const tip = r.git(['rev-parse', META]).trim();
    expect(tip).toBe(res.oid);
    expect(r.git(['cat-file', '-t', tip]).trim()).toBe('commit');
    expect(r.git(['rev-parse', `${META}~1`]).trim()).toBe(before);
    expect(r.git(['show', `${META}:a.txt`])).toBe('A\n');
    expect(fsck(r).ok, fsck(r).output).toBe(true);
  });

  it('the common case reads the new commit and tree once and rewrites nothing', async () => {
    const { r, repo } = await setup();
    const res = await withEnv(r.env, () => casWrite(repo, META, put('b.txt', 'B\n')));
    expect(r.git(['rev-parse', META]).trim()).toBe(res.oid);
    expect(r.git(['log', '--format=%s', META])).toBe('write b.txt\nInitialize sessions branch\n');
    expect(r.gitResult(['for-each-ref', 'refs/entire-tmp/']).stdout).toBe('');
  });

  it('a ref naming a missing commit: writes fail at once with the doctor hint, readers use the tracking ref and ignore a broken one', async () => {
    const { r, repo } = await setup();
    const first = (await withEnv(r.env, () => casWrite(repo, META, put('c.txt', 'C\n')))).oid!;
    r.git(['update-ref', TRACKING, first]);
    const second = (await withEnv(r.env, () => casWrite(repo, META, put('d.txt', 'D\n')))).oid!;
    expect(existsSync(loose(r, second))).toBe(true);
    rmSync(loose(r, second));
    const fresh = await withEnv(r.env, () => openRepo(r.dir, { fast: true }));
    opened.push(fresh);

    const attempts: (() => Promise<unknown>)[] = [() => casWrite(fresh, META, put('e.txt', 'E\n')), () => ensureMetadataBranch(fresh)];
    for (const attempt of attempts) {
      const started = Date.now();
      const err = await withEnv(r.env, attempt).then(
        () => null,
        (e: unknown) => e,
      );
      expect(isEntireError(err, 'CORRUPT_METADATA'), String(err)).toBe(true);
      expect((err as Error).message).toContain(`entire/checkpoints/v1 names commit ${second.slice(0, 12)}`);
      expect((err as Error).message).toContain('entire doctor --force');
      expect(Date.now() - started).toBeLessThan(5_000); // not ten jittered CAS rounds
    }
    expect(r.git(['rev-parse', META]).trim()).toBe(second);

    expect(await withEnv(r.env, () => metadataTipForRead(fresh))).toBe(first);
    // a tracking ref naming a missing object is ignored too
    writeFileSync(join(r.dir, '.git', TRACKING), '0123456789abcdef0123456789abcdef01234567\n');
    const again = await withEnv(r.env, () => openRepo(r.dir, { fast: true }));
    opened.push(again);
    expect(await withEnv(r.env, () => metadataTipForRead(again))).toBeNull();
  });
});
