import { describe, it, expect, afterAll, afterEach } from 'vitest';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { makeRepo, fsck, cleanupAll, FIXTURES, type TempRepo } from '../helpers/repo.js';
import { withEnv } from '../helpers/env.js';
import { bundleScript } from '../helpers/bundle.js';
import { openRepo, type Repo } from '../../src/git/repo.js';
import {
  writeCommittedSession,
  updateCommittedSession,
  readCheckpoint,
  readSessionContent,
  listCheckpoints,
  checkpointExists,
  type SessionWrite,
} from '../../src/store/committed.js';
import { ensureMetadataBranch } from '../../src/store/branch.js';
import { MAX_CHUNK_BYTES } from '../../src/checkpoint/chunks.js';
import { createHash } from 'node:crypto';

const ID = 'a1b2c3d4e5f6';
const repos: TempRepo[] = [];
const opened: Repo[] = [];

afterEach(() => {
  for (const r of repos.splice(0)) {
    const f = fsck(r);
    expect(f.ok, f.output).toBe(true);
  }
  for (const r of opened.splice(0)) r.objects.close();
});
afterAll(cleanupAll);

async function setup(opts: { initialCommit?: boolean } = {}): Promise<{ r: TempRepo; repo: Repo }> {
  const r = makeRepo(opts);
  repos.push(r);
  const repo = await withEnv(r.env, () => openRepo(r.dir));
  opened.push(repo);
  return { r, repo };
}

function session(sid: string, extra: Partial<SessionWrite> = {}): SessionWrite {
  return {
    checkpointId: ID,
    sessionId: sid,
    agent: 'Claude Code',
    transcript: `{"type":"user","uuid":"u-${sid}","message":{"content":"hi ${sid}"}}\n`,
    format: 'jsonl',
    prompts: [`prompt ${sid}`],
    filesTouched: [`${sid}.ts`],
    checkpointsCount: 1,
    branch: 'main',
    shadowBranch: 'entire/abc1234-e3b0c4',
    ...extra,
  };
}

function inEnv<T>(r: TempRepo, fn: () => Promise<T>): Promise<T> {
  return withEnv(r.env, fn);
}

describe('metadata branch', () => {
  it('is created as a parentless commit with the empty tree and the SPEC message', async () => {
    const { r, repo } = await setup();
    const tip = await inEnv(r, () => ensureMetadataBranch(repo));
    expect(r.git(['rev-parse', 'entire/checkpoints/v1^{tree}']).trim()).toBe('4b825dc642cb6eb9a060e54bf8d69288fbee4904');
    expect(r.git(['rev-list', '--count', 'entire/checkpoints/v1']).trim()).toBe('1');
    expect(r.git(['cat-file', 'commit', tip]).endsWith('\n\nInitialize sessions branch')).toBe(true);
    // idempotent
    expect(await inEnv(r, () => ensureMetadataBranch(repo))).toBe(tip);
  });

  it('starts from the remote-tracking branch when only that exists (never a second root)', async () => {
    const { r, repo } = await setup();
    const remoteTip = await inEnv(r, async () => {
      await writeCommittedSession(repo, session('s1'));
      return r.git(['rev-parse', 'entire/checkpoints/v1']).trim();
    });
    r.git(['update-ref', 'refs/remotes/origin/entire/checkpoints/v1', remoteTip]);
    r.git(['update-ref', '-d', 'refs/heads/entire/checkpoints/v1']);
    await inEnv(r, () => writeCommittedSession(repo, session('s2', { checkpointId: 'b1b2c3d4e5f6' })));
    expect(r.git(['rev-parse', 'entire/checkpoints/v1~1']).trim()).toBe(remoteTip);
    expect(r.git(['rev-list', '--max-parents=0', 'entire/checkpoints/v1']).trim().split('\n')).toHaveLength(1);
  });
});

