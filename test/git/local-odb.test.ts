/**
 * The in-process object reader (src/git/local-odb.ts, pack.ts, inflate.ts)
 * must return exactly what `git cat-file` returns, for loose objects and
 * for packs with OFS and REF deltas, in sha1 and sha256 repositories, and
 * defer to git (undefined) for anything it cannot decide.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { deflateSync } from 'node:zlib';
import { join } from 'node:path';
import { mkdirSync, writeFileSync } from 'node:fs';
import { makeRepo, cleanupAll, tempDir, repoAt, type TempRepo } from '../helpers/repo.js';
import { withEnv } from '../helpers/env.js';
import { LocalObjects } from '../../src/git/local-odb.js';
import { setIdxInMemoryLimitForTests } from '../../src/git/pack.js';
import { inflateZlib, inflateObject } from '../../src/git/inflate.js';
import { openRepo } from '../../src/git/repo.js';

afterAll(cleanupAll);

function objectsOf(repo: TempRepo): { oid: string; type: string }[] {
  return repo
    .git(['cat-file', '--batch-all-objects', '--batch-check=%(objectname) %(objecttype)'])
    .trim()
    .split('\n')
    .map((l) => {
      const [oid, type] = l.split(' ');
      return { oid: oid!, type: type! };
    });
}

function catFileRaw(repo: TempRepo, type: string, oid: string): Buffer {
  return execFileSync('git', ['cat-file', type, oid], { cwd: repo.dir, env: repo.env, maxBuffer: 1 << 28 });
}

/** A history with text edits (delta candidates), binary data, nested trees and an annotated tag. */
function buildHistory(repo: TempRepo): void {
  const lines = Array.from({ length: 400 }, (_, i) => `line ${i} of a file that changes a little in every commit\n`);
  for (let c = 0; c < 6; c++) {
    lines[c * 7] = `edited in commit ${c}\n`;
    repo.write('src/deep/nested/file.txt', lines.join(''));
    repo.write(`notes/n${c}.md`, `note ${c}\n`);
    repo.write('bin/random.bin', randomBytes(70_000 + c)); // incompressible: node:zlib path
    repo.write('big.txt', lines.join('').repeat(40)); // > 64 KiB compressible
    repo.write('ü/ñ.txt', `utf-8 names ${c}\n`);
    repo.commitAll(`commit ${c}`);
  }
  repo.git(['tag', '-a', 'v1', '-m', 'annotated tag']);
}

function compareAll(repo: TempRepo, format: 'sha1' | 'sha256'): number {
  const local = new LocalObjects(join(repo.dir, '.git', 'objects'), format, { gitDir: join(repo.dir, '.git'), commonDir: join(repo.dir, '.git') });
  let n = 0;
  for (const { oid, type } of objectsOf(repo)) {
    const o = local.readOid(oid);
    expect(o, oid).toBeDefined();
    expect(o!.type).toBe(type);
    expect(o!.data.equals(catFileRaw(repo, type, oid)), `${type} ${oid}`).toBe(true);
    n++;
  }
  local.close();
  return n;
}

