/**
 * In-process parts of `npm run bench`, bundled by scripts/bench.mjs with
 * esbuild: store operations (issue 2), listing, redaction throughput, and
 * the generators for transcripts and a history repository.
 */
import { openRepo } from '../src/git/repo.js';
import { writeCommittedSession, updateCommittedSession, readSessionContent, listCheckpoints } from '../src/store/committed.js';
import { ensureMetadataBranch } from '../src/store/branch.js';
import { PreRedacted } from '../src/store/content.js';
import { benchRedaction, buildBenchTranscript } from '../src/redact/bench.js';
import { resetGitEnvForTests } from '../src/git/exec.js';
import { contextLayers } from '../src/context/layers.js';
import { foldTranscript } from '../src/context/incremental.js';
import { parseCheckpoint } from '../src/context/fold-state.js';
import { bytesOf } from '../src/byte-source.js';
import { getAgent } from '../src/agents/registry.js';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';

function ms(t0: bigint): number {
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Write / finalize / read one checkpoint, `runs` times each (ms medians). */
export async function benchStore(dir: string, runs: number, transcriptBytes: number): Promise<{ write: number; finalize: number; read: number }> {
  resetGitEnvForTests();
  const repo = await openRepo(dir);
  await ensureMetadataBranch(repo);
  const text = makeClaudeTranscript(transcriptBytes, 'bench-store');
  const w: number[] = [];
  const f: number[] = [];
  const r: number[] = [];
  for (let i = 0; i < runs; i++) {
    const id = (0x100000000000 + i * 7919).toString(16).slice(-12);
    let t0 = process.hrtime.bigint();
    await writeCommittedSession(repo, {
      checkpointId: id,
      sessionId: `s-${i}`,
      agent: 'Claude Code',
      transcript: PreRedacted.fromRedactor(text),
      format: 'jsonl',
      prompts: ['bench prompt'],
      filesTouched: ['a.ts'],
      checkpointsCount: 1,
      shadowBranch: 'entire/abc1234-e3b0c4',
    });
    w.push(ms(t0));
    t0 = process.hrtime.bigint();
    await updateCommittedSession(repo, {
      checkpointId: id,
      sessionId: `s-${i}`,
      transcript: PreRedacted.fromRedactor(text + '{"type":"assistant","final":true}\n'),
      format: 'jsonl',
      prompts: ['bench prompt', 'second'],
    });
    f.push(ms(t0));
    t0 = process.hrtime.bigint();
    await readSessionContent(repo, id, { slot: 0 });
    r.push(ms(t0));
  }
  repo.objects.close();
  return { write: median(w), finalize: median(f), read: median(r) };
}

/** List every checkpoint of a repository (a fresh reader each run, as a CLI process would). */
export async function benchList(dir: string, runs: number): Promise<{ ms: number; count: number }> {
  resetGitEnvForTests();
  const xs: number[] = [];
  let count = 0;
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    const repo = await openRepo(dir);
    count = (await listCheckpoints(repo)).length;
    repo.objects.close();
    xs.push(ms(t0));
  }
  return { ms: median(xs), count };
}

export function benchRedact(bytes: number, runs: number) {
  return benchRedaction({ bytes, runs });
}

/** A realistic Claude Code JSONL transcript of about `bytes` bytes. */
export function makeClaudeTranscript(bytes: number, seedName = 'bench'): string {
  void seedName;
  return buildBenchTranscript(bytes, 7);
}

