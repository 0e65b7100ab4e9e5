/**
 * bin/entire.cjs, the launcher (SPEC §10): runs a bundle through a V8 code
 * cache in $ENTIRE_CACHE_DIR. The cache file is one generation byte, then
 * V8's data; each of a profile's first four runs rewrites it, so it holds
 * the union of the code those runs compiled. Whatever the file holds, the
 * CLI behaves the same. The cache is code the process runs, so it is used
 * only from a directory that is ours alone, from files only we can have
 * written (SPEC-2 §A.9, conformance A12).
 */
import { describe, it, expect, afterAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupAll, tempDir, testEnv, PROJECT_ROOT } from '../helpers/repo.js';

afterAll(cleanupAll);

const pkgVersion = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')).version as string;

function setup(cacheDir?: string) {
  const home = tempDir();
  cacheDir ??= join(home, 'cache');
  const env = testEnv(home, { ENTIRE_CACHE_DIR: cacheDir });
  const run = (extra: Record<string, string | undefined> = {}) => {
    const merged: NodeJS.ProcessEnv = { ...env };
    for (const [k, v] of Object.entries(extra)) {
      if (v === undefined) delete merged[k];
      else merged[k] = v;
    }
    const r = spawnSync(process.execPath, [join(PROJECT_ROOT, 'bin', 'entire.cjs'), 'version'], { env: merged, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(pkgVersion);
    return r;
  };
  const files = () => {
    try {
      return readdirSync(cacheDir).filter((n) => n.endsWith('.v8'));
    } catch {
      return [];
    }
  };
  const generation = () => {
    const f = files();
    expect(f).toHaveLength(1);
    return readFileSync(join(cacheDir, f[0]!))[0];
  };
  return { home, cacheDir, run, files, generation };
}

describe('the launcher’s code cache', () => {
  it('rewrites the cache on a profile’s first four runs, then leaves it', () => {
    const s = setup();
    s.run();
    expect(s.generation()).toBe(1);
    for (const g of [2, 3, 4]) {
      s.run();
      expect(s.generation()).toBe(g);
    }
    const file = join(s.cacheDir, s.files()[0]!);
    const before = readFileSync(file);
    s.run();
    s.run();
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it('keeps a turn-end worker’s cache apart from its hook’s (the hook the agent waits on loads only its own code)', () => {
    const home = tempDir();
    const cacheDir = join(home, 'cache');
    const env = testEnv(home, { ENTIRE_CACHE_DIR: cacheDir });
    const hook = (extra: Record<string, string> = {}) =>
      spawnSync(process.execPath, [join(PROJECT_ROOT, 'bin', 'entire.cjs'), 'hooks', 'claude-code', 'stop'], { env: { ...env, ...extra }, input: '', cwd: home, encoding: 'utf8' });
    expect(hook().status).toBe(0);
    // a worker's argv is its hook's; only ENTIRE_HANDOVER tells it apart
    expect(hook({ ENTIRE_HANDOVER: join(home, 'none') }).status).toBe(0);
    const names = readdirSync(cacheDir).filter((n) => n.endsWith('.v8'));
    expect(names.filter((n) => n.endsWith('-hooks-claude-code-stop.v8'))).toHaveLength(1);
    expect(names.filter((n) => n.endsWith('-hooks-claude-code-stop-worker.v8'))).toHaveLength(1);
  });

  it('runs the same from a damaged cache, and replaces it', () => {
    const s = setup();
    s.run();
    const file = join(s.cacheDir, s.files()[0]!);
    for (const junk of [Buffer.from([4, 1, 2, 3, 4, 5]), Buffer.alloc(0), Buffer.from('not a cache')]) {
      writeFileSync(file, junk);
      s.run();
      expect(s.generation()).toBe(1);
      expect(readFileSync(file).length).toBeGreaterThan(1000);
    }
  });

  it('drops caches of earlier builds, and writes none with ENTIRE_NO_CODE_CACHE=1', () => {
    const s = setup();
    s.run();
    const mine = s.files()[0]!;
    // the same install's cache for another build of the bundle (its size and mtime are in the name)
    const stale = mine.replace(/-v\d[^-]*-[^-]+-\d+-\d+-/, (m) => m.replace(/-\d+-\d+-$/, '-1-2-'));
    expect(stale).not.toBe(mine);
    writeFileSync(join(s.cacheDir, stale), 'old');
    writeFileSync(join(s.cacheDir, mine), 'damaged'); // a first-generation write cleans up
    s.run();
    expect(s.files()).toEqual([mine]);

    const t = setup();
    t.run({ ENTIRE_NO_CODE_CACHE: '1' });
    expect(t.files()).toEqual([]);
  });
});

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const NOBODY = 65534;

describe('where the code cache lives, and when it is not used (SPEC-2 §A.9)', () => {
  it('is $XDG_CACHE_HOME/entire, else $HOME/.cache/entire, created 0700', () => {
    const s = setup();
    s.run({ ENTIRE_CACHE_DIR: undefined, XDG_CACHE_HOME: join(s.home, 'xdg') });
    const xdg = join(s.home, 'xdg', 'entire');
    expect(readdirSync(xdg).filter((n) => n.endsWith('.v8'))).toHaveLength(1);
    expect(statSync(xdg).mode & 0o777).toBe(0o700);
    s.run({ ENTIRE_CACHE_DIR: undefined, XDG_CACHE_HOME: undefined });
    const dotCache = join(s.home, '.cache', 'entire');
    expect(readdirSync(dotCache).filter((n) => n.endsWith('.v8'))).toHaveLength(1);
    expect(statSync(dotCache).mode & 0o777).toBe(0o700);
    // a relative XDG_CACHE_HOME is not a base directory: HOME's is used
    s.run({ ENTIRE_CACHE_DIR: undefined, XDG_CACHE_HOME: 'relative' });
    expect(existsSync(join(s.home, 'relative'))).toBe(false);
  });

  it('with HOME and XDG_CACHE_HOME unset: no cache, and nothing made in the temporary directory', () => {
    const s = setup();
    const tmp = tempDir();
    for (let i = 0; i < 2; i++) s.run({ ENTIRE_CACHE_DIR: undefined, XDG_CACHE_HOME: undefined, HOME: undefined, TMPDIR: tmp });
    expect(readdirSync(tmp)).toEqual([]);
    expect(s.files()).toEqual([]);
  });

  /** A cache directory with a generation-1 cache in it, then `spoil` applied; the cache file's bytes. */
  function spoiled(spoil: (dir: string) => void): { s: ReturnType<typeof setup>; file: string; before: Buffer } {
    const s = setup();
    s.run();
    expect(s.generation()).toBe(1);
    const file = join(s.cacheDir, s.files()[0]!);
    const before = readFileSync(file);
    spoil(s.cacheDir);
    return { s, file, before };
  }

  for (const [what, mode] of [
    ['group-writable', 0o770],
    ['world-writable', 0o707],
    ['group-readable', 0o750],
  ] as const) {
    it(`is not used from a ${what} directory`, () => {
      const { s, file, before } = spoiled((d) => chmodSync(d, mode));
      s.run();
      s.run();
      // used, it would be generation 3 now; it is neither read nor rewritten
      expect(readFileSync(file).equals(before)).toBe(true);
      expect(s.files()).toHaveLength(1);
    });
  }

  it.skipIf(!asRoot)('is not used from a directory someone else owns', () => {
    const { s, file, before } = spoiled((d) => chownSync(d, NOBODY, NOBODY));
    s.run();
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it('is not used through a symlinked directory', () => {
    const { s, file, before } = spoiled(() => {});
    const link = join(s.home, 'link');
    symlinkSync(s.cacheDir, link);
    s.run({ ENTIRE_CACHE_DIR: link });
    s.run({ ENTIRE_CACHE_DIR: link });
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
  });

  /** A generation-3 cache, then the cache file replaced as `spoil` says; after one run the file must be a fresh generation 1. */
  function rejectsFile(spoil: (file: string, good: string) => void): void {
    const s = setup();
    for (let i = 0; i < 3; i++) s.run();
    expect(s.generation()).toBe(3);
    const file = join(s.cacheDir, s.files()[0]!);
    const good = join(s.home, 'good-cache.v8');
    copyFileSync(file, good);
    spoil(file, good);
    s.run();
    // read and accepted, it would be generation 4; not used, the run compiles and writes generation 1
    expect(lstatSync(file).isFile()).toBe(true);
    expect(readFileSync(file)[0]).toBe(1);
    expect(readFileSync(good)[0]).toBe(3); // a symlink's target is left alone
  }

  it('does not use a cache file that is a symlink', () => {
    rejectsFile((file, good) => {
      rmSync(file);
      symlinkSync(good, file);
    });
  });

  it('does not use a cache file that others can write', () => {
    rejectsFile((file) => chmodSync(file, 0o620));
  });

  it.skipIf(!asRoot)('does not use a cache file someone else owns', () => {
    rejectsFile((file) => chownSync(file, NOBODY, NOBODY));
  });

  it('keeps using a good cache (the checks do not turn it off)', () => {
    const s = setup();
    mkdirSync(s.cacheDir, { mode: 0o700 });
    for (let i = 0; i < 4; i++) s.run();
    expect(s.generation()).toBe(4);
  });
});

