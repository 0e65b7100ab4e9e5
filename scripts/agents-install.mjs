#!/usr/bin/env node
// Installs the real agent CLIs the real-agent tier drives (SPEC-2 §G) into a
// cache OUTSIDE the repository, one `npm install --prefix` per package and
// version, so they are never devDependencies and survive between runs.
//
//   node scripts/agents-install.mjs            pinned versions (test/real-agents/versions.json)
//   node scripts/agents-install.mjs --latest   the newest published versions (npm view)
//   options: --only <agent key>, --json (print the manifest on stdout)
//
// Cache: ${ENTIRE_AGENT_CLI_CACHE:-${XDG_CACHE_HOME:-~/.cache}/entire-agent-clis}/<pkg>@<version>/
// A directory counts as installed only once its marker file is written, so an
// interrupted install is redone, never half-used.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const VERSIONS_FILE = join(ROOT, 'test', 'real-agents', 'versions.json');
const MARKER = '.entire-agent-install.json';
const LOCK_STALE_MS = 15 * 60 * 1000;

/** The pinned table: { key: { package, version, bin } }. */
export function pinnedAgents() {
  return JSON.parse(readFileSync(VERSIONS_FILE, 'utf8')).agents;
}

export function cacheRoot(env = process.env) {
  if (env.ENTIRE_AGENT_CLI_CACHE) return resolve(env.ENTIRE_AGENT_CLI_CACHE);
  const base = env.XDG_CACHE_HOME ? env.XDG_CACHE_HOME : join(homedir(), '.cache');
  return join(base, 'entire-agent-clis');
}

export function installDir(pkg, version, env = process.env) {
  return join(cacheRoot(env), `${pkg}@${version}`);
}

/**
 * npm run exports its own config as npm_* variables (prefix, ignore-scripts,
 * global…); a nested `npm install --prefix` must not inherit them.
 */
function npmEnv() {
  const keep = new Set(['npm_config_registry', 'npm_config_cache', 'npm_config_userconfig']);
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (k.toLowerCase().startsWith('npm_') && !keep.has(k.toLowerCase())) continue;
    env[k] = v;
  }
  // install scripts must run: Claude Code links its native binary in one
  env.npm_config_ignore_scripts = 'false';
  env.npm_config_update_notifier = 'false';
  return env;
}

function npm(args, opts = {}) {
  const r = spawnSync('npm', args, { encoding: 'utf8', env: npmEnv(), maxBuffer: 64 * 1024 * 1024, ...opts });
  if (r.error) throw r.error;
  return r;
}

export function latestVersion(pkg) {
  const r = npm(['view', pkg, 'version']);
  if (r.status !== 0) throw new Error(`npm view ${pkg} version failed: ${r.stderr.trim()}`);
  return r.stdout.trim();
}

function binPath(dir, bin) {
  return join(dir, 'node_modules', '.bin', bin);
}

function readMarker(dir) {
  try {
    return JSON.parse(readFileSync(join(dir, MARKER), 'utf8'));
  } catch {
    return null;
  }
}

/** One installer per directory at a time (a second `npm run test:agents` waits). */
function withLock(dir, fn) {
  const lock = `${dir}.lock`;
  mkdirSync(dirname(lock), { recursive: true });
  const deadline = Date.now() + LOCK_STALE_MS;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      let age = 0;
      try {
        age = Date.now() - statSync(lock).mtimeMs;
      } catch {
        continue;
      }
      if (age > LOCK_STALE_MS || Date.now() > deadline) {
        rmSync(lock, { recursive: true, force: true });
        continue;
      }
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Install one package@version unless its complete install is already cached. */
export function ensureInstalled(pkg, version, bin, log = () => {}) {
  const dir = installDir(pkg, version);
  const done = () => {
    const m = readMarker(dir);
    return m !== null && m.package === pkg && m.version === version && existsSync(binPath(dir, bin));
  };
  if (done()) return { dir, bin: binPath(dir, bin), reused: true };
  return withLock(dir, () => {
    if (done()) return { dir, bin: binPath(dir, bin), reused: true };
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'entire-agent-cli-cache', private: true }) + '\n');
    log(`installing ${pkg}@${version} into ${dir}`);
    const t0 = Date.now();
    const r = npm(['install', '--prefix', dir, '--no-audit', '--no-fund', '--save-exact', `${pkg}@${version}`], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (r.status !== 0) throw new Error(`npm install ${pkg}@${version} failed (exit ${r.status}):\n${r.stderr.slice(-4000)}`);
    if (!existsSync(binPath(dir, bin))) throw new Error(`npm install ${pkg}@${version}: no ${bin} in ${dir}/node_modules/.bin`);
    writeFileSync(join(dir, MARKER), JSON.stringify({ package: pkg, version, bin, installed_at: new Date().toISOString() }) + '\n');
    log(`installed ${pkg}@${version} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    return { dir, bin: binPath(dir, bin), reused: false };
  });
}

/**
 * Install every agent of the table (or `only`), pinned or latest. Returns the
 * manifest the tests read: { mode, agents: { key: { package, pinned, version, bin, dir } } }.
 */
export function ensureAgentClis({ latest = false, only = [], log = () => {} } = {}) {
  const agents = {};
  for (const [key, a] of Object.entries(pinnedAgents())) {
    if (only.length > 0 && !only.includes(key)) continue;
    const version = latest ? latestVersion(a.package) : a.version;
    const got = ensureInstalled(a.package, version, a.bin, log);
    agents[key] = { package: a.package, pinned: a.version, version, bin: got.bin, dir: got.dir };
    if (got.reused) log(`${a.package}@${version}: cached in ${got.dir}`);
  }
  return { mode: latest ? 'latest' : 'pinned', agents };
}

function main(argv) {
  const latest = argv.includes('--latest');
  const json = argv.includes('--json');
  const only = [];
  for (let i = 0; i < argv.length; i++) if (argv[i] === '--only' && argv[i + 1]) only.push(argv[++i]);
  const manifest = ensureAgentClis({ latest, only, log: (m) => process.stderr.write(`[agents-install] ${m}\n`) });
  if (json) process.stdout.write(JSON.stringify(manifest, null, 2) + '\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  try {
    main(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`[agents-install] ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  }
}
