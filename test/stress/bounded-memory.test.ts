/**
 * SPEC-2 §A.6: a hook's peak RSS stays ≤ 256 MiB whatever the transcript's size
 * (up to the 256 MiB cap of §A.5). A ~100 MB Claude transcript, with lines
 * that straddle the 1 MiB reads and one over 16 MiB, goes through a whole
 * session: the first Stop (redacts all of it and writes the shadow copy), a
 * commit (post-commit condenses all of it into a checkpoint), a mid-turn commit
 * and the Stop that finalizes it. Every hook runs as users run it, with
 * `ENTIRE_TIMING=rss` (its own peak RSS, from getrusage, printed at exit), and
 * the agent hooks with a V8 heap of 96 MB: holding the transcript as a string
 * (as the code before issue 14's last point did, 0.9 GB for this one) would
 * crash them.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { openSync, closeSync, writeSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cleanupAll, type TempRepo } from '../helpers/repo.js';
import { world, commit, headMessage, trailerIds } from '../e2e/helpers.js';

afterAll(cleanupAll);

const SECRET = 'ghp_FaKe7T0kEnF0rTeStS9xQ2mZ7vR1bN8kL3pJ';
const MiB = 1024 * 1024;
const BOUND_MIB = 256;
const M = 52_428_800;

/** Peak RSS (MiB) of every hook process whose ENTIRE_TIMING=rss marks are in `stderr`. */
function peaks(stderr: string): number[] {
  return [...stderr.matchAll(/\[entire-timing\] [\d.]+ exit \[maxrss ([\d.]+)\]/g)].map((m) => Number(m[1]));
}

const seen: string[] = [];

function expectBounded(what: string, res: { status: number | null; stderr: string }, hooks = 1): void {
  expect(res.status, `${what}: ${res.stderr.slice(-2000)}`).toBe(0);
  const p = peaks(res.stderr);
  seen.push(`${what} ${p.map((x) => x.toFixed(0)).join('/')} MiB`);
  expect(p.length, `${what}: no peak RSS reported`).toBeGreaterThanOrEqual(hooks);
  for (const mib of p) expect(mib, `${what}: peak RSS ${mib} MiB\n${res.stderr.slice(-3000)}`).toBeLessThanOrEqual(BOUND_MIB);
}

