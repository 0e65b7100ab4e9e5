#!/usr/bin/env node
// A/B of one hook between two builds, for changes smaller than the bench's
// run-to-run noise. Replays the very hook run that `BENCH_SNAP=<dir> npm run
// bench` kept (scripts/bench.mjs, snapshot()): before each run the repository
// and the transcripts are put back as they were, and the two builds take turns
// (ABBA), so drift in the VM's speed hits both alike. Prints the medians, the
// median of the paired differences and each build's ratio to `node -e ""`.
//
//   node scripts/bench-ab.mjs <snap-dir>/<hook> <build-a> <build-b> [runs]
//
// A build is a directory holding bin/ and dist/ (copy them after `npm run
// build`); `<dir>:NAME=value` adds an environment variable to that side only.
// See docs/performance.md ("Comparing two builds").
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, rmSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';

const [snapDir, specA, specB, runsArg] = process.argv.slice(2);
if (!snapDir || !specA || !specB) {
  process.stderr.write('usage: node scripts/bench-ab.mjs <snapshot dir> <build A> <build B> [runs]\n');
  process.exit(2);
}
const runs = Math.max(10, Number(runsArg ?? 30));
const snap = JSON.parse(readFileSync(join(snapDir, 'snapshot.json'), 'utf8'));

function restore() {
  for (const [from, to] of [
    [join(snapDir, 'repo'), snap.repo],
    [join(snapDir, 'transcripts'), snap.transcripts],
  ]) {
    rmSync(to, { recursive: true, force: true });
    mkdirSync(dirname(to), { recursive: true });
    const r = spawnSync('cp', ['-a', from, to]);
    if (r.status !== 0) throw new Error(`cannot restore ${to}: ${r.stderr}`);
  }
}

// the git process a hook runs under (hooks/cli.sh hands its pid to the CLI)
const standIn = spawn('git', ['cat-file', '--batch'], { cwd: snapDir, stdio: ['pipe', 'ignore', 'ignore'] });
const env = { ...snap.env, ENTIRE_GIT_PID: String(standIn.pid) };

function parse(spec) {
  const [dir, ...vars] = spec.split(':');
  return { dir, env: Object.fromEntries(vars.map((v) => [v.slice(0, v.indexOf('=')), v.slice(v.indexOf('=') + 1)])) };
}
const sides = [parse(specA), parse(specB)];

function run(side) {
  restore();
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [join(side.dir, 'bin', 'entire.cjs'), 'hooks', 'git', snap.hook, ...snap.args], {
    cwd: snap.repo,
    env: { ...env, ...side.env },
    encoding: 'utf8',
  });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${side.dir}: exit ${r.status}: ${r.stderr}`);
  return ms;
}
function nodeOnce() {
  const t0 = process.hrtime.bigint();
  spawnSync(process.execPath, ['-e', ''], { env });
  return Number(process.hrtime.bigint() - t0) / 1e6;
}
const median = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

try {
  // each build's first runs write its code cache (bin/entire.cjs): not timed
  for (let i = 0; i < 5; i++) for (const s of sides) run(s);
  const a = [];
  const b = [];
  const n = [];
  for (let i = 0; i < runs; i++) {
    if (i % 2 === 0) {
      a.push(run(sides[0]));
      b.push(run(sides[1]));
    } else {
      b.push(run(sides[1]));
      a.push(run(sides[0]));
    }
    n.push(nodeOnce());
  }
  const node = median(n);
  const diff = median(a.map((x, i) => x - b[i]));
  process.stdout.write(
    `${snap.hook}, ${runs} alternating runs: A ${median(a).toFixed(1)} ms (${(median(a) / node).toFixed(2)}×), ` +
      `B ${median(b).toFixed(1)} ms (${(median(b) / node).toFixed(2)}×), node -e "" ${node.toFixed(1)} ms; ` +
      `median of A−B ${diff >= 0 ? '+' : ''}${diff.toFixed(2)} ms\n`,
  );
} finally {
  standIn.kill();
}
