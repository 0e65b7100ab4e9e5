import { describe, it, expect, afterAll } from 'vitest';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { readFileSync, statSync } from 'node:fs';
import { makeRepo, fsck, cleanupAll, repoAt, testEnv, tempDir } from '../helpers/repo.js';
import { openRepo, headCommit, EMPTY_TREE, currentBranch, committerIdent } from '../../src/git/repo.js';
import { writeCommit } from '../../src/git/fastimport.js';
import { readRef, updateRefs } from '../../src/git/refs.js';
import { snapshotChanges } from '../../src/git/snapshot.js';
import { parseTree } from '../../src/git/objects.js';
import { withEnv } from '../helpers/env.js';

afterAll(cleanupAll);

describe('repository context (src/git/repo.ts)', () => {
  it('resolves root, git dir, common dir, hooks dir and object format in the main worktree', async () => {
    const r = makeRepo();
    const repo = await withEnv(r.env, () => openRepo(r.dir));
    expect(repo.root).toBe(r.dir);
    expect(repo.gitDir).toBe(join(r.dir, '.git'));
    expect(repo.commonDir).toBe(join(r.dir, '.git'));
    expect(repo.hooksDir).toBe(join(r.dir, '.git', 'hooks'));
    expect(repo.objectFormat).toBe('sha1');
    expect(repo.worktreeId).toBe('');
    expect(await headCommit(repo)).toBe(r.git(['rev-parse', 'HEAD']).trim());
    expect(currentBranch(repo)).toBe('main');
    repo.objects.close();
  });

  it('works in a linked worktree and honours core.hooksPath', async () => {
    const r = makeRepo();
    const wt = join(r.dir, '..', 'wt-one');
    r.git(['worktree', 'add', '-q', wt, '-b', 'feature']);
    r.git(['config', 'core.hooksPath', '.husky']);
    const repo = await withEnv(r.env, () => openRepo(wt));
    expect(repo.root).toBe(wt);
    expect(repo.commonDir).toBe(join(r.dir, '.git'));
    expect(repo.gitDir).toBe(join(r.dir, '.git', 'worktrees', 'wt-one'));
    expect(repo.worktreeId).toBe('wt-one');
    expect(repo.hooksDir).toBe(join(wt, '.husky'));
    expect(currentBranch(repo)).toBe('feature');
    repo.objects.close();
  });

  it('ignores inherited GIT_DIR / GIT_WORK_TREE / GIT_INDEX_FILE that point elsewhere', async () => {
    const a = makeRepo();
    const b = makeRepo();
    const repo = await withEnv(
      { ...a.env, GIT_DIR: join(b.dir, '.git'), GIT_WORK_TREE: b.dir, GIT_INDEX_FILE: join(b.dir, '.git', 'index') },
      async () => {
        const { gitBaseEnv } = await import('../../src/git/exec.js');
        expect(gitBaseEnv()['GIT_DIR']).toBeUndefined();
        return openRepo(a.dir);
      },
    );
    expect(repo.root).toBe(a.dir);
    repo.objects.close();
  });

  it('reports NOT_A_REPO outside a repository', async () => {
    const d = tempDir();
    await expect(withEnv(testEnv(d), () => openRepo(d))).rejects.toMatchObject({ code: 'NOT_A_REPO' });
  });

  it('returns null HEAD in a repository without commits', async () => {
    const r = makeRepo({ initialCommit: false });
    const repo = await withEnv(r.env, () => openRepo(r.dir));
    expect(await headCommit(repo)).toBeNull();
    repo.objects.close();
  });
});

