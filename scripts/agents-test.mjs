#!/usr/bin/env node
// Runs the real-agent tier (docs/testing.md) and prints its compatibility table.
//
//   node scripts/agents-test.mjs [--latest] [--json-out <file>] [vitest args…]
//
// --latest     the newest published version of each agent CLI instead of the pinned one
// --json-out   also keep vitest's JSON report there (.ci/run sums it)
// --times-out  also keep the hooks' wall times (`<agent>\t<verb>\t<start s>\t<end s>` per run) there (npm run bench)
// Env: ENTIRE_AGENTS_ONLY=<key>[,<key>] limits the agents; ENTIRE_AGENT_CLI_CACHE moves the cache;
//      ENTIRE_AGENTS_KEEP=1 keeps the temp worlds (paths printed) for a look afterwards.
// Exit status: vitest's.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureAgentClis, latestVersion, pinnedAgents } from './agents-install.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function parseArgs(argv) {
  const out = { latest: false, jsonOut: null, timesOut: null, rest: [] };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--latest') out.latest = true;
    else if (argv[i] === '--json-out') out.jsonOut = argv[++i];
    else if (argv[i] === '--times-out') out.timesOut = argv[++i];
    else out.rest.push(argv[i]);
  }
  return out;
}

const args = parseArgs(process.argv.slice(2));
const only = (process.env.ENTIRE_AGENTS_ONLY ?? '').split(',').filter(Boolean);
const work = mkdtempSync(join(tmpdir(), 'entire-agents-run-'));
const log = (m) => process.stderr.write(`[agents] ${m}\n`);

// 1. install (or reuse) the CLIs; the tests get exactly this manifest
let manifest;
try {
  manifest = ensureAgentClis({ latest: args.latest, only, log });
} catch (e) {
  log(`install failed: ${e instanceof Error ? e.message : String(e)}`);
  rmSync(work, { recursive: true, force: true });
  process.exit(1);
}
const manifestFile = join(work, 'manifest.json');
writeFileSync(manifestFile, JSON.stringify(manifest, null, 2));

// 2. the tier
const jsonOut = args.jsonOut ?? join(work, 'vitest.json');
// ENTIRE_AGENTS_ONLY: only those agents' files (one test file per agent, named by its key)
const files = only.map((k) => `test/real-agents/${k}.test.ts`);
const vitest = spawnSync(
  process.execPath,
  [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--config', 'vitest.agents.config.ts', '--reporter=default', '--reporter=json', `--outputFile=${jsonOut}`, ...files, ...args.rest],
  {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, ENTIRE_AGENTS_MANIFEST: manifestFile, ENTIRE_AGENTS_REPORT_DIR: work, ENTIRE_AGENTS_LATEST: args.latest ? '1' : '0' },
  },
);

// 3. the compatibility table (SPEC-2 §G G3)
const results = existsSync(jsonOut) ? JSON.parse(readFileSync(jsonOut, 'utf8')) : { testResults: [] };
const perAgent = {};
for (const file of results.testResults ?? []) {
  const key = basename(file.name).replace(/\.test\.ts$/, '');
  const a = (perAgent[key] ??= { passed: 0, failed: 0, failures: [] });
  for (const t of file.assertionResults ?? []) {
    if (t.status === 'passed') a.passed++;
    else if (t.status === 'failed') {
      a.failed++;
      a.failures.push(t.title);
    }
  }
  // a file whose setup failed has no failed test of its own
  if (file.status === 'failed' && (file.assertionResults ?? []).every((t) => t.status !== 'failed')) {
    a.failed++;
    a.failures.push(`(file failed: ${(file.message ?? '').split('\n')[0]})`);
  }
}

