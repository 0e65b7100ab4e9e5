/**
 * SPEC-3 §A.1 ids (both kinds, one validator; trailers, notes and ref names
 * through it) and §A.4 routing in-process: the ref wins over the branch, a
 * ULID is looked for in refs only, the hooks' "is this id taken?" starts no
 * git process, and on-demand fetch takes one ref from a remote (a dead remote
 * is "not available", never "not found").
 */
import { afterAll, describe, expect, it } from 'vitest';
import { chmodSync, mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { makeRepo, cleanupAll, tempDir, type TempRepo } from '../helpers/repo.js';
import { withEnv } from '../helpers/env.js';
import { goRef, ulid, writeGoCheckpoint } from '../helpers/go-refs.js';
import { writeCheckpoint } from '../commands/helpers.js';
import { isCheckpointId, isHexCheckpointId, isUlidCheckpointId } from '../../src/trust/ids.js';
import { checkpointIdOfRef, checkpointRef, shardPath } from '../../src/checkpoint/id.js';
import { allCheckpointIds, checkpointIdsInFinalBlock } from '../../src/checkpoint/trailers.js';
import { parseNoteIds, renderNote } from '../../src/links/note-format.js';
import { openRepo } from '../../src/git/repo.js';
import { allowOnDemandFetch, checkpointExists, listCheckpoints, readCheckpoint } from '../../src/store/routing.js';
import { isEntireError } from '../../src/errors.js';

afterAll(() => cleanupAll());

const U = '01M3WE2VX9HQC3NVY9BWYCW6JV';

describe('SPEC-3 §A.1: checkpoint ids of both kinds', () => {
  it('accepts 12 lowercase hex and 26-character upper-case Crockford ULIDs, nothing else', () => {
    expect(isCheckpointId('a1b2c3d4e5f6')).toBe(true);
    expect(isCheckpointId(U)).toBe(true);
    expect(isUlidCheckpointId(U)).toBe(true);
    expect(isHexCheckpointId(U)).toBe(false);
    for (const bad of [U.toLowerCase(), '8' + U.slice(1), U.slice(0, 25), U + 'A', U.slice(0, 25) + 'I', U.slice(0, 25) + 'L', U.slice(0, 25) + 'O', U.slice(0, 25) + 'U', 'A1B2C3D4E5F6', 'a1b2c3d4e5f']) {
      expect(isCheckpointId(bad), bad).toBe(false);
    }
  });

  it('trailers and notes carry either kind (a squash commit holds both), deduplicated in order', () => {
    const msg = `squash\n\nEntire-Checkpoint: a1b2c3d4e5f6\nEntire-Checkpoint: ${U}\nEntire-Checkpoint: a1b2c3d4e5f6\n`;
    expect(allCheckpointIds(msg)).toEqual(['a1b2c3d4e5f6', U]);
    expect(checkpointIdsInFinalBlock(msg)).toEqual(['a1b2c3d4e5f6', U]);
    expect(allCheckpointIds(`x\n\nEntire-Checkpoint: ${U.toLowerCase()}\n`)).toEqual([]);
    const note = renderNote([U, 'a1b2c3d4e5f6']);
    expect(note).toBe(`Entire-Checkpoint: ${U}\nEntire-Checkpoint: a1b2c3d4e5f6\n`.split('\n').filter(Boolean).sort().map((l) => l + '\n').join(''));
    expect(parseNoteIds(note).sort()).toEqual([U, 'a1b2c3d4e5f6'].sort());
  });

  it('ref names: shard = the last two characters for both kinds; other names under the prefix are not checkpoints', () => {
    expect(checkpointRef(U)).toBe(`refs/entire/checkpoints/JV/${U}`);
    expect(checkpointRef('a1b2c3d4e5f6')).toBe('refs/entire/checkpoints/f6/a1b2c3d4e5f6');
    expect(checkpointIdOfRef(`refs/entire/checkpoints/JV/${U}`)).toBe(U);
    expect(checkpointIdOfRef(`refs/entire/checkpoints/01/${U}`)).toBeNull();
    expect(checkpointIdOfRef(`refs/entire/checkpoints/JV/${U}/x`)).toBeNull();
    expect(checkpointIdOfRef('refs/entire/checkpoints/JV')).toBeNull();
    expect(checkpointIdOfRef('refs/entire/policies/checkpoint')).toBeNull();
    // a ULID is never a path on the v1 branch
    expect(() => shardPath(U)).toThrow(/ULID/);
  });
});

async function inRepo<T>(r: TempRepo, fn: (repo: Awaited<ReturnType<typeof openRepo>>) => Promise<T>, extraEnv: NodeJS.ProcessEnv = {}, fast = false): Promise<T> {
  return withEnv({ ...r.env, ...extraEnv }, async () => {
    // fast: found from the file system, as hooks open it (no rev-parse)
    const repo = await openRepo(r.dir, { fast });
    try {
      return await fn(repo);
    } finally {
      repo.objects.close();
    }
  });
}

const session = (sid: string, text: string) => ({
  sessionId: sid,
  transcript: JSON.stringify({ type: 'user', uuid: sid, message: { role: 'user', content: text } }) + '\n',
  prompts: [text],
});

describe('SPEC-3 §A.4: the routing store', () => {
  it('a hex id in both places reads from the ref; a listing holds each id once', async () => {
    const r = makeRepo();
    const hex = 'c0ffee123456';
    await writeCheckpoint(r, { checkpointId: hex, sessionId: 'on-branch' });
    writeGoCheckpoint(r, { id: hex, sessions: [session('on-ref', 'ref')] });
    const u = ulid(11);
    writeGoCheckpoint(r, { id: u, sessions: [session('ulid-session', 'u')] });
    await inRepo(r, async (repo) => {
      const v = await readCheckpoint(repo, hex);
      expect(v?.sessions.map((s) => s.metadata.session_id)).toEqual(['on-ref']);
      expect((await readCheckpoint(repo, u))?.sessions[0]?.dir).toBe('0');
      expect((await listCheckpoints(repo)).map((c) => c.checkpointId)).toEqual([u, hex].sort());
      expect(await checkpointExists(repo, u)).toBe(true);
      expect(await checkpointExists(repo, ulid(12))).toBe(false);
    });
  });

  it("a hostile ref's tree meets the v1 layout rules (SPEC-2 §A.7): a symlinked transcript and a stray name are not read", async () => {
    const r = makeRepo();
    const u = ulid(30);
    const blob = (c: string) => r.git(['hash-object', '-w', '--stdin'], { input: c }).trim();
    const md = blob(JSON.stringify({ checkpoint_id: u, session_id: 'evil', strategy: 'manual-commit', created_at: '', checkpoints_count: 1, files_touched: null }));
    const slot = r.git(['mktree'], { input: `100644 blob ${md}\tmetadata.json\n120000 blob ${blob('/etc/passwd')}\tfull.jsonl\n100644 blob ${blob('x')}\t..evil\n` }).trim();
    const root = r.git(['mktree'], { input: `040000 tree ${slot}\t0\n` }).trim();
    r.git(['update-ref', goRef(u), r.git(['commit-tree', root], { input: 'Checkpoint: x' }).trim()]);
    await inRepo(r, async (repo) => {
      const v = await readCheckpoint(repo, u);
      expect(v?.sessions.map((x) => x.metadata.session_id)).toEqual(['evil']);
      expect(v?.sessions[0]?.files).toEqual(['metadata.json']);
    });
  });

  it('"is this id taken?" (prepare-commit-msg, the hook-less-commit check) starts no git process', async () => {
    const r = makeRepo();
    const u = ulid(13);
    writeGoCheckpoint(r, { id: u, sessions: [session('s', 'x')] });
    await writeCheckpoint(r, { checkpointId: 'abcabcabcabc', sessionId: 's2' });
    r.git(['pack-refs', '--all']);
    // a git on PATH that logs every call, then runs the real one
    const bin = tempDir('entire-fake-git-');
    const log = join(bin, 'calls.log');
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    writeFileSync(join(bin, 'git'), `#!/bin/sh\necho "$*" >> '${log}'\nexec '${realGit}' "$@"\n`);
    chmodSync(join(bin, 'git'), 0o755);
    await inRepo(
      r,
      async (repo) => {
        expect(await checkpointExists(repo, u)).toBe(true);
        expect(readFileSync(log, { encoding: 'utf8', flag: 'a+' })).toBe('');
        expect(await checkpointExists(repo, ulid(14))).toBe(false);
        expect(readFileSync(log, { encoding: 'utf8', flag: 'a+' })).toBe('');
        expect(await checkpointExists(repo, 'abcabcabcabc')).toBe(true);
        expect(await checkpointExists(repo, 'fedcba987654')).toBe(false);
      },
      { PATH: `${bin}:${process.env['PATH'] ?? ''}` },
      true,
    );
    expect(existsSync(log) ? readFileSync(log, 'utf8') : '').toBe('');
  });

  it('on demand, one ref is fetched from origin; a dead remote is "not available", never "not found"', async () => {
    const remote = makeRepo();
    const u = ulid(15);
    writeGoCheckpoint(remote, { id: u, sessions: [session('teammate', 'theirs')] });
    const other = ulid(16);
    writeGoCheckpoint(remote, { id: other, sessions: [session('teammate2', 'theirs too')] });
    const base = tempDir();
    const clone = join(base, 'clone');
    execFileSync('git', ['clone', '-q', remote.dir, clone], { env: remote.env });
    const r = { ...remote, dir: clone } as TempRepo;
    mkdirSync(join(base, 'home'), { recursive: true });
    await inRepo(r, async (repo) => {
      // without the command's permission (hooks): nothing is fetched
      allowOnDemandFetch(false);
      expect(await readCheckpoint(repo, u)).toBeNull();
      allowOnDemandFetch(true);
      const v = await readCheckpoint(repo, u);
      expect(v?.sessions[0]?.metadata.session_id).toBe('teammate');
      expect(await readCheckpoint(repo, ulid(17))).toBeNull(); // absent everywhere: not found
    });
    // exactly the one ref came over
    const refs = execFileSync('git', ['for-each-ref', '--format=%(refname)', 'refs/entire/'], { cwd: clone, encoding: 'utf8' }).trim();
    expect(refs).toBe(goRef(u));

    execFileSync('git', ['remote', 'set-url', 'origin', join(base, 'gone')], { cwd: clone });
    await inRepo(r, async (repo) => {
      allowOnDemandFetch(true);
      const err = await readCheckpoint(repo, other).catch((e: unknown) => e);
      expect(isEntireError(err, 'CHECKPOINT_UNAVAILABLE'), String(err)).toBe(true);
      // the first transport failure is remembered: the next miss does not try again
      const again = await readCheckpoint(repo, ulid(18)).catch((e: unknown) => e);
      expect(isEntireError(again, 'CHECKPOINT_UNAVAILABLE')).toBe(true);
      allowOnDemandFetch(false);
    });
  });
});