describe('object writing and reading', () => {
  for (const format of ['sha1', 'sha256'] as const) {
    it(`fast-import writes a commit without moving any real ref (${format})`, async () => {
      const r = makeRepo({ objectFormat: format });
      const repo = await withEnv(r.env, () => openRepo(r.dir));
      const ident = await withEnv(r.env, () => committerIdent(repo));
      const w = await writeCommit(repo.root, {
        message: 'no newline at end',
        changes: [
          { op: 'put', path: 'a/b.txt', content: 'hello\n' },
          { op: 'put', path: 'x y/"q".txt', content: Buffer.from([0, 1, 2]) },
          { op: 'put', path: 'run.sh', content: '#!/bin/sh\n', mode: '100755' },
        ],
        author: ident,
      });
      expect(w.oid).toHaveLength(format === 'sha256' ? 64 : 40);
      expect(r.git(['cat-file', '-p', `${w.oid}:a/b.txt`])).toBe('hello\n');
      expect(r.git(['ls-tree', '-r', '-z', '--name-only', w.oid]).split('\0')).toContain('x y/"q".txt');
      // message stored exactly, without a trailing newline
      const raw = r.git(['cat-file', 'commit', w.oid]);
      expect(raw.endsWith('\n\nno newline at end')).toBe(true);
      expect(raw).toContain('committer Test Committer <committer@example.com>');
      // temp ref is the only ref written
      const ok = await updateRefs(repo, [{ ref: w.tempRef, newOid: null }]);
      expect(ok).toBe('ok');
      expect(r.git(['for-each-ref', 'refs/entire-tmp'])).toBe('');
      // a root commit without files has the empty tree, and the tree object exists
      const empty = await writeCommit(repo.root, { message: 'init', changes: [], author: ident });
      expect(r.git(['rev-parse', `${empty.oid}^{tree}`]).trim()).toBe(EMPTY_TREE[format]);
      await updateRefs(repo, [{ ref: 'refs/heads/side', newOid: empty.oid, oldOid: null }, { ref: empty.tempRef, newOid: null }]);
      expect(fsck(r).ok).toBe(true);
      // cat-file reader sees the new ref
      expect(await readRef(repo, 'refs/heads/side')).toBe(empty.oid);
      const tree = await repo.objects.read(`${w.oid}^{tree}`);
      expect(parseTree(tree!.data, format).map((e) => e.name)).toEqual(['a', 'run.sh', 'x y']);
      repo.objects.close();
    });
  }

  it('compare-and-swap refuses a stale old value and reports a race', async () => {
    const r = makeRepo();
    const repo = await withEnv(r.env, () => openRepo(r.dir));
    const head = r.git(['rev-parse', 'HEAD']).trim();
    expect(await updateRefs(repo, [{ ref: 'refs/heads/x', newOid: head, oldOid: null }])).toBe('ok');
    expect(await updateRefs(repo, [{ ref: 'refs/heads/x', newOid: head, oldOid: null }])).toBe('race');
    r.write('second.txt', '2\n');
    const other = r.commitAll('second');
    expect(await updateRefs(repo, [{ ref: 'refs/heads/x', newOid: other, oldOid: other }])).toBe('race');
    expect(await updateRefs(repo, [{ ref: 'refs/heads/x', newOid: other, oldOid: head }])).toBe('ok');
    // a stale lock file is an error, not a race
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(r.dir, '.git/refs/heads/x.lock'), '');
    await expect(updateRefs(repo, [{ ref: 'refs/heads/x', newOid: head, oldOid: other }])).rejects.toMatchObject({ code: 'GIT_FAILED' });
    repo.objects.close();
  });

  it('reads packed refs and objects from alternates', async () => {
    const src = makeRepo();
    src.git(['branch', 'packed-one']);
    src.git(['pack-refs', '--all']);
    src.git(['gc', '-q']);
    const home = tempDir();
    const cloneDir = join(tempDir(), 'clone');
    execFileSync('git', ['clone', '-q', '--shared', src.dir, cloneDir], { env: testEnv(home) });
    const c = repoAt(cloneDir, home, testEnv(home));
    expect(readFileSync(join(cloneDir, '.git/objects/info/alternates'), 'utf8')).toContain(src.dir);
    const repo = await withEnv(c.env, () => openRepo(cloneDir));
    expect(await readRef(repo, 'refs/remotes/origin/packed-one')).toBe(src.git(['rev-parse', 'HEAD']).trim());
    const blob = await repo.objects.read('HEAD:README.md');
    expect(blob?.data.toString()).toBe('# test repo\n');
    repo.objects.close();
  });
});

