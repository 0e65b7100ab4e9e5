import { describe, it, expect, afterAll } from 'vitest';
import { makeRepo, fsck, cleanupAll } from '../helpers/repo.js';
import { withEnv } from '../helpers/env.js';
import { openRepo } from '../../src/git/repo.js';
import { writeCommit, type TreeChange } from '../../src/git/fastimport.js';
import { writeCommitLoose } from '../../src/git/odb.js';
import { updateRefs } from '../../src/git/refs.js';

afterAll(cleanupAll);

const ident = { name: 'T', email: 't@example.com' };

/** A few change lists that exercise git's tree rules (order, empty dirs, modes, blob↔tree). */
function scenarios(): TreeChange[][] {
  return [
    [
      { op: 'put', path: 'a', content: 'file a\n' },
      { op: 'put', path: 'a.b', content: 'dot\n' },
      { op: 'put', path: 'a-b/c', content: 'dash dir\n' },
      { op: 'put', path: 'b/a', content: 'x\n', mode: '100755' },
      { op: 'put', path: 'link', content: 'a', mode: '120000' },
      { op: 'put', path: 'ü/ñ.txt', content: 'utf8 names\n' },
    ],
    [
      { op: 'delete', path: 'b/a' }, // b/ becomes empty and disappears
      { op: 'delete', path: 'missing/x' },
      { op: 'put', path: 'a-b/c/deeper', content: 'blob replaced by a tree\n' },
      { op: 'put', path: 'z/y/x/w', content: 'deep\n' },
    ],
    [
      { op: 'delete', path: 'z' },
      { op: 'put', path: 'z/new', content: 'recreated\n' },
      { op: 'put', path: 'a', content: 'changed a\n' },
    ],
  ];
}

describe('in-process object writer (src/git/odb.ts)', () => {
  for (const format of ['sha1', 'sha256'] as const) {
    it(`builds the same trees and commits as git fast-import (${format})`, async () => {
      const r = makeRepo({ objectFormat: format });
      const repo = await withEnv(r.env, () => openRepo(r.dir));
      let fiParent: string | null = null;
      let looseParent: string | null = null;
      const time = 1_700_000_000;
      for (const changes of scenarios()) {
        const spec = { message: 'no newline', changes, author: ident, time };
        const fi = await withEnv(r.env, () => writeCommit(repo.root, { ...spec, parent: fiParent }));
        await updateRefs(repo, [{ ref: fi.tempRef, newOid: null }]);
        const loose = await withEnv(r.env, () => writeCommitLoose(repo, { ...spec, parent: looseParent }));
        expect(r.git(['rev-parse', `${loose}^{tree}`])).toBe(r.git(['rev-parse', `${fi.oid}^{tree}`]));
        expect(r.git(['cat-file', 'commit', loose]).endsWith('\n\nno newline')).toBe(true);
        fiParent = fi.oid;
        looseParent = loose;
      }
      // the loose history is identical to fast-import's, commit for commit
      expect(looseParent).toBe(fiParent);
      // a root commit without files: the empty tree object exists
      const empty = await withEnv(r.env, () => writeCommitLoose(repo, { message: 'init', changes: [], author: ident, time }));
      await updateRefs(repo, [
        { ref: 'refs/heads/loose', newOid: looseParent, oldOid: null },
        { ref: 'refs/heads/empty', newOid: empty, oldOid: null },
      ]);
      const f = fsck(r);
      expect(f.ok, f.output).toBe(true);
      repo.objects.close();
    });
  }
});
