#!/usr/bin/env node
// `npm run bench`: the project's performance report (SPEC §10, issue 7).
// One run prints one table; every figure is a median of ≥ 10 runs next to
// its ratio to `node -e ""` measured in the same run, with the same cleaned
// environment the installed hooks give the CLI. See docs/performance.md.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, appendFileSync, readFileSync, rmSync, realpathSync, chmodSync, utimesSync, existsSync } from 'node:fs';
import { tmpdir, cpus } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'bin', 'entire.cjs');
const RUNS = Math.max(10, Number(process.env.BENCH_RUNS ?? 10));
/**
 * Runs left out before timing a command: the launcher rewrites a command's code cache on its
 * first four runs (bin/entire.cjs), and the report is about every run after those.
 */
const WARMUP = 4;
const QUICK = process.env.BENCH_QUICK === '1'; // smaller transcripts, for trying the script
// BENCH_ONLY=hooks,history,…: only these groups (commit, hooks, history, include, stop, agents, redact, context, explain, store, sessionlog, teams, links)
const ONLY = new Set((process.env.BENCH_ONLY ?? '').split(',').map((s) => s.trim()).filter(Boolean));
const want = (group) => ONLY.size === 0 || ONLY.has(group);
const base = realpathSync(mkdtempSync(join(tmpdir(), 'entire-bench-')));
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

// ------------------------------------------------------------------ helpers
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
function sh(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { cwd: opts.cwd, env: { ...env, ...opts.env }, input: opts.input ?? '', encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0 && !opts.allowFail) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r;
}
const TIMING = process.env.BENCH_TIMING === '1'; // per-phase medians of the hook rows (ENTIRE_TIMING marks)
const phases = new Map(); // row label → phase → ms[]
function timed(cmd, args, opts = {}) {
  const extra = TIMING && opts.phases ? { ENTIRE_TIMING: '1' } : {};
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { cwd: opts.cwd, env: { ...env, ...opts.env, ...extra }, input: opts.input ?? '', encoding: 'utf8', maxBuffer: 1 << 30 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0 && !opts.allowFail) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  if (TIMING && opts.phases) {
    const m = phases.get(opts.phases) ?? new Map();
    phases.set(opts.phases, m);
    let prev = 0;
    const seen = new Map(); // a mark passed twice in one run (two commit writes) is two phases
    for (const [, at, mark] of r.stderr.matchAll(/\[entire-timing\] ([\d.]+) (.*)/g)) {
      const n = (seen.get(mark) ?? 0) + 1;
      seen.set(mark, n);
      const label = n > 1 ? `${mark} (${n})` : mark;
      m.set(label, [...(m.get(label) ?? []), Number(at) - prev]);
      prev = Number(at);
    }
    m.set('(exit and process overhead)', [...(m.get('(exit and process overhead)') ?? []), ms - prev]);
  }
  return ms;
}
const git = (dir, ...args) => sh('git', args, { cwd: dir }).stdout;
const entire = (dir, args, opts = {}) => sh(process.execPath, [cli, ...args], { cwd: dir, ...opts });
function note(s) {
  process.stderr.write(`  … ${s}\n`);
}

function newRepo(name) {
  const dir = join(base, name);
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q', '-b', 'main');
  writeFileSync(join(dir, 'README.md'), '# bench\n');
  writeFileSync(join(dir, 'counter.txt'), '0\n');
  git(dir, 'add', '.');
  git(dir, 'commit', '-q', '-m', 'initial');
  return dir;
}

// ------------------------------------------------------------------ in-process library
const libFile = join(base, 'bench-lib.cjs');
await build({ entryPoints: [join(root, 'scripts', 'bench-lib.ts')], outfile: libFile, bundle: true, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'error' });
const lib = createRequire(import.meta.url)(libFile);

const rows = [];
let nodeMs = 0;
/** Every `node -e ""` sample; rows that interleave their own samples compare against those. */
const nodeSamples = [];
function nodeOnce() {
  const ms = timed(process.execPath, ['-e', '']);
  nodeSamples.push(ms);
  return ms;
}
/**
 * `base`: node -e "" samples taken next to the row's runs. With `paired` (one sample per run, in
 * the same order) the ratio is the median of the per-run ratios: each run against the baseline
 * measured a moment before it, which cancels the VM's drift best.
 */
