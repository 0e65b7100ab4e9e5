#!/usr/bin/env node
// Makes a checkout runnable: installs dependencies when missing and builds the bundles when
// they are older than the sources. Used by `npm run demo`, `npm test` and as npm's `prepare`
// script, which npm runs after `npm install` in a checkout, before `npm pack` and `npm publish`
// (so the tarball carries dist/), for git installs, and for `npm install -g <dir>` / `npm link`
// (in the linked checkout, where npm installs no devDependencies: then this installs them).
import { existsSync, statSync, readdirSync } from 'node:fs';
import { execSync } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

// an installed tarball has no sources: its dist/ came with it (this file ships in it only so
// that a `prepare` npm might run there finds it and does nothing)
if (!existsSync(join(root, 'src'))) process.exit(0);

function newest(dir) {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

/**
 * The environment for an npm run from inside an npm lifecycle script: without the settings of
 * the outer command that would send this install elsewhere (`-g`, its prefix) or drop the
 * devDependencies the build needs.
 */
function nestedNpmEnv() {
  const env = { ...process.env };
  for (const k of ['global', 'global_prefix', 'local_prefix', 'prefix', 'location', 'globalconfig', 'omit', 'include', 'production', 'only']) {
    delete env[`npm_config_${k}`];
  }
  return env;
}

if (['esbuild', 'vitest', '@biomejs/biome'].some((p) => !existsSync(join(root, 'node_modules', p)))) {
  process.stderr.write('Installing dependencies (npm ci)...\n');
  const install = existsSync(join(root, 'package-lock.json')) ? 'npm ci' : 'npm install';
  execSync(`${install} --include=dev --no-audit --no-fund`, { cwd: root, stdio: 'inherit', env: nestedNpmEnv() });
}
const sources = Math.max(newest(join(root, 'src')), statSync(join(root, 'package.json')).mtimeMs, statSync(join(root, 'scripts', 'build.mjs')).mtimeMs);
const stale = (b) => !existsSync(b) || statSync(b).mtimeMs < sources;
if (stale(join(root, 'dist', 'entire.cjs')) || stale(join(root, 'dist', 'hooks.cjs'))) {
  execSync(`"${process.execPath}" scripts/build.mjs`, { cwd: root, stdio: 'inherit' });
}
