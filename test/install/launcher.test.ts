/**
 * bin/entire.cjs, the launcher (SPEC §10): runs a bundle through a V8 code
 * cache in $ENTIRE_CACHE_DIR. The cache file is one generation byte, then
 * V8's data; each of a profile's first four runs rewrites it, so it holds
 * the union of the code those runs compiled. Whatever the file holds, the
 * CLI behaves the same.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupAll, tempDir, testEnv, PROJECT_ROOT } from '../helpers/repo.js';

afterAll(cleanupAll);

const pkgVersion = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')).version as string;

function setup() {
  const home = tempDir();
  const cacheDir = join(home, 'cache');
  const env = testEnv(home, { ENTIRE_CACHE_DIR: cacheDir });
  const run = (extra: Record<string, string> = {}) => {
    const r = spawnSync(process.execPath, [join(PROJECT_ROOT, 'bin', 'entire.cjs'), 'version'], { env: { ...env, ...extra }, encoding: 'utf8' });
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
  return { cacheDir, run, files, generation };
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
