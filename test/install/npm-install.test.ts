/**
 * Installing the package as the README says, for real, into temporary npm prefixes:
 * `npm install -g <checkout>` (npm links the checkout and runs its `prepare`, which builds
 * dist/) and `npm pack` + `npm install -g <tarball>` (the tarball carries dist/; installing it
 * runs no script and needs no network). Each install's `entire` then enables a repository, and
 * a commit of agent work gets its checkpoint through the installed hooks.
 *
 * The checkouts are copies without dist/ whose node_modules links the project's, so npm never
 * goes to the network; a checkout without node_modules (where `prepare` first runs `npm ci`)
 * was checked by hand (docs/commands/enable.md, "Installing").
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cpSync, existsSync, readFileSync, readdirSync, realpathSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { makeRepo, cleanupAll, tempDir, PROJECT_ROOT, type TempRepo } from '../helpers/repo.js';
import { FakeClaude } from '../helpers/agent.js';
import { gitPath } from './util.js';

afterAll(() => cleanupAll());

const PKG = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string; files: string[] };

/** A checkout as a clone has it (no dist/), its node_modules the project's. */
function checkout(): string {
  const dir = join(tempDir('entire-checkout-'), 'entire');
  for (const f of ['package.json', 'package-lock.json', 'README.md', 'bin', 'hooks', 'scripts', 'src']) cpSync(join(PROJECT_ROOT, f), join(dir, f), { recursive: true });
  symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

function npm(args: string[], cwd: string) {
  const home = tempDir('entire-npm-home-');
  const env: NodeJS.ProcessEnv = { PATH: process.env['PATH'], HOME: home, npm_config_cache: join(home, 'cache'), npm_config_update_notifier: 'false' };
  const r = spawnSync('npm', [...args, '--no-audit', '--no-fund', '--offline'], { cwd, env, encoding: 'utf8' });
  expect(r.status, `npm ${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(0);
  return r;
}

/** The repository's `entire` is the one installed under `prefix`, as found on PATH. */
function usingInstalled(r: TempRepo, prefix: string): TempRepo {
  const PATH = `${join(prefix, 'bin')}:/usr/local/bin:/usr/bin:/bin`;
  const env = { ...r.env, PATH };
  return {
    ...r,
    env,
    entire: (args, opts = {}) => spawnSync('entire', args, { cwd: opts.cwd ?? r.dir, env: { ...env, ...opts.env }, input: opts.input ?? '', encoding: 'utf8' }),
    gitResult: (args, opts = {}) => r.gitResult(args, { ...opts, env: { PATH, ...opts.env } }),
  };
}

/** `entire --version`, `enable`, an agent turn and its commit, all through the install under `prefix`. */
function checkInstall(prefix: string, pkgDir: string): void {
  const r = usingInstalled(makeRepo(), prefix);
  const v = r.entire(['--version']);
  expect(v.status, v.stderr).toBe(0);
  expect(v.stdout.split('\n')[0]).toMatch(new RegExp(`^Entire CLI ${PKG.version.replace(/\./g, '\\.')} \\(\\S+\\)$`));

  const en = r.entire(['enable']);
  expect(en.status, en.stderr).toBe(0);
  expect(readFileSync(join(gitPath(r, 'hooks'), 'post-commit'), 'utf8')).toContain(`entire_pkg='${realpathSync(pkgDir)}'`);

  const agent = new FakeClaude(r);
  agent.sessionStart();
  agent.prompt('write a.txt');
  agent.write('a.txt', 'agent work\n');
  expect(agent.stop().status).toBe(0);
  r.git(['add', 'a.txt']);
  const c = r.gitResult(['commit', '-q', '-m', 'agent work']);
  expect(c.status, c.stderr).toBe(0);
  const id = /^Entire-Checkpoint: ([0-9a-f]{12})$/m.exec(r.git(['log', '-1', '--format=%B']))?.[1];
  expect(id).toBeDefined();
  expect(r.git(['ls-tree', '-r', '--name-only', 'entire/checkpoints/v1'])).toContain(`${id!.slice(0, 2)}/${id!.slice(2)}/0/full.jsonl`);
}

describe('npm installs (README "Using it")', () => {
  it('npm install -g <checkout>: npm links it and its prepare script builds dist/', () => {
    const dir = checkout();
    const prefix = tempDir('entire-prefix-');
    npm(['install', '-g', '--prefix', prefix, dir], dir);
    expect(existsSync(join(dir, 'dist', 'entire.cjs'))).toBe(true);
    expect(existsSync(join(dir, 'dist', 'hooks.cjs'))).toBe(true);
    checkInstall(prefix, join(prefix, 'lib', 'node_modules', 'entire'));
  }, 180_000);

  it('npm pack + npm install -g <tarball>: the tarball holds dist/ and installs with no script and no dependency', () => {
    const dir = checkout();
    const out = tempDir('entire-pack-');
    npm(['pack', '--pack-destination', out], dir);
    const tarball = readdirSync(out).find((n) => n.endsWith('.tgz'));
    expect(tarball).toBe(`entire-${PKG.version}.tgz`);
    const prefix = tempDir('entire-prefix-');
    npm(['install', '-g', '--ignore-scripts', '--prefix', prefix, join(out, tarball!)], out);
    const installed = join(prefix, 'lib', 'node_modules', 'entire');
    expect(readdirSync(installed).sort()).toEqual([...new Set(PKG.files.map((f) => f.split('/')[0]!)), 'README.md', 'package.json'].sort());
    expect(existsSync(join(installed, 'node_modules'))).toBe(false);
    checkInstall(prefix, installed);
  }, 180_000);
});