function row(label, ms, extra = '', base = null, paired = null) {
  let ratio;
  if (paired && base && paired.length === base.length && paired.length > 0) ratio = median(paired.map((x, i) => x / base[i]));
  else {
    const b = base && base.length > 0 ? median(base) : nodeMs;
    ratio = b ? ms / b : NaN;
  }
  rows.push({ label, ms, ratio, extra });
}

// ------------------------------------------------------------------ baseline
note('node -e ""');
sh(process.execPath, ['-e', '']);
nodeMs = median(Array.from({ length: RUNS * 2 }, () => nodeOnce()));
const baselineRow = rows.length;
row('node -e "" (baseline)', nodeMs);

// ------------------------------------------------------------------ git commit, no live session
if (want('commit')) {
note('git commit with no hooks / four empty hooks / our hooks (no live session)');
function commitBench(dir) {
  const xs = [];
  for (let i = 0; i < RUNS + 2; i++) {
    writeFileSync(join(dir, 'counter.txt'), `run ${i}\n`);
    const ms = timed('git', ['commit', '-q', '-a', '-m', `change ${i}`], { cwd: dir });
    if (i >= 2) xs.push(ms);
  }
  return median(xs);
}
const noHooks = newRepo('no-hooks');
const emptyHooks = newRepo('empty-hooks');
for (const h of ['prepare-commit-msg', 'commit-msg', 'post-commit', 'pre-push']) {
  writeFileSync(join(emptyHooks, '.git', 'hooks', h), '#!/bin/sh\n');
  chmodSync(join(emptyHooks, '.git', 'hooks', h), 0o755);
}
const ourHooks = newRepo('our-hooks');
entire(ourHooks, ['enable']);
git(ourHooks, 'add', '.');
git(ourHooks, 'commit', '-q', '--no-verify', '-m', 'enable');
const cNo = commitBench(noHooks);
const cEmpty = commitBench(emptyHooks);
const cOurs = commitBench(ourHooks);
row('git commit, no hooks', cNo);
row('git commit, four empty #!/bin/sh hooks', cEmpty, `${(cEmpty / cNo).toFixed(2)}× no hooks`);
row('git commit, our hooks, no live session', cOurs, `${(cOurs / cEmpty).toFixed(2)}× empty hooks (target ≤ 1.3)`);
}

// ------------------------------------------------------------------ live session repos
const MB = 1024 * 1024;
const T3 = QUICK ? 0.3 * MB : 3 * MB;
const T50 = QUICK ? 5 * MB : 50 * MB;

/** `extraEnv`: added to every hook and CLI run of this repository (the includeIf row's git config). */
/** How long the last agentTurn's turn end took until its worker released the session lock. */
let lastTurnEndMs = NaN;