function drift(key) {
  const f = join(work, `${key}.drift.json`);
  if (!existsSync(f)) return 'no report (the run did not finish)';
  const d = JSON.parse(readFileSync(f, 'utf8'));
  const parts = [];
  if (d.newHookEvents.length) parts.push(`hook events: ${d.newHookEvents.join(', ')}`);
  const fields = Object.entries(d.newHookFields).map(([e, fs]) => `${e}.{${fs.join(',')}}`);
  if (fields.length) parts.push(`payload fields: ${fields.join(' ')}`);
  if (d.newLineKinds.length) parts.push(`line types: ${d.newLineKinds.join(', ')}`);
  if (d.unknownRoutes.length) parts.push(`unknown API routes: ${d.unknownRoutes.join(', ')}`);
  return parts.length ? parts.join('; ') : `none (${d.seen.hookPayloads} payloads, ${d.seen.transcriptLines} lines)`;
}

const rows = [['agent', 'tested', 'pinned', 'latest', 'passed', 'failed', 'not in the committed captures']];
for (const [key, a] of Object.entries(pinnedAgents())) {
  if (only.length && !only.includes(key)) continue;
  let latest = manifest.agents[key]?.version;
  if (!args.latest) {
    try {
      latest = latestVersion(a.package);
    } catch {
      latest = '?';
    }
  }
  const r = perAgent[key] ?? { passed: 0, failed: 0 };
  rows.push([key, manifest.agents[key]?.version ?? '-', a.version, latest ?? '?', String(r.passed), String(r.failed), drift(key)]);
}
const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
const line = (r) => '| ' + r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join(' | ') + ' |';
console.log(`\nReal-agent tier (${manifest.mode} versions):\n`);
console.log(line(rows[0]));
console.log('| ' + widths.map((w, i) => '-'.repeat(i === widths.length - 1 ? 3 : w)).join(' | ') + ' |');
for (const r of rows.slice(1)) console.log(line(r));
for (const [key, a] of Object.entries(perAgent)) for (const f of a.failures) console.log(`  ✗ ${key}: ${f}`);
console.log('');

// 4. how long each hook kept the agent waiting, in these runs (figures, never a pass/fail)
const timesFile = join(work, 'hook-times.tsv');
if (existsSync(timesFile)) {
  const byHook = new Map();
  for (const l of readFileSync(timesFile, 'utf8').split('\n').filter(Boolean)) {
    const [agent, verb, t0, t1] = l.split('\t');
    const k = `${agent} ${verb}`;
    byHook.set(k, [...(byHook.get(k) ?? []), (Number(t1) - Number(t0)) * 1000]);
  }
  const med = (xs) => {
    const s2 = [...xs].sort((a, b) => a - b);
    const m = s2.length >> 1;
    return s2.length % 2 ? s2[m] : (s2[m - 1] + s2[m]) / 2;
  };
  const node = med(Array.from({ length: 15 }, () => {
    const t = process.hrtime.bigint();
    // the hooks' own environment: no NODE_OPTIONS / NODE_EXTRA_CA_CERTS (loading CAs alone costs ~80 ms)
    const { NODE_OPTIONS: _o, NODE_EXTRA_CA_CERTS: _c, ...clean } = process.env;
    spawnSync(process.execPath, ['-e', ''], { env: clean });
    return Number(process.hrtime.bigint() - t) / 1e6;
  }));
  console.log(`Hook wall times in these runs (p50; node -e "" ${node.toFixed(0)} ms here):`);
  for (const [k, xs] of [...byHook].sort()) console.log(`  ${k.padEnd(34)} n=${String(xs.length).padStart(2)}  p50 ${med(xs).toFixed(0).padStart(5)} ms  ${(med(xs) / node).toFixed(2)}×`);
  console.log('');
  if (args.timesOut) writeFileSync(args.timesOut, readFileSync(timesFile));
}
if (process.env.ENTIRE_AGENTS_KEEP === '1') log(`kept ${work} (manifest, drift reports)`);
else rmSync(work, { recursive: true, force: true });
process.exit(vitest.status ?? 1);
