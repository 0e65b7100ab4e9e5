import { describe, it, expect, afterAll } from 'vitest';
import { join } from 'node:path';
import { mkdirSync, writeFileSync } from 'node:fs';
import { makeRepo, cleanupAll } from '../helpers/repo.js';
import { discoverRepo } from '../../src/git/discover.js';
import { readConfigValue } from '../../src/git/config-file.js';

afterAll(cleanupAll);

describe('file-system repository discovery agrees with git', () => {
  it('main worktree, from a subdirectory, loose and packed refs, detached HEAD', () => {
    const r = makeRepo();
    mkdirSync(join(r.dir, 'sub/deeper'), { recursive: true });
    const d = discoverRepo(join(r.dir, 'sub/deeper'), {})!;
    expect(d.root).toBe(r.dir);
    expect(d.gitDir).toBe(join(r.dir, '.git'));
    expect(d.commonDir).toBe(join(r.dir, '.git'));
    expect(d.head).toBe(r.git(['rev-parse', 'HEAD']).trim());
    r.git(['pack-refs', '--all']);
    expect(discoverRepo(r.dir, {})!.head).toBe(r.git(['rev-parse', 'HEAD']).trim());
    r.git(['checkout', '-q', '--detach']);
    expect(discoverRepo(r.dir, {})!.head).toBe(r.git(['rev-parse', 'HEAD']).trim());
  });

  it('an unborn branch has no HEAD; sha256 is detected', () => {
    const a = makeRepo({ initialCommit: false });
    expect(discoverRepo(a.dir, {})!.head).toBeNull();
    const b = makeRepo({ objectFormat: 'sha256' });
    const d = discoverRepo(b.dir, {})!;
    expect(d.objectFormat).toBe('sha256');
    expect(d.head).toBe(b.git(['rev-parse', 'HEAD']).trim());
  });

  it('a linked worktree, with and without the GIT_DIR git exports to its hooks', () => {
    const r = makeRepo();
    const wt = join(r.dir, '..', 'linked');
    r.git(['worktree', 'add', '-q', wt, '-b', 'side']);
    const gitDir = r.git(['rev-parse', '--absolute-git-dir'], { cwd: wt }).trim();
    for (const env of [{}, { GIT_DIR: gitDir }]) {
      const d = discoverRepo(wt, env)!;
      expect(d.root).toBe(wt);
      expect(d.gitDir).toBe(gitDir);
      expect(d.commonDir).toBe(join(r.dir, '.git'));
      expect(d.head).toBe(r.git(['rev-parse', 'HEAD'], { cwd: wt }).trim());
    }
  });

  it('defers to git for layouts it does not model', () => {
    const r = makeRepo();
    expect(discoverRepo(r.dir, { GIT_WORK_TREE: r.dir })).toBeNull();
    // git's setup reads the repository format from the config file alone, includes not followed
    // (setup.c read_repository_format): an included core.worktree changes nothing, for git as here
    writeFileSync(join(r.home, 'inc'), '[core]\n\tworktree = /elsewhere\n');
    r.git(['config', 'include.path', join(r.home, 'inc')]);
    expect(r.git(['rev-parse', '--show-toplevel']).trim()).toBe(r.dir);
    expect(discoverRepo(r.dir, {})?.root).toBe(r.dir);
    // core.worktree, a bare flag however git spells true, refStorage: git decides
    const config = join(r.dir, '.git', 'config');
    const base = '[core]\n\trepositoryformatversion = 0\n\tbare = false ; not bare\n';
    writeFileSync(config, base);
    expect(discoverRepo(r.dir, {})!.objectFormat).toBe('sha1');
    for (const extra of ['\tworktree = /elsewhere\n', '\tbare\n', '\tBare = Yes # comment\n', '[extensions]\n\trefStorage = reftable\n']) {
      writeFileSync(config, base + extra);
      expect(discoverRepo(r.dir, {}), extra).toBeNull();
    }
    writeFileSync(config, base + '[extensions]\n\tworktreeConfig = true\n');
    expect(discoverRepo(r.dir, {})).not.toBeNull();
  });
});

describe('config values without a spawn', () => {
  it('reads core.commentChar from the repository config, quoted values, and -c parameters', () => {
    const r = makeRepo();
    const dirs = { commonDir: join(r.dir, '.git'), gitDir: join(r.dir, '.git') };
    const env = { GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', HOME: r.home };
    expect(readConfigValue('core', 'commentchar', dirs, env)).toEqual({ value: null });
    r.git(['config', 'core.commentChar', ';']);
    expect(readConfigValue('core', 'commentchar', dirs, env)).toEqual({ value: r.git(['config', 'core.commentChar']).trim() });
    expect(readConfigValue('core', 'commentchar', dirs, { ...env, GIT_CONFIG_PARAMETERS: "'core.commentChar'='%'" })).toEqual({ value: '%' });
    expect(readConfigValue('core', 'commentchar', dirs, { ...env, GIT_CONFIG_PARAMETERS: "'core.commentchar=!'" })).toEqual({ value: '!' });
    const global = join(r.home, 'gitconfig');
    writeFileSync(global, '[core]\n\tcommentChar = "@" # note\n');
    r.git(['config', '--unset', 'core.commentChar']);
    expect(readConfigValue('core', 'commentchar', dirs, { ...env, GIT_CONFIG_GLOBAL: global })).toEqual({ value: '@' });
    // an include is followed (test/git/config-include.test.ts has the rest)
    writeFileSync(global, '[include]\n\tpath = other\n');
    expect(readConfigValue('core', 'commentchar', dirs, { ...env, GIT_CONFIG_GLOBAL: global })).toEqual({ value: null });
    writeFileSync(join(r.home, 'other'), '[core]\n\tcommentChar = "&"\n');
    expect(readConfigValue('core', 'commentchar', dirs, { ...env, GIT_CONFIG_GLOBAL: global })).toEqual({ value: '&' });
  });
});