function liveRepo(name, transcriptBytes, history, extraEnv = {}) {
  const dir = newRepo(name);
  entire(dir, ['enable'], { env: extraEnv });
  git(dir, 'add', '.');
  git(dir, 'commit', '-q', '--no-verify', '-m', 'enable');
  if (history) {
    note(`${name}: seeding ${history.checkpoints} checkpoints and ${history.sessions} ended sessions`);
    lib.seedHistory(dir, history.checkpoints, env);
    const sdir = join(dir, '.git', 'entire-sessions');
    mkdirSync(sdir, { recursive: true });
    const dayDate = new Date(Date.now() - 24 * 3600 * 1000);
    const day = dayDate.toISOString();
    for (let i = 0; i < history.sessions; i++) {
      const sid = `ended-${String(i).padStart(4, '0')}-${'0'.repeat(8)}`;
      writeFileSync(
        join(sdir, `${sid}.json`),
        JSON.stringify({ session_id: sid, base_commit: git(dir, 'rev-parse', 'HEAD').trim(), worktree_path: dir, started_at: day, ended_at: day, phase: 'ended', checkpoint_count: 0, last_checkpoint_id: 'a00000000000', agent_type: 'Claude Code' }, null, 2) + '\n',
      );
      // sessions that ended yesterday were last written yesterday
      utimesSync(join(sdir, `${sid}.json`), dayDate, dayDate);
    }
  }
  const sid = `b3a1c2d4-0000-4000-8000-${name.padEnd(12, '0').slice(0, 12).replace(/[^0-9a-f]/g, 'a')}`;
  const tdir = join(home, '.claude', 'projects', dir.replace(/[^A-Za-z0-9]/g, '-'));
  mkdirSync(tdir, { recursive: true });
  const transcript = join(tdir, `${sid}.jsonl`);
  note(`${name}: writing a ${(transcriptBytes / MB).toFixed(1)} MB transcript`);
  writeFileSync(transcript, lib.makeClaudeTranscript(transcriptBytes));
  const hook = (verb, extra = {}) => JSON.stringify({ session_id: sid, transcript_path: transcript, cwd: dir, ...extra });
  let turn = 0;
  /** One agent turn writing `file` (prompt → edit → Stop); returns the Stop time. */
  const agentTurn = (file) => {
    turn++;
    entire(dir, ['hooks', 'claude-code', 'user-prompt-submit'], { input: hook('user-prompt-submit', { prompt: `turn ${turn}: write ${file}` }), env: extraEnv });
    writeFileSync(join(dir, file), `content of ${file} in turn ${turn}\n`);
    appendFileSync(transcript, lib.turnLines(sid, `turn ${turn}: write ${file}`, join(dir, file), `content of ${file}`));
    const t0 = performance.now();
    const waited = timed(process.execPath, [cli, 'hooks', 'claude-code', 'stop'], { cwd: dir, input: hook('stop'), env: extraEnv });
    // the turn end itself goes on in a worker holding the session lock (src/strategy/turn-end-worker.ts)
    const lock = join(dir, '.git', 'entire-sessions', `${sid}.lock`);
    while (existsSync(lock)) spawnSync('sleep', ['0.005']);
    lastTurnEndMs = performance.now() - t0;
    return waited;
  };
  entire(dir, ['hooks', 'claude-code', 'session-start'], { input: hook('session-start'), env: extraEnv });
  return { dir, sid, transcript, agentTurn, env: extraEnv };
}

/**
 * A stand-in for the git process that runs the hooks. The installed hook
 * scripts hand the CLI git's pid (ENTIRE_GIT_PID, see hooks/cli.sh), and
 * the CLI reads git's command line from /proc/<pid>: this waiting
 * `git cat-file --batch` gives the bench's hook runs the same two reads,
 * instead of a walk up the bench's own process tree that no commit makes.
 */
function gitStandIn(dir) {
  const p = spawn('git', ['cat-file', '--batch'], { cwd: dir, env, stdio: ['pipe', 'ignore', 'ignore'] });
  return { pid: p.pid, stop: () => p.kill() };
}

/**
 * The commit-hook rows of one or more repositories (live, history). Their commits
 * take turns, one each per round, so the VM's drift over the minutes this takes
 * hits every repository alike: the history Δ compares rows measured side by side.
 */
function commitHooksBench(repos) {
  const standIn = gitStandIn(repos[0].live.dir);
  const hookEnv = { ENTIRE_GIT_PID: String(standIn.pid) };
  try {
    const acc = repos.map(() => ({ pcm: [], pc: [], nb1: [], nb2: [] }));
    for (let i = 0; i < RUNS + WARMUP; i++) repos.forEach((r, k) => commitRound(r.live, r.label, i, hookEnv, acc[k]));
    return repos.map((r, k) => {
      const { pcm, pc, nb1, nb2 } = acc[k];
      row(`prepare-commit-msg, live session, 3 MB transcript${r.label}`, median(pcm), '(target ≤ 1.5×)', nb1, pcm);
      row(`post-commit + condense, 3 MB transcript${r.label}`, median(pc), '(target ≤ 2.5×)', nb2, pc);
      return { pcm: median(pcm), pc: median(pc) };
    });
  } finally {
    standIn.stop(); // also when a run fails: a live child would keep the bench from exiting
  }
}

/**
 * BENCH_SNAP=<dir>: keep what one hook run starts from (the repository and the agent's
 * transcript, as they are right before it), so scripts/bench-ab.mjs can replay that very
 * run with two builds, alternating. One snapshot per hook of the plain live repository.
 */
