#!/usr/bin/env node
// Makes a fresh clone runnable: installs dependencies when missing and
// builds the bundle when it is older than the sources. Used by the README's
// two commands (`npm run demo`, `npm test`) so each installs what it needs.
import { existsSync, statSync, readdirSync } from 'node:fs';
import { execSync } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function newest(dir) {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

if (!existsSync(join(root, 'node_modules', 'esbuild')) || !existsSync(join(root, 'node_modules', 'vitest'))) {
  process.stderr.write('Installing dependencies (npm ci)...\n');
  execSync(existsSync(join(root, 'package-lock.json')) ? 'npm ci --no-audit --no-fund' : 'npm install --no-audit --no-fund', {
    cwd: root,
    stdio: 'inherit',
  });
}
const sources = Math.max(newest(join(root, 'src')), statSync(join(root, 'package.json')).mtimeMs, statSync(join(root, 'scripts', 'build.mjs')).mtimeMs);
const stale = (b) => !existsSync(b) || statSync(b).mtimeMs < sources;
if (stale(join(root, 'dist', 'entire.cjs')) || stale(join(root, 'dist', 'hooks.cjs'))) {
  execSync(`"${process.execPath}" scripts/build.mjs`, { cwd: root, stdio: 'inherit' });
}