describe('in-process object reader', () => {
  for (const format of ['sha1', 'sha256'] as const) {
    it(`reads every object as git does: loose, packed with OFS deltas, packed with REF deltas (${format})`, () => {
      const repo = makeRepo({ objectFormat: format });
      buildHistory(repo);
      expect(compareAll(repo, format)).toBeGreaterThan(30);
      repo.git(['gc', '-q', '--aggressive', '--prune=now']);
      expect(repo.git(['count-objects', '-v'])).toMatch(/^count: 0$/m);
      expect(compareAll(repo, format)).toBeGreaterThan(30);
      // REF_DELTA entries: what a pack without delta-base offsets holds
      repo.git(['-c', 'repack.useDeltaBaseOffset=false', 'repack', '-a', '-d', '-f', '-q']);
      expect(compareAll(repo, format)).toBeGreaterThan(30);
      // an index too big to read whole is binary-searched on disk
      setIdxInMemoryLimitForTests(0);
      try {
        expect(compareAll(repo, format)).toBeGreaterThan(30);
      } finally {
        setIdxInMemoryLimitForTests(16 << 20);
      }
    });
  }

  it('resolves the names hooks use, and leaves the others to git', () => {
    const repo = makeRepo();
    buildHistory(repo);
    const gitDir = join(repo.dir, '.git');
    const local = new LocalObjects(join(gitDir, 'objects'), 'sha1', { gitDir, commonDir: gitDir });
    const rev = (n: string) => repo.git(['rev-parse', n]).trim();
    const check = () => {
      expect(local.read('HEAD')!.oid).toBe(rev('HEAD'));
      expect(local.read('HEAD^{tree}')!.oid).toBe(rev('HEAD^{tree}'));
      expect(local.read('refs/heads/main^{commit}')!.oid).toBe(rev('HEAD'));
      expect(local.read('refs/tags/v1')!.type).toBe('tag');
      expect(local.read('refs/tags/v1^{commit}')!.oid).toBe(rev('v1^{commit}'));
      expect(local.read(`${rev('HEAD')}:src/deep/nested/file.txt`)!.oid).toBe(rev('HEAD:src/deep/nested/file.txt'));
      expect(local.read(`${rev('HEAD')}:src/deep`)!.type).toBe('tree');
      expect(local.read(`${rev('HEAD')}:ü/ñ.txt`)!.data.toString()).toBe('utf-8 names 5\n');
      expect(local.read('HEAD:')!.oid).toBe(rev('HEAD^{tree}'));
      expect(local.read('HEAD:no/such/file')).toBeNull();
      expect(local.read('HEAD:notes/n1.md/below-a-blob')).toBeNull();
      expect(local.read('refs/heads/no-such-branch')).toBeNull();
      expect(local.read(`${rev('HEAD:notes/n1.md')}^{commit}`)).toBeNull(); // a blob is no commit
      // other syntaxes and unknown objects: git decides
      expect(local.read('HEAD~1')).toBeUndefined();
      expect(local.read('main')).toBeUndefined();
      expect(local.read(':src/deep/nested/file.txt')).toBeUndefined();
      expect(local.readOid('0123456789012345678901234567890123456789')).toBeUndefined();
    };
    check();
    repo.git(['pack-refs', '--all']);
    repo.git(['gc', '-q', '--prune=now']);
    check();
    // a detached HEAD
    repo.git(['checkout', '-q', '--detach', 'HEAD~2']);
    expect(local.read('HEAD')!.oid).toBe(rev('HEAD'));
    local.close();
  });

  it('reads through alternates and sees a repack done after it opened', () => {
    const origin = makeRepo();
    buildHistory(origin);
    const base = tempDir();
    const clone = join(base, 'clone');
    origin.git(['clone', '-q', '--shared', origin.dir, clone]);
    const c = repoAt(clone, origin.home, origin.env);
    const gitDir = join(clone, '.git');
    const local = new LocalObjects(join(gitDir, 'objects'), 'sha1', { gitDir, commonDir: gitDir });
    const head = c.git(['rev-parse', 'HEAD']).trim();
    expect(local.read('HEAD')!.oid).toBe(head); // found only in the origin's store
    expect(local.read(`${head}:big.txt`)!.data.equals(catFileRaw(c, 'blob', `${head}:big.txt`))).toBe(true);
    // objects move from loose into a new pack while the reader is open
    origin.write('late.txt', 'written late\n');
    const late = origin.commitAll('late');
    expect(local.readOid(late)!.type).toBe('commit');
    origin.git(['gc', '-q', '--prune=now']);
    const late2 = origin.git(['rev-parse', 'HEAD^{tree}']).trim();
    expect(local.readOid(late2)!.type).toBe('tree');
    local.close();
  });

  it('reads objects whose pack was replaced after its index was opened, and objects both loose and packed', () => {
    const repo = makeRepo();
    buildHistory(repo);
    repo.git(['repack', '-q', '-d']); // some packed objects…
    repo.write('later.txt', 'later\n');
    repo.commitAll('later'); // …and some loose
    const gitDir = join(repo.dir, '.git');
    const local = new LocalObjects(join(gitDir, 'objects'), 'sha1', { gitDir, commonDir: gitDir });
    const all = objectsOf(repo);
    // open every pack index (a miss searches them all); no .pack needs opening for a miss
    expect(local.readOid('0'.repeat(40))).toBeUndefined();
    // git replaces the packs: the indexes this reader holds name .pack files that are gone
    repo.git(['repack', '-a', '-d', '-q']);
    for (const { oid, type } of all) expect(local.readOid(oid)!.data.equals(catFileRaw(repo, type, oid)), oid).toBe(true);
    // packs first once every index is open: an object also loose reads the same
    const head = repo.git(['rev-parse', 'HEAD']).trim();
    const body = catFileRaw(repo, 'commit', head);
    mkdirSync(join(gitDir, 'objects', head.slice(0, 2)), { recursive: true });
    writeFileSync(join(gitDir, 'objects', head.slice(0, 2), head.slice(2)), deflateSync(Buffer.concat([Buffer.from(`commit ${body.length}\0`), body])));
    expect(repo.git(['cat-file', '-t', head]).trim()).toBe('commit');
    expect(local.readOid(head)!.data.equals(body)).toBe(true);
    local.close();
  });

  it('answers for a linked worktree from its own HEAD', async () => {
    const repo = makeRepo();
    buildHistory(repo);
    const wt = join(tempDir(), 'wt');
    repo.git(['worktree', 'add', '-q', '-b', 'side', wt, 'HEAD~3']);
    await withEnv(repo.env, async () => {
      const r = await openRepo(wt, { fast: true });
      try {
        const o = await r.objects.read('HEAD');
        expect(o!.oid).toBe(repo.git(['rev-parse', 'HEAD~3']).trim());
        expect((await r.objects.read('refs/heads/main'))!.oid).toBe(repo.git(['rev-parse', 'main']).trim());
        // a name only git understands still works through the reader
        expect((await r.objects.read('HEAD~1'))!.oid).toBe(repo.git(['rev-parse', 'HEAD~4']).trim());
      } finally {
        r.objects.close();
      }
    });
  });
});