function snapshot(live, label, hook, hookEnv) {
  const out = process.env.BENCH_SNAP;
  if (!out || label !== '') return;
  const to = join(out, hook);
  rmSync(to, { recursive: true, force: true });
  mkdirSync(to, { recursive: true });
  sh('cp', ['-a', live.dir, join(to, 'repo')]);
  sh('cp', ['-a', dirname(live.transcript), join(to, 'transcripts')]);
  const { ENTIRE_GIT_PID: _stale, ...runEnv } = { ...env, ...hookEnv, ...(hook === 'post-commit' ? {} : { GIT_EDITOR: ':' }) };
  const args = hook === 'post-commit' ? [] : [join(live.dir, '.git', 'BENCH_MSG'), 'message'];
  const snap = { hook, repo: live.dir, transcripts: dirname(live.transcript), args, env: runEnv };
  writeFileSync(join(to, 'snapshot.json'), JSON.stringify(snap, null, 2) + '\n');
}

/** One agent turn and one commit in `live`, its two hooks timed (after the warm-up) into `acc`. */
function commitRound(live, label, i, hookEnv, acc) {
  const { dir } = live;
  const msgFile = join(dir, '.git', 'BENCH_MSG');
  const file = `agent-${i}.txt`;
  live.agentTurn(file);
  git(dir, 'add', file);
  writeFileSync(msgFile, `commit ${i}\n`);
  // a baseline sample next to each hook run: the VM's speed drifts during a run
  const n1 = nodeOnce();
  if (i === WARMUP + 2) snapshot(live, label, 'prepare-commit-msg', hookEnv);
  const t1 = timed(process.execPath, [cli, 'hooks', 'git', 'prepare-commit-msg', msgFile, 'message'], { cwd: dir, env: { ...hookEnv, ...live.env, GIT_EDITOR: ':' }, phases: `prepare-commit-msg${label}` });
  if (!/Entire-Checkpoint: [0-9a-f]{12}/.test(readFileSync(msgFile, 'utf8'))) throw new Error('prepare-commit-msg added no trailer');
  git(dir, '-c', `core.hooksPath=${join(base, 'no-hooks-dir')}`, 'commit', '-q', '-F', msgFile);
  const before = git(dir, 'rev-parse', 'entire/checkpoints/v1').trim();
  const n2 = nodeOnce();
  if (i === WARMUP + 2) snapshot(live, label, 'post-commit', hookEnv);
  const t2 = timed(process.execPath, [cli, 'hooks', 'git', 'post-commit'], { cwd: dir, env: { ...hookEnv, ...live.env }, phases: `post-commit${label}` });
  if (git(dir, 'rev-parse', 'entire/checkpoints/v1').trim() === before) throw new Error('post-commit wrote no checkpoint');
  if (i >= WARMUP) {
    acc.pcm.push(t1);
    acc.pc.push(t2);
    acc.nb1.push(n1); // node -e "" samples taken right before each prepare-commit-msg run
    acc.nb2.push(n2); // … and before each post-commit run
  }
}

let live;
let plain;
const commitRepos = [];
if (want('hooks') || want('explain') || want('sessionlog')) {
  note('live session with a 3 MB transcript');
  live = liveRepo('live3', T3, null);
  live.agentTurn('warmup.txt');
  commitRepos.push({ live, label: '' });
}
let hist;
if (want('history') || want('list')) {
  note('history repository: 1,000 checkpoints, 200 ended sessions');
  hist = liveRepo('history', T3, { checkpoints: 1000, sessions: 200 });
  hist.agentTurn('warmup.txt');
  commitRepos.push({ live: hist, label: ', history repo' });
}
if (want('include')) {
  // A common setup: ~/.gitconfig with an [include] and [includeIf "gitdir:…"] (a work identity).
  // The hooks' config reads follow them in-process (src/git/config-file.ts); before, any include
  // sent every config read, the object writes and the ref updates to git processes.
  writeFileSync(join(home, 'common.inc'), '[gc]\n\tautoPackLimit = 50\n');
  writeFileSync(join(home, 'work.inc'), '[user]\n\tname = Bench\n\temail = bench@example.com\n');
  writeFileSync(
    join(home, '.gitconfig'),
    `[include]\n\tpath = common.inc\n[includeIf "gitdir:${base}/"]\n\tpath = ~/work.inc\n[includeIf "gitdir:~/elsewhere/"]\n\tpath = ~/none.inc\n`,
  );
  note('live session with includeIf in ~/.gitconfig');
  // the other rows keep GIT_CONFIG_GLOBAL=/dev/null; this one's hooks read $HOME/.gitconfig
  const incEnv = { GIT_CONFIG_GLOBAL: undefined };
  const inc = liveRepo('include', T3, null, incEnv);
  inc.agentTurn('warmup.txt');
  commitRepos.push({ live: inc, label: ', includeIf in ~/.gitconfig' });
}
const commitRowsAt = rows.length;
if (commitRepos.length > 0) {
  note(commitRepos.length > 1 ? 'commit hooks, the repositories taking turns' : 'commit hooks');
  const results = commitHooksBench(commitRepos);
  if (live) plain = results[0];
}
if (plain) {
  // Δ on the ratios (each row against its own node -e "" samples), of rows measured side by side
  const [pcmPlain, pcPlain] = rows.slice(commitRowsAt, commitRowsAt + 2).map((r) => r.ratio);
  commitRepos.forEach((r, k) => {
    if (k === 0) return;
    const vs = r.live === hist ? 'no history' : 'no includes';
    const [a, b] = [rows[commitRowsAt + 2 * k], rows[commitRowsAt + 2 * k + 1]];
    a.extra += ` Δ ${(((a.ratio - pcmPlain) / pcmPlain) * 100).toFixed(1)} % vs ${vs}`;
    b.extra += ` Δ ${(((b.ratio - pcPlain) / pcPlain) * 100).toFixed(1)} % vs ${vs}`;
  });
}

