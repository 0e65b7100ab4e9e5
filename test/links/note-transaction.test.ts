/**
 * SPEC-2 §D.1 on the commit path: post-commit moves `refs/notes/entire` in
 * the checkpoint's own ref transaction (both or neither), and another notes
 * writer in between never costs the checkpoint or either note.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { existsSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cleanupAll, makeRepo, type TempRepo } from '../helpers/repo.js';
import { withEnv } from '../helpers/env.js';
import { world, commit, headMessage, trailerIds } from '../e2e/helpers.js';
import { noteIds, head } from './helpers.js';
import { openRepo, type Repo } from '../../src/git/repo.js';
import { prepareNoteIds } from '../../src/links/notes.js';
import { writeCommittedSession } from '../../src/store/committed.js';

afterAll(cleanupAll);

const META = 'refs/heads/entire/checkpoints/v1';
const NOTES = 'refs/notes/entire';

function tipOf(r: TempRepo, ref: string): string | null {
  const res = r.gitResult(['rev-parse', '--verify', '-q', ref]);
  return res.status === 0 ? res.stdout.trim() : null;
}

/** The checkpoint ids the metadata branch holds (its shard directories). */
function checkpointIds(r: TempRepo): string[] {
  if (!tipOf(r, META)) return [];
  const out = r.git(['ls-tree', '-d', '-r', '--name-only', META]);
  return [...out.matchAll(/^([0-9a-f]{2})\/([0-9a-f]{10})$/gm)].map((m) => m[1]! + m[2]!);
}

describe('post-commit: checkpoint and note in one ref transaction', () => {
  for (const point of ['cas-before-update-ref', 'cas-after-update-ref']) {
    it(`killed at ${point} of its first transaction: ${point.includes('after') ? 'both the checkpoint and the note' : 'neither'}`, () => {
      const { r, agent } = world();
      agent.prompt('write a.txt');
      agent.write('a.txt', 'a\n');
      agent.say('wrote a.txt');
      expect(agent.stop().status).toBe(0);
      r.git(['add', 'a.txt']);
      const fired = join(dirname(r.dir), `fired-${Math.random().toString(36).slice(2)}`);
      const c = commit(r, ['-m', 'add a'], { env: { ENTIRE_TEST_FAULT: `post-commit:${point}`, ENTIRE_TEST_FAULT_FIRED: fired } });
      expect(c.status, c.stderr).toBe(0);
      expect(existsSync(fired) && readFileSync(fired, 'utf8'), 'the fault point was reached').toContain(point);
      const [id] = trailerIds(headMessage(r));
      expect(id).toBeTruthy();
      if (point === 'cas-after-update-ref') {
        // the process died right after the checkpoint's transaction: the note moved in it
        expect(checkpointIds(r)).toContain(id);
        expect(noteIds(r, 'HEAD')).toEqual([id]);
      } else {
        expect(checkpointIds(r)).not.toContain(id);
        expect(tipOf(r, NOTES)).toBeNull();
      }
    });
  }
});

async function inRepo<T>(t: TempRepo, fn: (repo: Repo) => Promise<T>): Promise<T> {
  return withEnv(t.env, async () => {
    const repo = await openRepo(t.dir);
    try {
      return await fn(repo);
    } finally {
      repo.objects.close();
    }
  });
}

async function writeCheckpoint(repo: Repo, id: string, alsoMove: Parameters<typeof writeCommittedSession>[1]['alsoMove']): Promise<void> {
  await writeCommittedSession(repo, {
    checkpointId: id,
    sessionId: 'sess-1',
    agent: 'Claude Code',
    transcript: '{"type":"user","uuid":"u1","message":{"content":"hello"}}\n',
    format: 'jsonl',
    prompts: ['hello'],
    filesTouched: ['a.txt'],
    checkpointsCount: 1,
    shadowBranch: 'entire/abc1234-e3b0c4',
    alsoMove,
  });
}