describe('inflate (small-object decoder)', () => {
  it('decodes what zlib writes, at every level and strategy, ignoring trailing bytes', () => {
    const samples: Buffer[] = [Buffer.alloc(0), Buffer.from('a'), randomBytes(5000), Buffer.alloc(70_000, 7)];
    for (let i = 0; i < 60; i++) {
      const len = (i * 977) % 9000;
      const alphabet = 'tree blob commit parent author\n';
      samples.push(Buffer.from(Array.from({ length: len }, (_, k) => alphabet[(k * 31 + i) % alphabet.length]).join('')));
      samples.push(Buffer.concat([randomBytes(len >> 2), Buffer.alloc(len >> 1, i), randomBytes(len >> 2)]));
    }
    for (const s of samples) {
      for (const level of [0, 1, 6, 9]) {
        for (const strategy of [0, 1, 2, 3, 4]) {
          const z = deflateSync(s, { level, strategy });
          const out = inflateZlib(Buffer.concat([z, Buffer.from('trailing bytes')]));
          expect(out.equals(s)).toBe(true);
        }
      }
    }
  });

  it('rejects damaged input, and inflateObject then reports zlib’s error', () => {
    const z = deflateSync(Buffer.from('x'.repeat(1000) + 'y'.repeat(1000)));
    expect(() => inflateZlib(z.subarray(0, z.length - 8))).toThrow();
    expect(() => inflateZlib(Buffer.from('not zlib'))).toThrow();
    expect(() => inflateObject(z.subarray(0, 6), 2000)).toThrow(/unexpected end/);
  });
});

describe('compressLoose (src/git/odb.ts)', () => {
  it('writes zlib streams every reader accepts: stored blocks when small, deflate when big', async () => {
    const { compressLoose } = await import('../../src/git/odb.js');
    const { inflateSync } = await import('node:zlib');
    for (const n of [0, 1, 100, 5552, 5553, 32 * 1024, 32 * 1024 + 1, 200_000]) {
      const raw = n % 2 ? randomBytes(n) : Buffer.alloc(n, 'ab');
      const z = compressLoose(raw);
      expect(inflateSync(z).equals(raw), `size ${n}`).toBe(true); // zlib checks the Adler-32 too
      expect(inflateZlib(z).equals(raw)).toBe(true);
      if (n <= 32 * 1024) expect(z.length).toBe(n + 11);
    }
  });
});
