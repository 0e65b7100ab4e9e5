/** Blobs too big to hold (SPEC-2 §A.6) are written from byte sources, in pieces, in-process and through fast-import alike. */
import { describe, it, expect, afterAll } from 'vitest';
import { writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { makeRepo, fsck, cleanupAll } from '../helpers/repo.js';
import { withEnv } from '../helpers/env.js';
import { openRepo } from '../../src/git/repo.js';
import { writeCommit } from '../../src/git/fastimport.js';
import { writeCommitLoose, STREAMED_BLOB_MIN } from '../../src/git/odb.js';
import { updateRefs } from '../../src/git/refs.js';
import { BufferSource, ConcatSource, FileRangeSource } from '../../src/byte-source.js';

afterAll(cleanupAll);

const ident = { name: 'T', email: 't@example.com' };

describe('streamed blob writes', () => {
  for (const format of ['sha1', 'sha256'] as const) {
    it(`a blob over ${STREAMED_BLOB_MIN} bytes from a file range and a joined source (${format})`, async () => {
      const r = makeRepo({ objectFormat: format });
      const repo = await withEnv(r.env, () => openRepo(r.dir));
      // varied bytes (some compressible, some not) so the deflate pieces are not trivial
      const big = Buffer.alloc(STREAMED_BLOB_MIN + 3 * 1024 * 1024 + 17);
      for (let i = 0; i < big.length; i++) big[i] = i % 4096 < 2048 ? 97 + (i % 7) : (i * 2654435761) >>> 24;
      const file = join(r.dir, '..', `big-${format}.bin`);
      writeFileSync(file, Buffer.concat([Buffer.from('prefix'), big, Buffer.from('suffix')]));
      const fromFile = FileRangeSource.open(file, 6, 6 + big.length);
      const joined = new ConcatSource([fromFile.slice(0, 1000), new BufferSource(Buffer.from('\n')), fromFile.slice(1000)]);
      const expectJoined = Buffer.concat([big.subarray(0, 1000), Buffer.from('\n'), big.subarray(1000)]);
      const changes = [
        { op: 'put' as const, path: 'a/full.jsonl', content: fromFile },
        { op: 'put' as const, path: 'a/full.jsonl.001', content: joined },
        { op: 'put' as const, path: 'a/small', content: new BufferSource(Buffer.from('small\n')) },
      ];
      const loose = await withEnv(r.env, () => writeCommitLoose(repo, { message: 'm', changes, author: ident, time: 1_700_000_000 }));
      const fi = await withEnv(r.env, () => writeCommit(repo.root, { message: 'm', changes, author: ident, time: 1_700_000_000 }));
      await updateRefs(repo, [{ ref: fi.tempRef, newOid: null }]);
      // the same objects either way, and git reads them back byte for byte
      expect(loose).toBe(fi.oid);
      const blob = (path: string) => execFileSync('git', ['cat-file', 'blob', `${loose}:${path}`], { cwd: r.dir, env: r.env, maxBuffer: 64 * 1024 * 1024 });
      expect(blob('a/full.jsonl').equals(big)).toBe(true);
      expect(blob('a/full.jsonl.001').equals(expectJoined)).toBe(true);
      expect(blob('a/small').toString()).toBe('small\n');
      r.git(['update-ref', 'refs/heads/streamed', loose]);
      const check = fsck(r);
      expect(check.ok, check.output).toBe(true);
    }, 60_000);
  }
});
