#!/usr/bin/env node
'use strict';
// Launcher (SPEC §10): runs dist/entire.cjs (or dist/hooks.cjs) through a V8 code cache kept
// outside the install directory, so start-up skips parsing and compiling.
// Kept tiny and dependency-free: it runs before anything else on every hook.
const fs = require('fs');
const path = require('path');
const vm = require('vm');
// Not require('module'): loading node:module pulls in the ESM loader and the
// source-map support (about 1 ms per hook). The bundles need from their
// wrapper only a require of built-ins, which is this file's own (checked by
// scripts/build.mjs), and __dirname.

// Hooks have their own, smaller bundle (scripts/build.mjs): less to deserialize on every commit.
const full = path.join(__dirname, '..', 'dist', 'entire.cjs');
let bundle = process.argv[2] === 'hooks' ? path.join(__dirname, '..', 'dist', 'hooks.cjs') : full;

// The cache is code this process runs: only a directory that is ours alone, and files in it that
// only we can have written (SPEC-2 §A.9). With HOME and XDG_CACHE_HOME both unset there is no
// cache: a shared fallback such as /tmp is a directory another local user can fill first.
function cacheDir() {
  const env = process.env;
  if (env.ENTIRE_CACHE_DIR) return path.isAbsolute(env.ENTIRE_CACHE_DIR) ? env.ENTIRE_CACHE_DIR : null;
  // XDG: a relative XDG_CACHE_HOME is invalid and ignored
  if (env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME)) return path.join(env.XDG_CACHE_HOME, 'entire');
  if (env.HOME && path.isAbsolute(env.HOME)) return path.join(env.HOME, '.cache', 'entire');
  return null;
}

// No uids where Node has no geteuid (Windows): there only the symlink checks apply.
const euid = typeof process.geteuid === 'function' ? process.geteuid() : null;

/** A directory (lstat: not a symlink to one) owned by us, with no group or other bits. */
function trustedDir(dir) {
  let st;
  try {
    st = fs.lstatSync(dir);
  } catch {
    return false;
  }
  return st.isDirectory() && (euid === null || (st.uid === euid && (st.mode & 0o077) === 0));
}

/** The cache file's bytes if it is a regular file (not followed if a symlink), ours, writable by no one else. */
function readCache(file) {
  let fd;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW || 0));
  } catch {
    return undefined;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || (euid !== null && (st.uid !== euid || (st.mode & 0o022) !== 0))) return undefined;
    const buf = Buffer.allocUnsafe(st.size);
    let n = 0;
    while (n < buf.length) {
      const r = fs.readSync(fd, buf, n, buf.length - n, n);
      if (r === 0) break;
      n += r;
    }
    return n === buf.length ? buf : undefined;
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

