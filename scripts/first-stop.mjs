#!/usr/bin/env node
// The first Stop hook of a session on a big transcript: peak RSS and wall time
// (SPEC-2 §A.6: any hook's peak RSS ≤ 256 MiB). One run per size, measured by
// /usr/bin/time -v, so the figures are single runs on a shared VM. Also the
// turn's user-prompt-submit, and the commit's prepare-commit-msg and
// post-commit (which condenses the whole transcript into the checkpoint).
//
//   node scripts/first-stop.mjs [MB…]            # default: 100 250
//   BUILD=/tmp/a node scripts/first-stop.mjs 100 # another build (a copy of bin/, dist/, package.json)
//   FIRST_STOP_TIMING=1 node scripts/first-stop.mjs 100  # also print the hook's ENTIRE_TIMING marks
//   FIRST_STOP_NODE="--max-old-space-size=200" …        # extra node options for the hook run
//   FIRST_STOP_ENV="ENTIRE_WRITER=fast-import" …  # extra environment for the hook runs
//   FIRST_STOP_TREES=1 …  # also print the blob ids of the stored transcript files (compare two builds)
//
// The transcript is the bench's generator (src/redact/bench.ts) in 50 MB pieces,
// written once per size under $TMPDIR/entire-first-stop-<MB>.jsonl and reused.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, appendFileSync, existsSync, rmSync, realpathSync, statSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const buildDir = process.env.BUILD ?? root;
const cli = join(buildDir, 'bin', 'entire.cjs');
const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);
if (sizes.length === 0) sizes.push(100, 250);
const MB = 1024 * 1024;

const base = realpathSync(mkdtempSync(join(tmpdir(), 'entire-first-stop-')));
const home = join(base, 'home');
mkdirSync(home, { recursive: true });
const env = { ...process.env };
for (const k of Object.keys(env)) if (k.startsWith('GIT_') || k.startsWith('ENTIRE_') || k === 'NODE_OPTIONS' || k === 'NODE_EXTRA_CA_CERTS') delete env[k];
Object.assign(env, {
  HOME: home,
  XDG_CACHE_HOME: join(home, '.cache'),
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
  ENTIRE_STOP_WAIT_MS: '0',
  ENTIRE_TEST_TTY: '0',
});
function sh(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { cwd: opts.cwd, env: { ...env, ...opts.env }, input: opts.input ?? '', encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0 && !opts.allowFail) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r;
}

const libFile = join(base, 'bench-lib.cjs');
await build({ entryPoints: [join(root, 'scripts', 'bench-lib.ts')], outfile: libFile, bundle: true, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'error' });
const lib = createRequire(import.meta.url)(libFile);