/** Lines of one more turn: prompt, a Write of `absPath`, a reply, the Stop sentinel. */
export function turnLines(sessionId: string, prompt: string, absPath: string, content: string): string {
  const now = new Date().toISOString();
  const id = () => randomUUID();
  const mid = `msg_${randomUUID().slice(0, 12)}`;
  const lines = [
    { type: 'user', uuid: id(), sessionId, timestamp: now, message: { role: 'user', content: prompt } },
    {
      type: 'assistant',
      uuid: id(),
      sessionId,
      timestamp: now,
      message: { id: mid, role: 'assistant', content: [{ type: 'tool_use', id: `toolu_${id().slice(0, 8)}`, name: 'Write', input: { file_path: absPath, content } }], usage: { input_tokens: 3, cache_creation_input_tokens: 10, cache_read_input_tokens: 100, output_tokens: 25 } },
    },
    { type: 'user', uuid: id(), sessionId, timestamp: now, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x', content: 'ok' }] } },
    { type: 'assistant', uuid: id(), sessionId, timestamp: now, message: { id: `${mid}b`, role: 'assistant', content: [{ type: 'text', text: `Wrote ${absPath}.` }], usage: { input_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 50, output_tokens: 8 } } },
    { type: 'progress', uuid: id(), sessionId, timestamp: now, data: { type: 'hook_progress', hookEvent: 'Stop', command: 'entire hooks claude-code stop' } },
  ];
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

/**
 * Put `count` checkpoints on the metadata branch of `dir` with one
 * fast-import stream (one commit each), as a long-lived repository has.
 */
export function seedHistory(dir: string, count: number, env: NodeJS.ProcessEnv): void {
  const parts: string[] = [];
  const tip = spawnSync('git', ['rev-parse', '-q', '--verify', 'refs/heads/entire/checkpoints/v1'], { cwd: dir, env, encoding: 'utf8' }).stdout.trim();
  let t = 1_700_000_000;
  for (let i = 0; i < count; i++) {
    const id = (0xa00000000000 + i * 104729).toString(16).slice(-12);
    const shard = `${id.slice(0, 2)}/${id.slice(2)}`;
    const sid = randomUUID();
    const meta = JSON.stringify({ checkpoint_id: id, session_id: sid, strategy: 'manual-commit', created_at: new Date(t * 1000).toISOString(), checkpoints_count: 1, files_touched: [`f${i}.ts`], agent: 'Claude Code' }, null, 2) + '\n';
    const root = JSON.stringify({ checkpoint_id: id, strategy: 'manual-commit', checkpoints_count: 1, files_touched: [`f${i}.ts`], sessions: [{ metadata: `/${shard}/0/metadata.json`, transcript: `/${shard}/0/full.jsonl`, context: '', content_hash: `/${shard}/0/content_hash.txt`, prompt: '' }] }, null, 2) + '\n';
    const transcript = `{"type":"user","uuid":"${sid}","message":{"content":"history ${i}"}}\n`;
    const msg = `Checkpoint: ${id}\n\nEntire-Session: ${sid}\nEntire-Strategy: manual-commit\n`;
    const blob = (path: string, content: string) => `M 100644 inline ${path}\ndata ${Buffer.byteLength(content)}\n${content}\n`;
    parts.push(
      `commit refs/heads/entire/checkpoints/v1\ncommitter Bench <bench@example.com> ${t++} +0000\ndata ${Buffer.byteLength(msg)}\n${msg}\n` +
        (i === 0 && tip ? `from ${tip}\n` : '') +
        blob(`${shard}/metadata.json`, root) +
        blob(`${shard}/0/metadata.json`, meta) +
        blob(`${shard}/0/full.jsonl`, transcript) +
        blob(`${shard}/0/content_hash.txt`, 'sha256:0') +
        '\n',
    );
  }
  const r = spawnSync('git', ['fast-import', '--quiet', '--force'], { cwd: dir, env, input: parts.join('') });
  if (r.status !== 0) throw new Error('seeding history failed: ' + r.stderr.toString());
}

/**
 * What the note adds to post-commit's checkpoint write, the way post-commit writes both: the note
 * prepared first (`prepareNoteIds`), then the checkpoint, then the note's `commit()`. Three ways,
 * taking turns so the VM's drift hits each alike: no note; the note's ref carried in the
 * checkpoint's ref transaction (what post-commit does); the note's ref moved in a transaction
 * of its own (what it did before). Each write starts from a fresh repository handle (a hook's
 * cold object reader); the notes ref holds `seeded` notes first. Returns the medians of the
 * per-round differences to "no note", and of the checkpoint write alone, ms.
 */
export async function benchNoteOnCheckpoint(dir: string, rounds: number, seeded: number, env: NodeJS.ProcessEnv): Promise<{ carried: number; separate: number; none: number }> {
  const saved = { ...process.env };
  for (const k of Object.keys(process.env)) if (k.startsWith('GIT_') || k.startsWith('ENTIRE_')) delete process.env[k];
  Object.assign(process.env, env);
  try {
    resetGitEnvForTests();
    const { prepareNoteIds, addNoteIds } = await import('../src/links/notes.js');
    if (seeded > 0) {
      const fake = (i: number) => (BigInt(0x1000000) * BigInt(i + 1)).toString(16).padStart(40, 'a').slice(-40);
      const idOf = (i: number) => (0x100000000000 + i * 7919).toString(16).slice(-12);
      const repo = await openRepo(dir, { fast: true });
      await addNoteIds(repo, new Map(Array.from({ length: seeded }, (_, i) => [fake(i), [idOf(i)]] as [string, string[]])));
      repo.objects.close();
    }
    const head = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: dir, encoding: 'utf8' }).stdout.trim();
    const text = makeClaudeTranscript(100_000, 'bench-note');
    let n = 0;
    const once = async (mode: 'none' | 'carried' | 'separate'): Promise<number> => {
      const repo = await openRepo(dir, { fast: true }); // as hooks open it
      const id = (0x200000000000 + n++ * 7919).toString(16).slice(-12);
      // a new commit to note each time (the note of HEAD would only grow)
      const commit = (BigInt('0x' + head) ^ BigInt(n)).toString(16).padStart(40, '0');
      const t0 = process.hrtime.bigint();
      const note = mode === 'none' ? null : await prepareNoteIds(repo, new Map([[commit, [id]]]));
      await writeCommittedSession(repo, {
        checkpointId: id,
        sessionId: `s-${n}`,
        agent: 'Claude Code',
        transcript: PreRedacted.fromRedactor(text),
        format: 'jsonl',
        prompts: ['bench prompt'],
        filesTouched: ['a.ts'],
        checkpointsCount: 1,
        shadowBranch: 'entire/abc1234-e3b0c4',
        alsoMove: mode === 'carried' && note?.ride ? [note.ride] : [],
      });
      await note?.commit();
      const t = ms(t0);
      repo.objects.close();
      return t;
    };
    await ensureMetadataBranch(await openRepo(dir, { fast: true }));
    for (const m of ['none', 'carried', 'separate'] as const) await once(m); // warm-up: JIT, page cache
    const carried: number[] = [];
    const separate: number[] = [];
    const none: number[] = [];
    for (let i = 0; i < rounds; i++) {
      // as many packs as hooks leave between two `git gc --auto`s, not one per write forever
      if (i % 10 === 0) spawnSync('git', ['repack', '-a', '-d', '-q'], { cwd: dir });
      const order = i % 2 === 0 ? (['none', 'carried', 'separate'] as const) : (['separate', 'carried', 'none'] as const);
      const t: Record<string, number> = {};
      for (const m of order) t[m] = await once(m);
      none.push(t['none']!);
      carried.push(t['carried']! - t['none']!);
      separate.push(t['separate']! - t['none']!);
    }
    return { carried: median(carried), separate: median(separate), none: median(none) };
  } finally {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  }
}