describe('writing a session into a checkpoint', () => {
  it('writes the SPEC §2.3 layout and the byte-exact commit message', async () => {
    const { r, repo } = await setup();
    await inEnv(r, () => writeCommittedSession(repo, session('s1')));
    const files = r.git(['ls-tree', '-r', '--name-only', 'entire/checkpoints/v1']).trim().split('\n');
    expect(files).toEqual([
      'a1/b2c3d4e5f6/0/content_hash.txt',
      'a1/b2c3d4e5f6/0/context.md',
      'a1/b2c3d4e5f6/0/full.jsonl',
      'a1/b2c3d4e5f6/0/metadata.json',
      'a1/b2c3d4e5f6/0/prompt.txt',
      'a1/b2c3d4e5f6/metadata.json',
    ]);
    expect(r.git(['log', '--format=%B', '-1', 'entire/checkpoints/v1'])).toBe(
      'Checkpoint: a1b2c3d4e5f6\n\nEntire-Session: s1\nEntire-Strategy: manual-commit\nEntire-Agent: Claude Code\nEphemeral-branch: entire/abc1234-e3b0c4\n\n',
    );
    const transcript = r.git(['show', 'entire/checkpoints/v1:a1/b2c3d4e5f6/0/full.jsonl']);
    expect(r.git(['show', 'entire/checkpoints/v1:a1/b2c3d4e5f6/0/content_hash.txt'])).toBe(
      'sha256:' + createHash('sha256').update(transcript).digest('hex'),
    );
    expect(r.git(['show', 'entire/checkpoints/v1:a1/b2c3d4e5f6/0/prompt.txt'])).toBe('prompt s1');
    const root = r.git(['show', 'entire/checkpoints/v1:a1/b2c3d4e5f6/metadata.json']);
    expect(root).toMatch(/^\{\n {2}"cli_version": "ts-/);
    expect(JSON.parse(root)).toMatchObject({
      checkpoint_id: ID,
      strategy: 'manual-commit',
      branch: 'main',
      checkpoints_count: 1,
      files_touched: ['s1.ts'],
      sessions: [
        {
          metadata: '/a1/b2c3d4e5f6/0/metadata.json',
          transcript: '/a1/b2c3d4e5f6/0/full.jsonl',
          context: '/a1/b2c3d4e5f6/0/context.md',
          content_hash: '/a1/b2c3d4e5f6/0/content_hash.txt',
          prompt: '/a1/b2c3d4e5f6/0/prompt.txt',
        },
      ],
    });
    const slot = JSON.parse(r.git(['show', 'entire/checkpoints/v1:a1/b2c3d4e5f6/0/metadata.json']));
    expect(slot).toMatchObject({ checkpoint_id: ID, session_id: 's1', agent: 'Claude Code', files_touched: ['s1.ts'] });
    expect(slot.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  });

  it('write A, B, A gives two slots with A at 0/ and a re-aggregated root', async () => {
    const { r, repo } = await setup();
    await inEnv(r, async () => {
      await writeCommittedSession(repo, session('A', { tokenUsage: { input_tokens: 1, cache_creation_tokens: 0, cache_read_tokens: 0, output_tokens: 10, api_call_count: 1 } }));
      await writeCommittedSession(repo, session('B', { tokenUsage: { input_tokens: 2, cache_creation_tokens: 0, cache_read_tokens: 0, output_tokens: 20, api_call_count: 2 } }));
      await writeCommittedSession(repo, session('A', { prompts: ['second prompt of A'], filesTouched: ['A2.ts'], checkpointsCount: 3 }));
    });
    const view = await inEnv(r, () => readCheckpoint(repo, ID));
    expect(view!.sessions.map((s) => [s.slot, s.metadata.session_id])).toEqual([
      [0, 'A'],
      [1, 'B'],
    ]);
    const a = await inEnv(r, () => readSessionContent(repo, ID, { slot: 0 }));
    expect(a.prompts).toEqual(['second prompt of A']);
    expect(view!.root.checkpoints_count).toBe(4);
    expect(view!.root.files_touched).toEqual(['A2.ts', 'B.ts']);
    expect(view!.root.token_usage).toMatchObject({ input_tokens: 2, output_tokens: 20, api_call_count: 2 });
    expect(r.git(['rev-list', '--count', 'entire/checkpoints/v1']).trim()).toBe('4');
  });

  it('refuses a repository without commits, an invalid id, and changes nothing', async () => {
    const { r, repo } = await setup({ initialCommit: false });
    await expect(inEnv(r, () => writeCommittedSession(repo, session('s1')))).rejects.toMatchObject({ code: 'NO_COMMITS' });
    await expect(inEnv(r, () => writeCommittedSession(repo, session('s1', { checkpointId: 'XYZ' })))).rejects.toMatchObject({
      code: 'INVALID_CHECKPOINT_ID',
    });
    expect(r.gitResult(['rev-parse', '--verify', '-q', 'entire/checkpoints/v1']).status).not.toBe(0);
  });

  it('stores a transcript just over 52,428,800 bytes as two chunks that read back equal', async () => {
    const { r, repo } = await setup();
    const line = JSON.stringify({ type: 'assistant', text: 'x'.repeat(1024 * 1024 - 40) });
    const lines: string[] = [line];
    let size = line.length;
    while (size + 1 + line.length + 100 <= MAX_CHUNK_BYTES + 1) {
      lines.push(line);
      size += 1 + line.length;
    }
    // last line pads the whole to exactly M+1 bytes
    lines.push(JSON.stringify({ pad: 'y'.repeat(MAX_CHUNK_BYTES + 1 - size - 1 - 10) }));
    const text = lines.join('\n');
    expect(Buffer.byteLength(text)).toBe(MAX_CHUNK_BYTES + 1);
    const { PreRedacted } = await import('../../src/store/content.js');
    await inEnv(r, () => writeCommittedSession(repo, session('big', { transcript: PreRedacted.fromRedactor(text) })));
    const names = r.git(['ls-tree', '--name-only', 'entire/checkpoints/v1:a1/b2c3d4e5f6/0']).trim().split('\n');
    expect(names).toContain('full.jsonl');
    expect(names).toContain('full.jsonl.001');
    for (const n of ['full.jsonl', 'full.jsonl.001']) {
      const sz = Number(r.git(['cat-file', '-s', `entire/checkpoints/v1:a1/b2c3d4e5f6/0/${n}`]).trim());
      expect(sz).toBeLessThanOrEqual(MAX_CHUNK_BYTES);
    }
    const back = await inEnv(r, () => readSessionContent(repo, ID, { sessionId: 'big' }));
    expect(back.transcript!.equals(Buffer.from(text))).toBe(true);
  });

  it('twelve concurrent writer processes lose no checkpoint', async () => {
    const { r } = await setup();
    const script = await bundleScript('test/helpers/store-writer.ts');
    const ids = Array.from({ length: 12 }, (_, i) => `${(0xc0 + i).toString(16)}0000000000`.slice(0, 12));
    const runs = ids.map(
      (id, i) =>
        new Promise<number>((resolve) => {
          const p = spawn(process.execPath, [script, r.dir, id, `sess-${i}`], { env: r.env, stdio: ['ignore', 'ignore', 'inherit'] });
          p.on('close', (code) => resolve(code ?? 1));
        }),
    );
    // plus two processes writing into the same checkpoint
    runs.push(
      ...['same-1', 'same-2'].map(
        (sid) =>
          new Promise<number>((resolve) => {
            const p = spawn(process.execPath, [script, r.dir, 'dddddddddddd', sid], { env: r.env, stdio: ['ignore', 'ignore', 'inherit'] });
            p.on('close', (code) => resolve(code ?? 1));
          }),
      ),
    );
    expect(await Promise.all(runs)).toEqual(new Array(14).fill(0));
    const repo = await withEnv(r.env, () => openRepo(r.dir));
    opened.push(repo);
    const list = await inEnv(r, () => listCheckpoints(repo));
    expect(list.map((c) => c.checkpointId).sort()).toEqual([...ids, 'dddddddddddd'].sort());
    const same = await inEnv(r, () => readCheckpoint(repo, 'dddddddddddd'));
    expect(same!.sessions.map((s) => s.metadata.session_id).sort()).toEqual(['same-1', 'same-2']);
    expect(same!.sessions.map((s) => s.slot)).toEqual([0, 1]);
    expect(r.git(['for-each-ref', 'refs/entire-tmp'])).toBe('');
  });
});

describe('updating a committed session (UpdateCommitted, SPEC §6.6)', () => {
  it('replaces the transcript, and empty prompts remove prompt.txt / context.md and their root paths', async () => {
    const { r, repo } = await setup();
    await inEnv(r, () => writeCommittedSession(repo, session('s1')));
    const before = r.git(['rev-parse', 'entire/checkpoints/v1']).trim();
    const res = await inEnv(r, () =>
      updateCommittedSession(repo, { checkpointId: ID, sessionId: 's1', transcript: '{"full":"turn"}\n', format: 'jsonl', prompts: [] }),
    );
    expect(res.changed).toBe(true);
    expect(r.git(['log', '--format=%B', '-1', 'entire/checkpoints/v1'])).toBe(`Finalize transcript for Checkpoint: ${ID}\n`);
    expect(r.git(['rev-parse', 'entire/checkpoints/v1~1']).trim()).toBe(before);
    const names = r.git(['ls-tree', '--name-only', 'entire/checkpoints/v1:a1/b2c3d4e5f6/0']).trim().split('\n');
    expect(names).not.toContain('prompt.txt');
    expect(names).not.toContain('context.md');
    const root = JSON.parse(r.git(['show', 'entire/checkpoints/v1:a1/b2c3d4e5f6/metadata.json']));
    expect(root.sessions[0].prompt).toBe('');
    expect(root.sessions[0].context).toBe('');
    expect(r.git(['show', 'entire/checkpoints/v1:a1/b2c3d4e5f6/0/full.jsonl'])).toBe('{"full":"turn"}\n');
    // same content again: no new commit
    const again = await inEnv(r, () =>
      updateCommittedSession(repo, { checkpointId: ID, sessionId: 's1', transcript: '{"full":"turn"}\n', format: 'jsonl', prompts: [] }),
    );
    expect(again.changed).toBe(false);
  });

  it('never writes into another session slot, and reports a missing checkpoint', async () => {
    const { r, repo } = await setup();
    await inEnv(r, () => writeCommittedSession(repo, session('A')));
    const before = r.git(['rev-parse', 'entire/checkpoints/v1']).trim();
    await expect(
      inEnv(r, () => updateCommittedSession(repo, { checkpointId: ID, sessionId: 'B', transcript: 'x', format: 'jsonl', prompts: ['p'] })),
    ).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
    await expect(
      inEnv(r, () => updateCommittedSession(repo, { checkpointId: 'ffffffffffff', sessionId: 'A', transcript: 'x', format: 'jsonl', prompts: [] })),
    ).rejects.toMatchObject({ code: 'CHECKPOINT_NOT_FOUND' });
    expect(r.git(['rev-parse', 'entire/checkpoints/v1']).trim()).toBe(before);
  });

  it('redacts inside the update, not only in callers', async () => {
    const { r, repo } = await setup();
    await inEnv(r, () => writeCommittedSession(repo, session('s1')));
    const secret = 'ghp_FaKe7T0kEnF0rTeStS9xQ2mZ7vR1bN8kL3pJ';
    await inEnv(r, () =>
      updateCommittedSession(repo, {
        checkpointId: ID,
        sessionId: 's1',
        transcript: JSON.stringify({ type: 'user', message: { content: `token ${secret}` } }) + '\n',
        format: 'jsonl',
        prompts: [`use ${secret}`],
      }),
    );
    const stored = r.git(['show', 'entire/checkpoints/v1:a1/b2c3d4e5f6/0/full.jsonl']);
    expect(stored).not.toContain(secret);
    expect(stored).toContain('REDACTED');
    expect(r.git(['show', 'entire/checkpoints/v1:a1/b2c3d4e5f6/0/prompt.txt'])).not.toContain(secret);
  });
});

describe('reading', () => {
  it('reports a corrupt metadata.json with its path, and bad slot numbers', async () => {
    const { r, repo } = await setup();
    await inEnv(r, () => writeCommittedSession(repo, session('s1')));
    await expect(inEnv(r, () => readSessionContent(repo, ID, { slot: 5 }))).rejects.toMatchObject({ code: 'INVALID_SLOT' });
    await expect(inEnv(r, () => readCheckpoint(repo, 'nothex'))).rejects.toMatchObject({ code: 'INVALID_CHECKPOINT_ID' });
    // corrupt the slot metadata by hand
    const blob = r.git(['hash-object', '-w', '--stdin'], { input: '{not json' }).trim();
    const tree = r.git(['ls-tree', 'entire/checkpoints/v1:a1/b2c3d4e5f6/0']).replace(/[0-9a-f]{40}\tmetadata\.json/, `${blob}\tmetadata.json`);
    const slotTree = r.git(['mktree'], { input: tree }).trim();
    const shardTree = r.git(['mktree'], { input: r.git(['ls-tree', 'entire/checkpoints/v1:a1/b2c3d4e5f6']).replace(/tree [0-9a-f]{40}\t0$/m, `tree ${slotTree}\t0`) }).trim();
    const a1 = r.git(['mktree'], { input: `040000 tree ${shardTree}\tb2c3d4e5f6\n` }).trim();
    const rootTree = r.git(['mktree'], { input: `040000 tree ${a1}\ta1\n` }).trim();
    const c = r.git(['commit-tree', rootTree, '-p', 'entire/checkpoints/v1', '-m', 'corrupt']).trim();
    r.git(['update-ref', 'refs/heads/entire/checkpoints/v1', c]);
    await expect(inEnv(r, () => readCheckpoint(repo, ID))).rejects.toMatchObject({
      code: 'CORRUPT_METADATA',
      message: expect.stringContaining('a1/b2c3d4e5f6/0/metadata.json'),
    });
  });

  it('reads all six checkpoints of the Go sample bundle', async () => {
    const { r, repo } = await setup();
    r.git(['fetch', '-q', join(FIXTURES, 'entire-go-sample.bundle'), 'entire/checkpoints/v1:entire/checkpoints/v1']);
    const list = await inEnv(r, () => listCheckpoints(repo));
    expect(list.map((c) => c.checkpointId).sort()).toEqual(['42527c9c20c8', '7e72a8d8fdb8', '8294a9921cfd', '966462b9a8e7', 'ba5e23ccb05b', 'c945f262e88d']);
    const expected: Record<string, { sessions: string[]; agents: (string | undefined)[] }> = {
      '42527c9c20c8': { sessions: ['28596a79-6247-4bc2-a031-f5848b31e039', expect.any(String) as unknown as string], agents: ['Claude Code', 'Claude Code'] },
      '7e72a8d8fdb8': { sessions: ['f4237e82-ca7b-48a3-bfed-36548f3e4f6b'], agents: ['Claude Code'] },
      '8294a9921cfd': { sessions: ['2026-01-13-21a2e002-8b63-45db-8e0d-1978fe0600aa'], agents: [undefined] },
      '966462b9a8e7': { sessions: ['37a27d31-4a70-427b-8518-5fad6045d347'], agents: ['Claude Code'] },
      ba5e23ccb05b: { sessions: ['2026-01-21-0cf3db51-1c73-43bb-8d05-dc02739514a5'], agents: ['Claude Code'] },
      c945f262e88d: { sessions: ['2026-01-15-f7633853-6663-4dbb-bbf4-6159afa29df8'], agents: [undefined] },
    };
    for (const [id, exp] of Object.entries(expected)) {
      const v = await inEnv(r, () => readCheckpoint(repo, id));
      expect(v!.sessions.map((s) => s.metadata.session_id)).toEqual(exp.sessions);
      expect(v!.sessions.map((s) => s.metadata.agent)).toEqual(exp.agents);
      for (const s of v!.sessions) {
        const content = await inEnv(r, () => readSessionContent(repo, id, { slot: s.slot }));
        expect(content.prompts.length).toBeGreaterThan(0);
        expect(content.transcript!.length).toBeGreaterThan(0);
      }
    }
    const first = await inEnv(r, () => readSessionContent(repo, '42527c9c20c8', { slot: 0 }));
    expect(first.prompts[0]).toContain('While we want this output text to be obvious');
    expect(first.contentHash).toMatch(/^sha256:[0-9a-f]{64}$/);
    const ba = await inEnv(r, () => readCheckpoint(repo, 'ba5e23ccb05b'));
    expect(ba!.sessions[0]!.metadata.transcript_identifier_at_start).toBe('3539c3e9-3c31-457b-9c12-be861919d539');
    expect(ba!.sessions[0]!.metadata.checkpoints_count).toBe(2);
    const m82 = await inEnv(r, () => readCheckpoint(repo, '8294a9921cfd'));
    expect(m82!.sessions[0]!.metadata.checkpoints_count).toBe(1);
    expect(m82!.root.extra).toMatchObject({ migration_source_commit: 'a6efe6c96dbd7a27adf1a953ae9fe3a393d6e541' });
    const gem = await inEnv(r, () => readSessionContent(repo, 'c945f262e88d', { slot: 0 }));
    expect(gem.format).toBe('json');
    expect(gem.contentHash).toBeNull();
    expect(gem.prompts[0]).toContain('color');
  });
});

describe('checkpointExists (prepare-commit-msg mints again on a taken ID)', () => {
  it('answers from the local and the remote-tracking branch, in-process and through git alike', async () => {
    const { r, repo } = await setup();
    await inEnv(r, () => writeCommittedSession(repo, session('s1')));
    const other = 'a1b2c3d4e5f7'; // same shard directory, another checkpoint
    const elsewhere = '0f0e0d0c0b0a'; // a shard directory that does not exist
    const answers = async () => [await checkpointExists(repo, ID), await checkpointExists(repo, other), await checkpointExists(repo, elsewhere)];
    expect(await inEnv(r, answers)).toEqual([true, false, false]);
    // only on the remote-tracking branch (fetched, not yet merged): taken too
    r.git(['update-ref', 'refs/remotes/origin/entire/checkpoints/v1', 'entire/checkpoints/v1']);
    r.git(['update-ref', '-d', 'refs/heads/entire/checkpoints/v1']);
    const viaGit = await withEnv({ ...r.env, ENTIRE_LOCAL_ODB: '0' }, async () => {
      const fresh = await openRepo(r.dir);
      opened.push(fresh);
      return [await checkpointExists(fresh, ID), await checkpointExists(fresh, other)];
    });
    const fresh = await inEnv(r, () => openRepo(r.dir));
    opened.push(fresh);
    expect(await inEnv(r, async () => [await checkpointExists(fresh, ID), await checkpointExists(fresh, other)])).toEqual([true, false]);
    expect(viaGit).toEqual([true, false]);
  });
});