function turnLines(sid, file) {
  const at = '2026-01-01T00:00:00.000Z';
  const line = (n, o) => JSON.stringify({ uuid: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`, sessionId: sid, timestamp: at, ...o });
  return [
    line(1, { type: 'user', message: { role: 'user', content: 'write first.txt' } }),
    line(2, { type: 'assistant', message: { id: 'msg_first', role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_first', name: 'Write', input: { file_path: file, content: 'first' } }], usage: { input_tokens: 3, output_tokens: 25 } } }),
    line(3, { type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_first', content: 'ok' }] } }),
    line(4, { type: 'assistant', message: { id: 'msg_first_b', role: 'assistant', content: [{ type: 'text', text: 'Wrote first.txt.' }], usage: { input_tokens: 1, output_tokens: 8 } } }),
    line(5, { type: 'progress', data: { type: 'hook_progress', hookEvent: 'Stop', command: 'entire hooks claude-code stop' } }),
  ].join('\n') + '\n';
}

/** Blob ids of the transcript files under `ref` (the same transcript must give the same ids in every build). */
function printTree(dir, ref, label) {
  const ls = sh('git', ['ls-tree', '-r', ref], { cwd: dir }).stdout.split('\n').filter((l) => /full\.jsonl|content_hash/.test(l));
  for (const l of ls) console.log(`  ${label} ${l.split(' ')[2].replace(/\t.*\//, ' ')}`);
}

function transcriptOf(mb) {
  const file = join(tmpdir(), `entire-first-stop-${mb}.jsonl`);
  if (existsSync(file) && statSync(file).size >= mb * MB) return file;
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, '');
  for (let done = 0, seed = 1; done < mb; seed++) {
    const piece = Math.min(50, mb - done);
    appendFileSync(tmp, lib.makeClaudeTranscript(piece * MB, `piece-${seed}`));
    done += piece;
  }
  renameSync(tmp, file);
  return file;
}

try {
  for (const mb of sizes) {
    const source = transcriptOf(mb);
    const dir = join(base, `repo-${mb}`);
    mkdirSync(dir, { recursive: true });
    sh('git', ['init', '-q', '-b', 'main'], { cwd: dir });
    writeFileSync(join(dir, 'README.md'), '# first stop\n');
    sh('git', ['add', '.'], { cwd: dir });
    sh('git', ['commit', '-q', '-m', 'initial'], { cwd: dir });
    sh(process.execPath, [cli, 'enable'], { cwd: dir });
    sh('git', ['add', '.'], { cwd: dir });
    sh('git', ['commit', '-q', '--no-verify', '-m', 'enable'], { cwd: dir });
    const sid = `b3a1c2d4-0000-4000-8000-${String(mb).padStart(12, '0')}`;
    const tdir = join(home, '.claude', 'projects', dir.replace(/[^A-Za-z0-9]/g, '-'));
    mkdirSync(tdir, { recursive: true });
    const transcript = join(tdir, `${sid}.jsonl`);
    sh('cp', [source, transcript]);
    const hook = (extra = {}) => JSON.stringify({ session_id: sid, transcript_path: transcript, cwd: dir, ...extra });
    sh(process.execPath, [cli, 'hooks', 'claude-code', 'session-start'], { cwd: dir, input: hook() });
    const measured = (args, opts) => {
      const nodeArgs = (process.env.FIRST_STOP_NODE ?? '').split(' ').filter(Boolean);
      const timing = process.env.FIRST_STOP_TIMING === '1' ? { ENTIRE_TIMING: 'rss' } : {};
      const extra = Object.fromEntries((process.env.FIRST_STOP_ENV ?? '').split(' ').filter(Boolean).map((kv) => kv.split('=')));
      const r = sh('/usr/bin/time', ['-v', process.execPath, ...nodeArgs, cli, ...args], { cwd: dir, allowFail: true, ...opts, env: { ...timing, ...extra, ...opts.env } });
      if (process.env.FIRST_STOP_TIMING === '1') {
        let prev = 0;
        for (const [, at, what] of r.stderr.matchAll(/\[entire-timing\] ([\d.]+) (.*)/g)) {
          console.log(`  ${(Number(at) - prev).toFixed(0).padStart(7)} ms  ${what}`);
          prev = Number(at);
        }
      }
      const rss = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr)?.[1] ?? NaN);
      const wall = /Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)/.exec(r.stderr)?.[1] ?? '?';
      return { r, rss, wall, line: `exit ${r.status}, peak RSS ${(rss / 1024).toFixed(0)} MiB, wall ${wall}` };
    };
    const ups = measured(['hooks', 'claude-code', 'user-prompt-submit'], { input: hook({ prompt: 'write first.txt' }) });
    console.log(`${mb} MB user-prompt-submit: ${ups.line}`);
    writeFileSync(join(dir, 'first.txt'), 'first\n');
    // the turn's lines, fixed (bench-lib's turnLines has fresh uuids and times): two builds store the same bytes
    appendFileSync(transcript, turnLines(sid, '/project/first.txt'));
    const size = statSync(transcript).size;
    const stop = measured(['hooks', 'claude-code', 'stop'], { input: hook() });
    const branch = sh('git', ['for-each-ref', '--format=%(refname:short)', 'refs/heads/entire/'], { cwd: dir }).stdout.trim().split('\n').filter((b) => b !== 'entire/checkpoints/v1');
    const stored = branch.length > 0 ? sh('git', ['ls-tree', '-r', '--long', branch[0], `.entire/metadata/${sid}/`], { cwd: dir }).stdout.trim().split('\n').filter((l) => /full\.jsonl/.test(l)).length : 0;
    console.log(`${mb} MB (${(size / 1e6).toFixed(1)} MB) first Stop: ${stop.line}, transcript chunks on the shadow branch: ${stored}`);
    if (process.env.FIRST_STOP_TREES === '1' && branch.length > 0) printTree(dir, branch[0], 'shadow');
    if (process.env.FIRST_STOP_COMMIT !== '0') {
      // the commit: its two hooks run here, measured, around a commit made without hooks
      sh('git', ['add', 'first.txt'], { cwd: dir });
      const msg = join(dir, '.git', 'FIRST_STOP_MSG');
      writeFileSync(msg, 'first\n');
      const pcm = measured(['hooks', 'git', 'prepare-commit-msg', msg, 'message'], { env: { GIT_EDITOR: ':' } });
      console.log(`${mb} MB prepare-commit-msg: ${pcm.line}`);
      sh('git', ['-c', `core.hooksPath=${join(base, 'no-hooks')}`, 'commit', '-q', '-F', msg], { cwd: dir });
      const pc = measured(['hooks', 'git', 'post-commit'], {});
      const files = sh('git', ['ls-tree', '-r', '--name-only', 'entire/checkpoints/v1'], { cwd: dir }).stdout.split('\n').filter((l) => /full\.jsonl/.test(l)).length;
      console.log(`${mb} MB post-commit (condense): ${pc.line}, transcript chunks in the checkpoint: ${files}`);
      if (process.env.FIRST_STOP_TREES === '1') printTree(dir, 'entire/checkpoints/v1', 'checkpoint');
    }
    rmSync(dir, { recursive: true, force: true });
    rmSync(tdir, { recursive: true, force: true });
  }
} finally {
  rmSync(base, { recursive: true, force: true });
}
