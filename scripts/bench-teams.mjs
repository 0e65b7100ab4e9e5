// Team sync figures for `npm run bench` (issue 18, SPEC-2 §E.2; docs/performance.md, docs/teams.md):
// - the wall time of one round of 20 clones pushing at once to one bare remote
//   (3 new checkpoints each), and whether every trailer-named checkpoint landed in it;
// - the metadata push overhead: the pre-push hook's time for 50 new checkpoints
//   to a remote that is up to date otherwise (what our hook adds to a person's push).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

export async function benchTeams({ root, cli, base, env, runs = 5, clones = 20, each = 3, overheadCheckpoints = 50 }) {
  const dir = join(base, 'teams');
  mkdirSync(dir, { recursive: true });
  const seeder = join(dir, 'team-seeder.cjs');
  await build({ entryPoints: [join(root, 'test', 'helpers', 'team-seeder.ts')], outfile: seeder, bundle: true, platform: 'node', format: 'cjs', target: 'node20', logLevel: 'error' });
  const sh = (cwd, cmd, args) => {
    const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
    return r.stdout;
  };
  const git = (cwd, ...args) => sh(cwd, 'git', args);
  const remote = join(dir, 'remote.git');
  git(dir, 'init', '-q', '--bare', '-b', 'main', remote);
  const seed = join(dir, 'seed');
  git(dir, 'init', '-q', '-b', 'main', seed);
  git(seed, 'commit', '-q', '--allow-empty', '-m', 'initial');
  git(seed, 'push', '-q', remote, 'main');
  const cloneOf = (name) => {
    const c = join(dir, name);
    git(dir, 'clone', '-q', remote, c);
    sh(c, process.execPath, [cli, 'enable']);
    return c;
  };
  const seedInto = (c, n, tag) => sh(c, process.execPath, [seeder, c, String(n), tag]).split('\n').filter(Boolean);

  // one round of `clones` concurrent pushers
  const pushers = [];
  for (let i = 0; i < clones; i++) {
    const c = cloneOf(`c${i}`);
    git(c, 'checkout', '-q', '-b', `feature-${i}`);
    pushers.push({ dir: c, branch: `feature-${i}`, ids: seedInto(c, each, `c${i}`) });
  }
  const t0 = process.hrtime.bigint();
  const results = await Promise.all(
    pushers.map(
      (p) =>
        new Promise((resolve) => {
          const child = spawn('git', ['push', '-q', 'origin', p.branch], { cwd: p.dir, env, stdio: ['ignore', 'ignore', 'pipe'] });
          let stderr = '';
          child.stderr.on('data', (d) => (stderr += d));
          child.on('close', (status) => resolve({ status, stderr }));
        }),
    ),
  );
  const roundMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const onRemote = new Set(
    git(remote, 'ls-tree', '-d', '-r', '--name-only', 'entire/checkpoints/v1')
      .split('\n')
      .filter((p) => /^[0-9a-f]{2}\/[0-9a-f]{10}$/.test(p))
      .map((p) => p.replace('/', '')),
  );
  const named = pushers.flatMap((p) => p.ids);
  const landed = named.filter((id) => onRemote.has(id)).length;
  const pushesOk = results.filter((r) => r.status === 0).length;

  // the hook's cost for `overheadCheckpoints` new checkpoints, remote otherwise up to date
  const solo = cloneOf('solo');
  git(solo, 'checkout', '-q', '-b', 'solo');
  git(solo, 'push', '-q', 'origin', 'solo');
  const overhead = [];
  for (let r = 0; r < runs; r++) {
    seedInto(solo, overheadCheckpoints, `solo${r}`);
    const t = process.hrtime.bigint();
    sh(solo, process.execPath, [cli, 'hooks', 'git', 'pre-push', 'origin', remote]);
    overhead.push(Number(process.hrtime.bigint() - t) / 1e6);
    const local = git(solo, 'rev-parse', 'entire/checkpoints/v1').trim();
    const there = git(remote, 'rev-parse', 'entire/checkpoints/v1').trim();
    if (local !== there) throw new Error('the overhead run did not push the metadata branch');
  }
  return { roundMs, landed, named: named.length, pushesOk, clones, overheadMs: median(overhead), overheadRuns: runs, overheadCheckpoints };
}
