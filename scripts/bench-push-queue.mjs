/**
 * SPEC-3 §A.6/§A.7 bench row: a user's `git push` whose pre-push drains a
 * checkpoint push queue of 300 Go-format refs (one commit each, distinct
 * trees) to a local bare remote. Target: ≤ 10 s. Each run starts from a fresh
 * remote and clone, so every ref is new there.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const A = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** A ULID-shaped id (time head fixed, tail from `n`). */
function ulidOf(n) {
  let tail = '';
  let x = n + 1;
  for (let i = 0; i < 16; i++) {
    tail = A[x % 32] + tail;
    x = Math.floor(x / 32);
  }
  return '01K6H5QXR8' + tail;
}

export async function benchPushQueue({ cli, base, env, runs = 3, refs = 300 }) {
  const sh = (cwd, cmd, args, input = '') => {
    const r = spawnSync(cmd, args, { cwd, env, input, encoding: 'utf8', maxBuffer: 1 << 28 });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
    return r;
  };
  const git = (cwd, args, input) => sh(cwd, 'git', args, input).stdout;
  const times = [];
  let landed = 0;
  let left = 0;
  for (let run = 0; run < runs; run++) {
    const dir = join(base, `push-queue-${run}`);
    mkdirSync(dir, { recursive: true });
    const remote = join(dir, 'remote.git');
    git(dir, ['init', '-q', '--bare', '-b', 'main', remote]);
    const seed = join(dir, 'seed');
    git(dir, ['init', '-q', '-b', 'main', seed]);
    git(seed, ['commit', '-q', '--allow-empty', '-m', 'initial']);
    git(seed, ['push', '-q', remote, 'main']);
    const c = join(dir, 'clone');
    git(dir, ['clone', '-q', remote, c]);
    sh(c, process.execPath, [cli, 'enable']);
    // the refs, as fast-import writes them: one orphan commit per checkpoint, its own metadata.json
    let fi = '';
    const names = [];
    for (let i = 0; i < refs; i++) {
      const id = ulidOf(i);
      const ref = `refs/entire/checkpoints/${id.slice(-2)}/${id}`;
      names.push(ref);
      const md = JSON.stringify({ cli_version: '0.9.3', checkpoint_id: id, strategy: 'manual-commit', sessions: [] }, null, 2) + '\n';
      const msg = `Checkpoint: ${id}\n`;
      fi += `commit ${ref}\ncommitter Bench <bench@example.com> 1700000000 +0000\ndata ${Buffer.byteLength(msg)}\n${msg}`;
      fi += `M 100644 inline metadata.json\ndata ${Buffer.byteLength(md)}\n${md}\n`;
    }
    git(c, ['fast-import', '--quiet'], fi);
    writeFileSync(join(c, '.git', 'entire-checkpoint-push-queue.jsonl'), names.map((ref) => JSON.stringify({ ref }) + '\n').join(''), { mode: 0o600 });
    git(c, ['commit', '-q', '--allow-empty', '--no-verify', '-m', 'user work']);
    const t0 = process.hrtime.bigint();
    git(c, ['push', '-q', 'origin', 'main']);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    const onRemote = git(remote, ['for-each-ref', '--format=%(refname)', 'refs/entire/checkpoints/']).split('\n').filter(Boolean);
    landed = onRemote.length;
    left = sh(c, process.execPath, [cli, 'status', '--json']).stdout;
    left = JSON.parse(left).checkpoint_refs_queued;
  }
  const s = [...times].sort((a, b) => a - b);
  return { ms: s[s.length >> 1], runs, refs, landed, left };
}