function run() {
  let source;
  let st;
  try {
    try {
      st = fs.statSync(bundle);
    } catch (e) {
      if (bundle === full) throw e;
      bundle = full; // an older build without the hooks bundle
      st = fs.statSync(bundle);
    }
    // utf8: read and decoded in one native call (Node's readFileUtf8), faster than latin1's
    // JavaScript path; esbuild writes ASCII only, so either decodes the bundle exactly
    source = fs.readFileSync(bundle, 'utf8');
  } catch (e) {
    process.stderr.write('[entire] cannot load ' + bundle + ' (run `npm run build`)\n');
    process.exitCode = process.argv[2] === 'hooks' ? 0 : 1;
    return;
  }
  const key = process.version + '-' + process.arch + '-' + st.size + '-' + Math.floor(st.mtimeMs);
  // One cache per entry path: V8 caches only the functions a run compiled,
  // so each hook keeps a cache holding exactly the code it runs.
  const a = process.argv;
  // a turn-end worker (same argv as its hook, ENTIRE_HANDOVER set) runs the whole turn end: its own
  // cache, so the hook the agent waits on deserializes only the little code it runs
  const worker = process.env.ENTIRE_HANDOVER !== undefined ? '-worker' : '';
  const profile = a[2] === 'hooks' ? 'hooks-' + (a[3] || '') + '-' + (a[4] || '') + worker : 'cli-' + (a[2] || '');
  const dir = process.env.ENTIRE_NO_CODE_CACHE === '1' ? null : cacheDir();
  // several installs may share the cache dir: each cleans only its own old files
  let h = 0x811c9dc5; // FNV-1a of the bundle path (no crypto load on the hot path)
  for (let i = 0; i < bundle.length; i++) h = Math.imul(h ^ bundle.charCodeAt(i), 0x01000193) >>> 0;
  const owner = h.toString(16);
  const stem = 'entire-' + owner + '-';
  const cacheFile = dir === null ? '' : path.join(dir, stem + key.replace(/[^A-Za-z0-9.-]/g, '_') + '-' + profile.replace(/[^A-Za-z0-9-]/g, '_').slice(0, 60) + '.v8');
  // The file is one generation byte, then V8's data. A run's cache holds what that run compiled
  // (what it loaded from the cache included), so rewriting it after each of a profile's first
  // GENERATIONS runs makes it the union of their paths: a first prepare-commit-msg that added no
  // trailer no longer leaves every later one compiling the trailer code from source.
  const GENERATIONS = 4;
  let cachedData;
  let generation = 0;
  // the directory is checked once here; a directory that is not (yet) ours gets no cache written either
  const usable = dir !== null && trustedDir(dir);
  // the bundle's other caches (the redaction automaton) use the directory only as vetted here (src/cache-dir.ts)
  globalThis[Symbol.for('entire.cacheDir')] = usable ? dir : null;
  if (usable) {
    const buf = readCache(cacheFile);
    if (buf !== undefined && buf.length > 1) {
      generation = buf[0];
      cachedData = buf.subarray(1);
    }
  }
  const wrapper = '(function (exports, require, module, __filename, __dirname) { ' + source + '\n});';
  const script = new vm.Script(wrapper, { filename: bundle, cachedData, importModuleDynamically: undefined });
  const rejected = cachedData === undefined || script.cachedDataRejected === true;
  const next = rejected ? 1 : generation + 1;
  const mod = { exports: {}, id: bundle, filename: bundle, loaded: false };
  const fn = script.runInThisContext();
  if (dir !== null && next <= GENERATIONS) {
    // Written at exit so the cache also holds the functions this run compiled lazily.
    process.once('exit', () => {
      try {
        if (!usable) {
          // created 0700 when missing; one that exists already must pass the same checks
          fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
          if (!trustedDir(dir)) return;
        }
        const data = script.createCachedData();
        const tmp = cacheFile + '.' + process.pid + '.tmp';
        try { fs.unlinkSync(tmp); } catch { /* none left over */ }
        fs.writeFileSync(tmp, Buffer.concat([Buffer.of(next), data]), { mode: 0o600, flag: 'wx' });
        fs.renameSync(tmp, cacheFile);
        if (next > 1) return;
        // drop caches of earlier builds so the directory does not grow
        for (const name of fs.readdirSync(dir)) {
          if (name.startsWith(stem) && name.endsWith('.v8') && !name.includes(key.replace(/[^A-Za-z0-9.-]/g, '_'))) {
            try { fs.unlinkSync(path.join(dir, name)); } catch { /* another process may have it */ }
          }
        }
      } catch { /* a cache is an optimisation only */ }
    });
  }
  fn.call(mod.exports, mod.exports, require, mod, bundle, path.dirname(bundle));
}

try {
  run();
} catch (e) {
  // a broken install must not print a stack into every commit (one line, hooks exit 0)
  const m = String((e && e.message) || e).split('\n')[0].slice(0, 200);
  if (process.argv[2] === 'hooks') {
    process.stderr.write('[entire] ' + (process.argv[3] || '') + ' ' + (process.argv[4] || '') + ' hook failed: ' + m + '\n');
    process.exitCode = 0;
  } else {
    process.stderr.write('Error: ' + m + '\n');
    process.exitCode = 1;
  }
}