describe('work-tree snapshot (src/git/snapshot.ts)', () => {
  it('builds tree changes from the work tree without touching the user index (index v4 too)', async () => {
    const r = makeRepo();
    r.git(['update-index', '--index-version', '4']);
    r.write('.gitignore', 'secret.env\n');
    r.write('tool.sh', '#!/bin/sh\n');
    const { chmodSync, symlinkSync, rmSync } = await import('node:fs');
    chmodSync(join(r.dir, 'tool.sh'), 0o755);
    r.commitAll('ignore');
    r.write('src/new.ts', 'export const x = 1;\n');
    r.write('README.md', 'changed\n');
    r.write('secret.env', 'TOKEN=abc\n');
    r.write('.entire/metadata/x', 'never\n');
    symlinkSync('README.md', join(r.dir, 'link'));
    r.git(['add', 'README.md']); // staged change the user made
    rmSync(join(r.dir, 'tool.sh'));
    const indexBefore = readFileSync(join(r.dir, '.git/index'));
    const mtimeBefore = statSync(join(r.dir, '.git/index')).mtimeMs;
    const repo = await withEnv(r.env, () => openRepo(r.dir));
    const changes = await withEnv(r.env, () =>
      snapshotChanges(repo, { paths: ['src/new.ts', 'secret.env', '.entire/metadata/x', 'README.md', 'tool.sh', 'link', 'src'] }),
    );
    const byPath = new Map(changes.map((c) => [c.path, c]));
    expect([...byPath.keys()].sort()).toEqual(['README.md', 'link', 'src/new.ts', 'tool.sh']);
    expect(byPath.get('tool.sh')).toEqual({ op: 'delete', path: 'tool.sh' });
    expect(byPath.get('link')).toMatchObject({ op: 'put', mode: '120000', content: 'README.md' });
    const readme = byPath.get('README.md') as { oid: string };
    expect(r.git(['cat-file', '-p', readme.oid])).toBe('changed\n');
    expect(readFileSync(join(r.dir, '.git/index')).equals(indexBefore)).toBe(true);
    expect(statSync(join(r.dir, '.git/index')).mtimeMs).toBe(mtimeBefore);
    expect(r.git(['diff', '--cached', '--name-only']).trim()).toBe('README.md');
    repo.objects.close();
  });

  it('stores blobs as `git hash-object -w` would, in-process or (with attributes or autocrlf) through git', async () => {
    const r = makeRepo();
    r.write('plain.txt', 'line one\r\nline two\n');
    r.write('dir/exe.sh', '#!/bin/sh\necho hi\n');
    r.write('bin.dat', Buffer.from([0, 1, 2, 255, 13, 10]));
    const paths = ['plain.txt', 'dir/exe.sh', 'bin.dat'];
    const expectSameAsGit = async (): Promise<void> => {
      const repo = await withEnv(r.env, () => openRepo(r.dir, { fast: true }));
      try {
        const changes = await withEnv(r.env, () => snapshotChanges(repo, { paths, trustedPaths: new Set(paths) }));
        for (const p of paths) {
          const c = changes.find((x) => x.path === p) as { oid: string };
          expect(c.oid, p).toBe(r.git(['hash-object', p]).trim());
          expect(r.gitResult(['cat-file', '-e', c.oid]).status, `${p} stored`).toBe(0);
        }
      } finally {
        repo.objects.close();
      }
    };
    await expectSameAsGit(); // verbatim: written here
    r.git(['config', 'core.autocrlf', 'true']);
    await expectSameAsGit(); // CRLF normalised by git
    r.git(['config', 'core.autocrlf', 'false']);
    r.write('dir/.gitattributes', '*.sh text eol=lf\n');
    r.write('.gitattributes', '*.txt text\n');
    await expectSameAsGit(); // attributes: git decides
  });
});