/** ~`mb` MB of Claude-shaped lines: prompts, replies with a planted secret now and then, progress. */
function appendTranscript(path: string, sid: string, mb: number): void {
  const fd = openSync(path, 'a');
  try {
    let n = 0;
    const filler = 'lorem ipsum dolor sit amet '.repeat(60);
    for (let written = 0; written < mb * MiB; ) {
      const lines: string[] = [];
      for (let i = 0; i < 400; i++, n++) {
        const uuid = `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
        if (n % 3 === 0) lines.push(JSON.stringify({ type: 'user', uuid, sessionId: sid, message: { role: 'user', content: `prompt ${n}: ${filler.slice(0, 200)}` } }));
        else if (n % 3 === 1) lines.push(JSON.stringify({ type: 'assistant', uuid, sessionId: sid, message: { id: `msg_${n}`, role: 'assistant', content: [{ type: 'text', text: `${n % 97 === 1 ? SECRET : 'no secret'} ${filler}` }], usage: { input_tokens: 1, output_tokens: 2 } } }));
        else lines.push(JSON.stringify({ type: 'progress', uuid, sessionId: sid, data: { type: 'hook_progress', text: filler } }));
      }
      const block = Buffer.from(lines.join('\n') + '\n');
      writeSync(fd, block);
      written += block.length;
    }
    // a 3 MiB line (it spans reads) with the secret at its end, and a line over 16 MiB (omitted)
    writeSync(fd, JSON.stringify({ type: 'assistant', uuid: 'long-1', message: { role: 'assistant', content: [{ type: 'text', text: `${'z'.repeat(3 * MiB)} ${SECRET}` }] } }) + '\n');
    writeSync(fd, JSON.stringify({ type: 'user', uuid: 'huge-1', message: { role: 'user', content: `${SECRET} ${'h'.repeat(17 * MiB)}` } }) + '\n');
  } finally {
    closeSync(fd);
  }
}

function blob(r: TempRepo, spec: string): Buffer {
  return execFileSync('git', ['cat-file', 'blob', spec], { cwd: r.dir, env: r.env, maxBuffer: 256 * MiB });
}

function lineCount(buf: Buffer): number {
  let n = 0;
  for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, i + 1)) n++;
  return n;
}

describe('bounded memory on a big transcript (SPEC-2 §A.6)', () => {
  it('every hook of a session on a ~100 MB transcript peaks under 256 MiB, and what it stores is whole and redacted', () => {
    const { r, agent } = world();
    // every hook this test runs reports its peak RSS; agent hooks also get a small V8 heap
    r.env['ENTIRE_TIMING'] = 'rss';
    r.env['NODE_OPTIONS'] = '--max-old-space-size=96';
    r.env['ENTIRE_STOP_WAIT_MS'] = '0';
    expectBounded('session-start', agent.sessionStart());
    expectBounded('user-prompt-submit', agent.prompt('start'));
    appendTranscript(agent.transcriptPath, agent.sessionId, 100);
    agent.write('a.txt', 'a\n');
    expectBounded('first Stop', agent.stop());

    // the commit: prepare-commit-msg, commit-msg and post-commit (which condenses ~100 MB)
    r.git(['add', 'a.txt']);
    const c1 = commit(r, ['-m', 'big'], { tty: true });
    expectBounded('commit', c1, 2);
    const [id] = trailerIds(headMessage(r));
    expect(id).toBeDefined();
    const slot = `entire/checkpoints/v1:${id!.slice(0, 2)}/${id!.slice(2)}/0`;
    const names = r.git(['ls-tree', '--name-only', slot]).trim().split('\n');
    const chunkNames = names.filter((n) => n.startsWith('full.jsonl'));
    expect(chunkNames).toEqual(['full.jsonl', 'full.jsonl.001', 'full.jsonl.002']);
    const chunks = chunkNames.map((n) => blob(r, `${slot}/${n}`));
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(M);
    const joined = Buffer.concat(chunks.flatMap((c, i) => (i > 0 ? [Buffer.from('\n'), c] : [c])));
    // whole: one stored line per transcript line; redacted; the huge line omitted; the hash verifies
    expect(lineCount(joined)).toBe(lineCount(readFileSync(agent.transcriptPath)));
    expect(joined.includes(SECRET)).toBe(false);
    expect(joined.includes('"type":"entire-omitted"')).toBe(true);
    expect(joined.includes('z'.repeat(1000))).toBe(true);
    expect(r.git(['show', `${slot}/content_hash.txt`])).toBe('sha256:' + createHash('sha256').update(joined).digest('hex'));

    // a commit in the middle of a turn, then the Stop that finalizes it with the whole turn
    expectBounded('user-prompt-submit', agent.prompt('more'));
    agent.write('b.txt', 'b\n');
    r.git(['add', 'b.txt']);
    expectBounded('mid-turn commit', commit(r, ['-m', 'mid-turn'], { tty: true }), 2);
    const [id2] = trailerIds(headMessage(r));
    agent.say('the last words of the turn');
    expectBounded('Stop with finalize', agent.stop());
    const slot2 = `entire/checkpoints/v1:${id2!.slice(0, 2)}/${id2!.slice(2)}/0`;
    const last = blob(r, `${slot2}/${r.git(['ls-tree', '--name-only', slot2]).trim().split('\n').filter((n) => n.startsWith('full.jsonl')).pop()}`);
    expect(last.includes('the last words of the turn')).toBe(true);
    expect(r.git(['log', '-1', '--format=%s', 'entire/checkpoints/v1']).trim()).toBe(`Finalize transcript for Checkpoint: ${id2}`);
    console.log(`peak RSS per hook: ${seen.join(', ')}`);
  }, 240_000);
});