// ------------------------------------------------------------------ Stop hook
for (const [label, bytes] of want('stop') ? [
  ['3 MB', T3],
  ['50 MB', T50],
] : []) {
  note(`Stop hook, ${label} transcript`);
  const s = liveRepo(`stop-${label.replace(' ', '')}`, bytes, null);
  const first = s.agentTurn('first.txt'); // the first turn redacts and analyses everything once
  const firstDone = lastTurnEndMs;
  const xs = [];
  const done = [];
  const nb = [];
  for (let i = 0; i < RUNS; i++) {
    nb.push(nodeOnce());
    xs.push(s.agentTurn(`later-${i}.txt`));
    done.push(lastTurnEndMs);
  }
  row(`Stop hook, later turns, ${label} transcript (the agent waits)`, median(xs), `first turn ${first.toFixed(0)} ms`, nb, xs);
  row(`  turn end done (its worker), later turns, ${label}`, median(done), `first turn ${firstDone.toFixed(0)} ms${bytes === T50 ? ' (target < 1000 ms)' : ''}`, nb, done);
}

// ------------------------------------------------------------------ hooks an agent waits on, from real agent CLI runs
/**
 * The turn-end hook of each agent as the real CLI runs it (issue 15): the real-agent tier
 * (`scripts/agents-test.mjs`, pinned versions, scripted model server) runs one agent at a time,
 * its shim records every hook's wall time, and the rows are their medians against this run's
 * `node -e ""`. The agent's own process runs beside the hook, as it does for users.
 */