/**
 * SPEC-2 §F.4 derivation cost: the layered context of a generated Claude transcript of about
 * `bytes` bytes, from its bytes in memory (the hooks read the redaction cache's file the same way).
 */
export async function benchContext(bytes: number, runs: number): Promise<{ ms: number; msPerMb: number; bytes: number }> {
  const adapter = await getAgent('claude-code');
  const buf = Buffer.from(buildBenchTranscript(bytes, 7));
  const xs: number[] = [];
  for (let i = 0; i < runs + 1; i++) {
    const t0 = process.hrtime.bigint();
    contextLayers({ adapter, transcript: buf, format: 'jsonl', prompts: [], root: '/home/dev/proj' });
    if (i > 0) xs.push(ms(t0)); // the first run compiles
  }
  const m = median(xs);
  return { ms: m, msPerMb: m / (buf.length / 1e6), bytes: buf.length };
}

/**
 * SPEC-2 §F.4 incremental derivation: a turn end's fold of a `bytes` transcript that grew by a
 * `turnBytes` turn since the last one, resumed from the saved state (serialized and validated
 * as the hook does), against the fresh fold of the same bytes that also writes a state.
 */
export async function benchContextIncremental(
  bytes: number,
  turnBytes: number,
  runs: number,
): Promise<{ fresh: number; freshMsPerMb: number; resumed: number; stateBytes: number; bytes: number; turnBytes: number }> {
  const adapter = await getAgent('claude-code');
  const before = Buffer.from(buildBenchTranscript(bytes, 7));
  const turn = Buffer.from(buildBenchTranscript(turnBytes, 11));
  const after = Buffer.concat([before, turn]);
  const root = '/home/dev/proj';
  const saved = JSON.stringify(foldTranscript({ adapter, transcript: bytesOf(before), format: 'jsonl', prompts: [], root, saved: null }).checkpoint);
  const fresh: number[] = [];
  const resumed: number[] = [];
  for (let i = 0; i < runs + 1; i++) {
    let t0 = process.hrtime.bigint();
    const f = foldTranscript({ adapter, transcript: bytesOf(after), format: 'jsonl', prompts: [], root, saved: null });
    JSON.stringify(f.checkpoint);
    if (i > 0) fresh.push(ms(t0));
    t0 = process.hrtime.bigint();
    const r = foldTranscript({ adapter, transcript: bytesOf(after), format: 'jsonl', prompts: [], root, saved: parseCheckpoint(saved) });
    JSON.stringify(r.checkpoint);
    if (i > 0) resumed.push(ms(t0));
    if (r.resumedAt !== before.length) throw new Error(`bench: the fold did not resume (${r.resumedAt})`);
  }
  const m = median(fresh);
  return { fresh: m, freshMsPerMb: m / (after.length / 1e6), resumed: median(resumed), stateBytes: saved.length, bytes: after.length, turnBytes: turn.length };
}
