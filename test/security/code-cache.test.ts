/**
 * Issue 14, case 9 (SPEC-2 §A.9, A12): the V8 code cache is code the CLI
 * runs. With HOME unset it fell back to a shared /tmp directory another
 * local user could create first and fill with a forged cache. Through the
 * built CLI: no fallback directory is created, and a cache directory that is
 * a symlink, foreign-owned, or group/world-writable is neither read nor
 * written. (test/install/launcher.test.ts covers the launcher's checks one
 * by one.)
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, cleanupAll, makeRepo, tempDir } from '../helpers/repo.js';
import { snapshot, diffSnapshots } from '../stress/helpers.js';

afterAll(cleanupAll);

function run(env: NodeJS.ProcessEnv, cwd: string, args = ['version']) {
  return spawnSync(process.execPath, [CLI, ...args], { cwd, env, encoding: 'utf8' });
}

const isRoot = typeof process.geteuid === 'function' && process.geteuid() === 0;

describe('case 9: the code cache is never shared or foreign (A12)', () => {
  it('HOME and XDG_CACHE_HOME unset: the CLI runs, and no cache directory appears in the temp dir', () => {
    const r = makeRepo();
    const before = new Set(readdirSync(tmpdir()));
    const env = { ...r.env };
    delete env['HOME'];
    delete env['XDG_CACHE_HOME'];
    for (let i = 0; i < 3; i++) {
      const res = run(env, r.dir);
      expect(res.status, res.stderr).toBe(0);
    }
    const added = readdirSync(tmpdir()).filter((n) => !before.has(n) && !n.startsWith('entire-test-') && !n.startsWith('entire-bundle-'));
    expect(added.filter((n) => /entire|v8|cache/i.test(n))).toEqual([]);
  });

  const kinds: [string, string][] = [
    ['a symlink to someone else’s directory', 'link'],
    ['world-writable', 'world'],
    ['group-writable', 'group'],
  ];
  if (isRoot) kinds.push(['owned by another user', 'foreign']);
  it.each(kinds)('a cache directory that is %s is neither read nor written', (_what, kind) => {
    const r = makeRepo();
    const xdg = tempDir();
    const cache = join(xdg, 'entire');
    const attacker = tempDir();
    writeFileSync(join(attacker, 'planted.v8'), Buffer.alloc(4096, 1));
    if (kind === 'link') symlinkSync(attacker, cache);
    else {
      mkdirSync(cache, { mode: 0o700 });
      writeFileSync(join(cache, 'planted.v8'), Buffer.alloc(4096, 1));
      if (kind === 'world') chmodSync(cache, 0o777);
      if (kind === 'group') chmodSync(cache, 0o770);
      if (kind === 'foreign') chownSync(cache, 65534, 65534);
    }
    const target = kind === 'link' ? attacker : cache;
    const before = snapshot(target);
    const env = { ...r.env, XDG_CACHE_HOME: xdg };
    for (let i = 0; i < 3; i++) expect(run(env, r.dir).status).toBe(0);
    // a hook too: the hooks bundle has its own cache
    expect(run(env, r.dir, ['hooks', 'git', 'post-commit']).status).toBe(0);
    expect(diffSnapshots(before, snapshot(target))).toEqual([]);
  });

  it('a cache directory that is ours and private is used (the check can pass)', () => {
    const r = makeRepo();
    const xdg = tempDir();
    const env = { ...r.env, XDG_CACHE_HOME: xdg };
    for (let i = 0; i < 2; i++) expect(run(env, r.dir).status).toBe(0);
    expect(readdirSync(join(xdg, 'entire')).some((n) => n.endsWith('.v8'))).toBe(true);
  });
});
