/**
 * prepare-commit-msg's staged paths (SPEC §6.3 P) read in-process from the
 * index and HEAD's tree must equal `git diff --cached --name-only`, and the
 * index features that change what entries mean must defer to git.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { chmodSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { makeRepo, cleanupAll, type TempRepo } from '../helpers/repo.js';
import { withEnv } from '../helpers/env.js';
import { openRepo, EMPTY_TREE } from '../../src/git/repo.js';
import { stagedAmongLocal, stagedPaths } from '../../src/git/status.js';

afterAll(cleanupAll);

const PATHS = ['a.txt', 'b.txt', 'dir/c.txt', 'dir/sub/d.txt', 'exec.sh', 'gone.txt', 'new.txt', 'ü.txt', 'unstaged.txt', 'never.txt', 'link'];

function gitStaged(repo: TempRepo, base: string, env: Record<string, string> = {}): string[] {
  const out = repo.git(['diff', '--cached', '--name-only', '-z', '--no-renames', base, '--', ...PATHS], { env });
  return out.split('\0').filter((p) => p !== '');
}

function setup(format: 'sha1' | 'sha256' = 'sha1'): TempRepo {
  const repo = makeRepo({ objectFormat: format });
  for (const p of ['a.txt', 'b.txt', 'dir/c.txt', 'dir/sub/d.txt', 'exec.sh', 'gone.txt', 'ü.txt', 'unstaged.txt']) repo.write(p, `${p} v1\n`);
  repo.git(['config', 'core.symlinks', 'true']);
  repo.commitAll('base');
  repo.write('a.txt', 'a v2\n');
  repo.write('dir/sub/d.txt', 'd v2\n');
  repo.write('ü.txt', 'ü v2\n');
  repo.write('new.txt', 'new\n');
  chmodSync(join(repo.dir, 'exec.sh'), 0o755);
  repo.git(['add', 'a.txt', 'dir/sub/d.txt', 'ü.txt', 'new.txt', 'exec.sh']);
  repo.git(['rm', '-q', 'gone.txt']);
  repo.write('unstaged.txt', 'changed but not staged\n');
  return repo;
}

async function local(repo: TempRepo, base: string, indexFile?: string): Promise<string[] | undefined> {
  return withEnv(repo.env, async () => {
    const r = await openRepo(repo.dir, { fast: true, inheritedIndexFile: indexFile });
    try {
      return stagedAmongLocal(r, base, PATHS);
    } finally {
      r.objects.close();
    }
  });
}

describe('staged paths without git (src/git/index-file.ts, status.ts)', () => {
  for (const format of ['sha1', 'sha256'] as const) {
    it(`matches git diff --cached for edits, mode changes, deletions and new files (${format})`, async () => {
      const repo = setup(format);
      const head = repo.git(['rev-parse', 'HEAD']).trim();
      const expected = gitStaged(repo, head);
      expect(expected).toEqual(['a.txt', 'dir/sub/d.txt', 'exec.sh', 'gone.txt', 'new.txt', 'ü.txt']);
      expect(await local(repo, head)).toEqual(expected);
      // against the empty tree (a root commit) and an older base
      expect(await local(repo, EMPTY_TREE[format])).toEqual(gitStaged(repo, EMPTY_TREE[format]));
      repo.git(['gc', '-q', '--prune=now']); // HEAD's trees now come from a pack
      expect(await local(repo, head)).toEqual(expected);
    });
  }

  it('reads index versions 2, 3 and 4, and a temporary index named by GIT_INDEX_FILE', async () => {
    const repo = setup();
    const head = repo.git(['rev-parse', 'HEAD']).trim();
    const expected = gitStaged(repo, head);
    for (const v of ['2', '3', '4']) {
      repo.git(['update-index', '--index-version', v]);
      expect(await local(repo, head), `index v${v}`).toEqual(expected);
    }
    // `git commit -a` hands the hook a temporary index holding exactly what will be committed
    const tmpIndex = join(repo.dir, '.git', 'tmp-index');
    repo.git(['read-tree', 'HEAD'], { env: { GIT_INDEX_FILE: tmpIndex } });
    repo.git(['add', 'unstaged.txt'], { env: { GIT_INDEX_FILE: tmpIndex } });
    const viaTmp = gitStaged(repo, head, { GIT_INDEX_FILE: tmpIndex });
    expect(viaTmp).toEqual(['unstaged.txt']);
    expect(await local(repo, head, tmpIndex)).toEqual(viaTmp);
  });

  it('defers to git for intent-to-add entries and split indexes, and still answers right through stagedPaths', async () => {
    const repo = setup();
    const head = repo.git(['rev-parse', 'HEAD']).trim();
    repo.write('never.txt', 'intent to add\n');
    repo.git(['add', '-N', 'never.txt']);
    expect(await local(repo, head)).toBeUndefined();
    const viaApi = await withEnv(repo.env, async () => {
      const r = await openRepo(repo.dir, { fast: true });
      try {
        return await stagedPaths(r, head, PATHS);
      } finally {
        r.objects.close();
      }
    });
    expect(viaApi).toEqual(gitStaged(repo, head));
    repo.git(['rm', '-q', '--cached', 'never.txt']);
    repo.git(['update-index', '--split-index']);
    expect(await local(repo, head)).toBeUndefined();
    repo.git(['update-index', '--no-split-index']);
    expect(await local(repo, head)).toEqual(gitStaged(repo, head));
  });

  it('treats a missing index as empty and a path that is a directory in the base as git’s business', async () => {
    const repo = setup();
    const head = repo.git(['rev-parse', 'HEAD']).trim();
    rmSync(join(repo.dir, '.git', 'index'));
    const expected = gitStaged(repo, head);
    expect(expected.length).toBeGreaterThan(5); // everything in HEAD looks deleted
    expect(await local(repo, head)).toEqual(expected);
    const r = await withEnv(repo.env, async () => {
      const o = await openRepo(repo.dir, { fast: true });
      try {
        return stagedAmongLocal(o, head, ['dir']);
      } finally {
        o.objects.close();
      }
    });
    expect(r).toBeUndefined();
  });
});