const AGENT_ROUNDS = Math.max(1, Number(process.env['BENCH_AGENT_ROUNDS'] ?? (QUICK ? 1 : 3)) || 1);
const WAITED_ON = [
  ['claude-code', 'Claude Code', 'stop', 'user-prompt-submit'],
  ['gemini', 'Gemini CLI', 'after-agent', 'before-agent'],
  ['codex', 'Codex', 'stop', 'user-prompt-submit'],
  ['opencode', 'OpenCode', 'turn-end', 'turn-start'],
  ['copilot-cli', 'Copilot CLI', 'agent-stop', 'user-prompt-submitted'],
];
if (want('agents')) {
  // BENCH_AGENTS=<key>[,<key>]: only those agents
  const onlyAgents = (process.env['BENCH_AGENTS'] ?? '').split(',').filter(Boolean);
  for (const [key, name, turnEnd, turnStart] of WAITED_ON.filter(([k]) => onlyAgents.length === 0 || onlyAgents.includes(k))) {
    note(`${name}: real CLI runs (the real-agent tier, this agent only)`);
    // a tier run gives only a few turn ends per agent: pool BENCH_AGENT_ROUNDS runs (default 3)
    let lines = [];
    let failed;
    let lastErr = '';
    for (let round = 0; round < AGENT_ROUNDS; round++) {
      const out = join(base, `hook-times-${key}-${round}.tsv`);
      const r = spawnSync(process.execPath, [join(root, 'scripts', 'agents-test.mjs'), '--times-out', out], {
        cwd: root,
        env: { ...process.env, ENTIRE_AGENTS_ONLY: key },
        encoding: 'utf8',
        maxBuffer: 1 << 30,
      });
      try {
        lines.push(...readFileSync(out, 'utf8').split('\n').filter(Boolean).map((l) => l.split('\t')));
      } catch {
        lastErr = (r.stderr ?? '').trim().split('\n').pop();
      }
      const f = /(\d+) failed/.exec(r.stdout ?? '')?.[1];
      if (f && f !== '0') failed = String(Number(failed ?? 0) + Number(f));
    }
    if (lines.length === 0) {
      rows.push({ label: `${name}: hooks in real CLI runs`, ms: NaN, ratio: NaN, extra: `not measured: the tier did not run (${lastErr})` });
      continue;
    }
    for (const verb of [turnEnd, turnStart]) {
      const xs = lines.filter(([a, v]) => a === key && v === verb).map(([, , t0, t1]) => (Number(t1) - Number(t0)) * 1000);
      if (xs.length === 0) continue;
      row(
        `${name} ${verb}, real CLI runs (n=${xs.length})`,
        median(xs),
        `${verb === turnEnd ? '(target ≤ 2.5×) ' : ''}${failed && failed !== '0' ? `tier: ${failed} failed` : ''}`.trim(),
        nodeSamples,
      );
    }
  }
}

// ------------------------------------------------------------------ redaction, explain, listing, store
if (want('redact')) {
  note('redaction throughput (50 MB JSONL)');
  const red = lib.benchRedact(QUICK ? 5 * MB : 50 * MB, 3);
  rows.push({ label: 'redaction of a JSONL transcript', ms: red.ms, ratio: NaN, extra: `${red.mbPerSec.toFixed(1)} MB/s on ${(red.bytes / 1e6).toFixed(0)} MB (target ≥ 25)` });
}

if (want('context')) {
  note('layered context derivation (SPEC-2 §F.4)');
  for (const size of QUICK ? [5 * MB] : [3 * MB, 50 * MB]) {
    const c = await lib.benchContext(size, 5);
    rows.push({ label: `context.md derivation, ${(c.bytes / 1e6).toFixed(0)} MB transcript`, ms: c.ms, ratio: NaN, extra: `${c.msPerMb.toFixed(1)} ms/MB (target ≤ 10)` });
  }
  for (const size of QUICK ? [5 * MB] : [3 * MB, 50 * MB]) {
    const c = await lib.benchContextIncremental(size, 50 * 1024, 5);
    const mb = (c.bytes / 1e6).toFixed(0);
    rows.push({ label: `context fold from scratch (writes its state), ${mb} MB`, ms: c.fresh, ratio: NaN, extra: `${c.freshMsPerMb.toFixed(1)} ms/MB` });
    rows.push({ label: `context fold resumed, ${mb} MB + ${(c.turnBytes / 1024).toFixed(0)} KB turn`, ms: c.resumed, ratio: NaN, extra: `saved state ${(c.stateBytes / 1024).toFixed(1)} KB` });
  }
}

if (live && want('explain')) {
  note('explain');
  const head = git(live.dir, 'rev-parse', 'HEAD').trim();
  const ex = [];
  const exBase = [];
  for (let i = 0; i < WARMUP; i++) entire(live.dir, ['explain', '--commit', head]);
  for (let i = 0; i < RUNS; i++) {
    exBase.push(nodeOnce());
    ex.push(timed(process.execPath, [cli, 'explain', '--commit', head], { cwd: live.dir }));
  }
  row('entire explain --commit <sha>', median(ex), '', exBase, ex);
}
if (hist && want('list')) {
  note('listing');
  const list = await lib.benchList(hist.dir, RUNS);
  rows.push({ label: `list ${list.count} checkpoints (in-process, incl. cat-file start)`, ms: list.ms, ratio: NaN, extra: '(target ≤ 1000 ms)' });
}