describe('another notes writer between the note and the checkpoint', () => {
  it('moves refs/notes/entire after the note was prepared: the checkpoint lands, the note follows on the new tip, both notes survive', async () => {
    const t = makeRepo();
    t.write('a.txt', 'a\n');
    const mine = t.commitAll('mine');
    t.write('b.txt', 'b\n');
    const theirs = t.commitAll('theirs');
    // the notes ref exists already (a note written by an earlier hook)
    t.git(['notes', `--ref=${NOTES}`, 'add', '-m', 'Entire-Checkpoint: 000000000001', `${mine}~1`]);
    const id = 'aaaaaaaaaaaa';
    await inRepo(t, async (repo) => {
      const prepared = await prepareNoteIds(repo, new Map([[mine, [id]]]));
      expect(prepared.ride).not.toBeNull();
      // another process (git notes, a second hook) moves the ref in between
      t.git(['notes', `--ref=${NOTES}`, 'add', '-m', 'Entire-Checkpoint: bbbbbbbbbbbb', theirs]);
      const theirTip = tipOf(t, NOTES);
      await writeCheckpoint(repo, id, [prepared.ride!]);
      expect(checkpointIds(t)).toContain(id);
      expect(prepared.ride!.carried).toBe(false);
      expect(tipOf(t, NOTES)).toBe(theirTip); // the checkpoint's transaction went without the note
      await prepared.commit();
    });
    expect(noteIds(t, mine)).toEqual([id]);
    expect(noteIds(t, theirs)).toEqual(['bbbbbbbbbbbb']);
    expect(noteIds(t, `${mine}~1`)).toEqual(['000000000001']);
    // the notes commit builds on the other writer's
    expect(t.git(['rev-parse', `${NOTES}~1`]).trim()).not.toBe('');
    expect(t.gitResult(['fsck', '--no-progress']).status).toBe(0);
  });

  it('holds the notes ref lock during the checkpoint transaction: the checkpoint still lands', async () => {
    const t = makeRepo();
    t.write('a.txt', 'a\n');
    const mine = t.commitAll('mine');
    t.git(['notes', `--ref=${NOTES}`, 'add', '-m', 'Entire-Checkpoint: 000000000001', `${mine}~1`]);
    const notesTip = tipOf(t, NOTES);
    const id = 'cccccccccccc';
    const lock = join(t.dir, '.git', `${NOTES}.lock`);
    await inRepo(t, async (repo) => {
      const prepared = await prepareNoteIds(repo, new Map([[mine, [id]]]));
      writeFileSync(lock, ''); // another writer is in the middle of its update
      try {
        await writeCheckpoint(repo, id, [prepared.ride!]);
      } finally {
        rmSync(lock, { force: true });
      }
      expect(checkpointIds(t)).toContain(id);
      expect(prepared.ride!.carried).toBe(false);
      expect(tipOf(t, NOTES)).toBe(notesTip);
      // the lock is gone: the note moves on its own
      await prepared.commit();
    });
    expect(noteIds(t, mine)).toEqual([id]);
    expect(noteIds(t, `${mine}~1`)).toEqual(['000000000001']);
  });

  it('in the common case the note moves with the checkpoint, in one transaction', async () => {
    const t = makeRepo();
    t.write('a.txt', 'a\n');
    const mine = t.commitAll('mine');
    const id = 'dddddddddddd';
    await inRepo(t, async (repo) => {
      const prepared = await prepareNoteIds(repo, new Map([[mine, [id]]]));
      await writeCheckpoint(repo, id, [prepared.ride!]);
      expect(prepared.ride!.carried).toBe(true);
      expect(noteIds(t, mine)).toEqual([id]); // before commit(): the transaction moved it
      const before = tipOf(t, NOTES);
      await prepared.commit();
      expect(tipOf(t, NOTES)).toBe(before); // nothing left to move
    });
    expect(head(t, mine)).toBe(mine);
    // git reads the note (same content and fanout as before)
    expect(t.git(['notes', `--ref=${NOTES}`, 'show', mine])).toBe(`Entire-Checkpoint: ${id}\n`);
    expect(t.git(['ls-tree', '-r', '--name-only', NOTES]).trim()).toBe(`${mine.slice(0, 2)}/${mine.slice(2)}`);
  });
});