if (want('store')) {
  note('store: write / finalize / read one checkpoint (100 KB transcript)');
  const storeRepo = newRepo('store');
  const st = await lib.benchStore(storeRepo, RUNS, 100 * 1024);
  rows.push({ label: 'write one checkpoint (in-process)', ms: st.write, ratio: NaN, extra: '' });
  rows.push({ label: 'finalize one checkpoint (in-process)', ms: st.finalize, ratio: NaN, extra: '' });
  rows.push({ label: 'read one checkpoint (in-process)', ms: st.read, ratio: NaN, extra: '' });
}

// ------------------------------------------------------------------ links (SPEC-2 §D)
if (want('links')) {
  note('notes index: what the note adds to post-commit\'s checkpoint write');
  for (const [seeded, name] of [[0, 'new notes ref'], [1000, '1,000 notes']]) {
    const nc = await lib.benchNoteOnCheckpoint(newRepo(`notes-${seeded}`), RUNS * 3, seeded, env);
    rows.push({
      label: `notes: a note on top of a checkpoint write, ${name}`,
      ms: nc.carried,
      ratio: NaN,
      extra: `(target ≤ 2 ms) in its own ref transaction: ${nc.separate.toFixed(1)} ms; the checkpoint write alone: ${nc.none.toFixed(1)} ms`,
    });
  }

  note('post-rewrite after a 100-commit rebase');
  const dir = newRepo('rebase100');
  entire(dir, ['enable']);
  git(dir, 'add', '.');
  git(dir, 'commit', '-q', '--no-verify', '-m', 'enable');
  git(dir, 'checkout', '-q', '-b', 'feature');
  for (let i = 0; i < 100; i++) {
    const id = (0x200000000000 + i * 7919).toString(16).slice(-12);
    writeFileSync(join(dir, 'counter.txt'), `feature ${i}\n`);
    git(dir, 'commit', '-q', '-a', '--no-verify', '-m', `feature ${i}\n\nEntire-Checkpoint: ${id}`);
    git(dir, 'notes', '--ref=refs/notes/entire', 'add', '-m', `Entire-Checkpoint: ${id}`, 'HEAD');
  }
  const olds = git(dir, 'rev-list', '--reverse', 'main..feature').trim().split('\n');
  const oldTip = olds[olds.length - 1];
  // a live session based on the branch's tip, with its shadow branch
  const sid = 'b3a1c2d4-0000-4000-8000-rebase100000';
  const sdir = join(dir, '.git', 'entire-sessions');
  mkdirSync(sdir, { recursive: true });
  const now = new Date().toISOString();
  const stateText = JSON.stringify({ session_id: sid, base_commit: oldTip, attribution_base_commit: oldTip, worktree_path: dir, started_at: now, last_interaction_time: now, phase: 'idle', checkpoint_count: 1, agent_type: 'Claude Code', files_touched: ['counter.txt'] }, null, 2) + '\n';
  const shadow = `refs/heads/entire/${oldTip.slice(0, 7)}-e3b0c4`;
  git(dir, 'update-ref', shadow, oldTip);
  git(dir, 'checkout', '-q', 'main');
  writeFileSync(join(dir, 'README.md'), '# bench, moved\n');
  git(dir, 'commit', '-q', '-a', '--no-verify', '-m', 'main moved');
  git(dir, 'checkout', '-q', 'feature');
  git(dir, '-c', `core.hooksPath=${join(base, 'no-hooks-dir')}`, 'rebase', '-q', 'main');
  const news = git(dir, 'rev-list', '--reverse', 'main..feature').trim().split('\n');
  if (news.length !== 100) throw new Error(`rebase left ${news.length} commits`);
  const input = olds.map((o, i) => `${o} ${news[i]}\n`).join('');
  const notesTip = git(dir, 'rev-parse', 'refs/notes/entire').trim();
  const xs = [];
  const nb = [];
  for (let i = 0; i < RUNS + WARMUP; i++) {
    // each run starts from the rebase's end: the session on the old tip, its shadow branch there
    writeFileSync(join(sdir, `${sid}.json`), stateText);
    git(dir, 'update-ref', shadow, oldTip);
    git(dir, 'update-ref', 'refs/notes/entire', notesTip);
    const n = nodeOnce();
    const t = timed(process.execPath, [cli, 'hooks', 'git', 'post-rewrite', 'rebase'], { cwd: dir, input });
    if (JSON.parse(readFileSync(join(sdir, `${sid}.json`), 'utf8')).base_commit !== news[news.length - 1]) throw new Error('post-rewrite did not move the session');
    if (i >= WARMUP) {
      xs.push(t);
      nb.push(n);
    }
  }
  row('post-rewrite after a 100-commit rebase (session + shadow branch moved)', median(xs), '(target < 1000 ms)', nb, xs);
}

// ------------------------------------------------------------------ sessionlog peer
if (plain && want('sessionlog')) try {
  note('sessionlog 0.1.0, the same post-commit job');
  const { benchSessionlogPostCommit } = await import('./bench-sessionlog.mjs');
  const sl = await benchSessionlogPostCommit({ runs: RUNS, transcriptBytes: T3, env });
  if (sl.ok) {
    row('sessionlog 0.1.0 post-commit, 3 MB transcript', sl.medianMs, `ours is ${(sl.medianMs / plain.pc).toFixed(1)}× faster (target ≥ 3)`);
  } else {
    rows.push({ label: 'sessionlog 0.1.0 post-commit', ms: NaN, ratio: NaN, extra: `not measured: ${sl.reason}` });
  }
} catch (e) {
  rows.push({ label: 'sessionlog 0.1.0 post-commit', ms: NaN, ratio: NaN, extra: `not measured: ${e.message}` });
}

// ------------------------------------------------------------------ team sync (issue 18)
if (want('teams')) try {
  note('team sync: 20 clones pushing at once; pre-push with 50 new checkpoints');
  const { benchTeams } = await import('./bench-teams.mjs');
  const t = await benchTeams({ root, cli, base, env, runs: QUICK ? 3 : 5 });
  row(`team push round: ${t.clones} clones at once, 3 checkpoints each`, t.roundMs, `one round (wall time); ${t.landed}/${t.named} checkpoints on the remote, ${t.pushesOk}/${t.clones} pushes ok`);
  row(`pre-push with ${t.overheadCheckpoints} new checkpoints (metadata push overhead)`, t.overheadMs, `median of ${t.overheadRuns}; target < 1000 ms`);
} catch (e) {
  rows.push({ label: 'team sync', ms: NaN, ratio: NaN, extra: `not measured: ${e.message}` });
}

// ------------------------------------------------------------------ push queue (SPEC-3 §A.6, issue 27)
if (want('queue')) try {
  note('push queue: git push draining 300 queued checkpoint refs');
  const { benchPushQueue } = await import('./bench-push-queue.mjs');
  const q = await benchPushQueue({ cli, base, env, runs: QUICK ? 1 : 3 });
  row(`git push draining ${q.refs} queued checkpoint refs (whole push)`, q.ms, `median of ${q.runs}; ${q.landed}/${q.refs} on the remote, ${q.left} left queued (target ≤ 10000 ms)`);
} catch (e) {
  rows.push({ label: 'push queue drain', ms: NaN, ratio: NaN, extra: `not measured: ${e.message}` });
}

// ------------------------------------------------------------------ report
rows[baselineRow] = { label: 'node -e "" (baseline)', ms: median(nodeSamples), ratio: 1, extra: `${nodeSamples.length} samples, interleaved with the hook rows` };
const w = Math.max(...rows.map((r) => r.label.length));
console.log(`\nentire performance report — ${new Date().toISOString()}`);
console.log(`node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, medians of ${RUNS} runs${QUICK ? ' (BENCH_QUICK: small transcripts)' : ''}\n`);
console.log(`| ${'operation'.padEnd(w)} | median ms | × node -e "" | notes`);
console.log(`|${'-'.repeat(w + 2)}|-----------|--------------|------`);
for (const r of rows) {
  const ms = Number.isFinite(r.ms) ? r.ms.toFixed(1).padStart(9) : '        –';
  const ratio = Number.isFinite(r.ratio) ? r.ratio.toFixed(2).padStart(12) : '           –';
  console.log(`| ${r.label.padEnd(w)} | ${ms} | ${ratio} | ${r.extra}`);
}
if (TIMING) {
  for (const [label, m] of phases) {
    console.log(`\n${label}: median ms per phase (ENTIRE_TIMING marks; the first is process start to the hook's entry)`);
    for (const [phase, xs] of m) console.log(`  ${median(xs).toFixed(1).padStart(7)}  ${phase}`);
  }
}
if (process.env.BENCH_KEEP !== '1') rmSync(base, { recursive: true, force: true });
