/**
 * SPEC-3 §A.9, V7: `entire migrate --to refs [--dry-run]` through the built CLI, real git.
 * The v1 branch holds the six checkpoints of the Go-written sample (test/fixtures/entire-go-sample.bundle)
 * and one two-session checkpoint written by our own committed-store writer (the one post-commit uses).
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeRepo, cleanupAll, type TempRepo } from '../helpers/repo.js';
import { SAMPLE_IDS, fetchSample, linkCommit, writeCheckpoint } from './helpers.js';
import { sampleSession, ulid, writeGoCheckpoint, type GoCheckpoint } from '../helpers/go-refs.js';

afterAll(cleanupAll);

const OURS = 'a1b2c3d4e5f6';
const IDS = [...SAMPLE_IDS, OURS].sort();
const BRANCH = 'refs/heads/entire/checkpoints/v1';
const refOf = (id: string): string => `refs/entire/checkpoints/${id.slice(-2)}/${id}`;

function refs(r: TempRepo): string {
  return r.git(['for-each-ref', '--format=%(objectname) %(refname)']);
}

async function seed(): Promise<TempRepo> {
  const r = makeRepo();
  fetchSample(r);
  await writeCheckpoint(r, { checkpointId: OURS, sessionId: 'sess-one', prompts: ['first <prompt> & more'] });
  await writeCheckpoint(r, { checkpointId: OURS, sessionId: 'sess-two', prompts: ['second prompt'] });
  for (const id of IDS) linkCommit(r, `work for ${id}`, [id]);
  return r;
}

function explainJson(r: TempRepo, id: string): unknown {
  const res = r.entire(['explain', '--checkpoint', id, '--json']);
  expect(res.status, res.stderr).toBe(0);
  return JSON.parse(res.stdout);
}

describe('entire migrate --to refs (SPEC-3 §A.9, V7)', () => {
  let r: TempRepo;
  const before = new Map<string, unknown>();
  let branchTip = '';

  beforeAll(async () => {
    r = await seed();
    for (const id of IDS) before.set(id, explainJson(r, id));
    branchTip = r.git(['rev-parse', BRANCH]).trim();
  });

  it('--dry-run writes nothing and says what it would do', () => {
    const was = refs(r);
    const res = r.entire(['migrate', '--to', 'refs', '--dry-run']);
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout).toContain(`Dry run: ${IDS.length} of ${IDS.length} checkpoints would be migrated`);
    expect(refs(r)).toBe(was);
  });

  it('copies every checkpoint to its ref, reads the same, leaves the branch as it is', () => {
    const res = r.entire(['migrate', '--to', 'refs']);
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout).toContain(`Migrated ${IDS.length} of ${IDS.length} checkpoints to refs (0 already migrated, 0 differ, 0 failed)`);
    expect(r.git(['rev-parse', BRANCH]).trim()).toBe(branchTip);
    for (const id of IDS) {
      const ref = refOf(id);
      // an orphan commit in Go's first-write form
      const parents = r.git(['rev-list', '--parents', '-n', '1', ref]).trim().split(' ');
      expect(parents).toHaveLength(1);
      const msg = r.git(['log', '-1', '--format=%B', ref]);
      expect(msg.startsWith(`Checkpoint: ${id}\n\nEntire-Session: `)).toBe(true);
      expect(msg).toContain('Entire-Strategy: manual-commit\n');
      // the same files as the branch's subtree; only the root summary's session paths differ
      const shard = `${id.slice(0, 2)}/${id.slice(2)}`;
      const files = (rev: string): string[] => r.git(['ls-tree', '-r', rev]).trim().split('\n');
      const onBranch = files(`${BRANCH}:${shard}`).filter((l) => !l.endsWith('\tmetadata.json'));
      const inRef = files(`${ref}^{tree}`).filter((l) => !l.endsWith('\tmetadata.json'));
      expect(inRef).toEqual(onBranch);
      const root = JSON.parse(r.git(['show', `${ref}:metadata.json`]));
      expect(root.checkpoint_id).toBe(id);
      for (const s of root.sessions) {
        expect(s.metadata).toMatch(/^\/\d+\/metadata\.json$/);
        expect(s.transcript).toMatch(/^\/\d+\/full\.jsonl$/);
      }
      expect(explainJson(r, id)).toEqual(before.get(id));
    }
    // the two sessions of our checkpoint
    const ours = JSON.parse(r.git(['show', `${refOf(OURS)}:metadata.json`]));
    expect(ours.sessions.map((s: { prompt: string }) => s.prompt)).toEqual(['/0/prompt.txt', '/1/prompt.txt']);
    // queued for the next push (§A.6)
    const common = r.git(['rev-parse', '--path-format=absolute', '--git-common-dir']).trim();
    const queued = readFileSync(join(common, 'entire-checkpoint-push-queue.jsonl'), 'utf8');
    for (const id of IDS) expect(queued).toContain(`{"ref":"${refOf(id)}"}`);
  });

  it('a second run writes nothing', () => {
    const was = refs(r);
    const res = r.entire(['migrate', '--to', 'refs']);
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout).toContain(`Migrated 0 of ${IDS.length} checkpoints to refs (${IDS.length} already migrated, 0 differ, 0 failed)`);
    expect(refs(r)).toBe(was);
  });


  it('the refs alone hold every checkpoint (branch deleted: explain reads the same)', () => {
    r.git(['update-ref', '-d', BRANCH]);
    for (const id of IDS) expect(explainJson(r, id)).toEqual(before.get(id));
  });
});

describe('a pre-existing ref that differs', () => {
  it('is reported and never overwritten; the others are migrated', async () => {
    const r = await seed();
    const victim = SAMPLE_IDS[0];
    const other = SAMPLE_IDS[1];
    // a ref for `victim` whose tree is another checkpoint's (a teammate's or a broken copy)
    const tree = r.git(['rev-parse', `${BRANCH}:${other.slice(0, 2)}/${other.slice(2)}`]).trim();
    const planted = r.git(['commit-tree', tree, '-m', `Checkpoint: ${victim}`]).trim();
    r.git(['update-ref', refOf(victim), planted]);
    const res = r.entire(['migrate', '--to', 'refs']);
    expect(res.status).toBe(1);
    expect(res.stdout).toContain(`${victim}: ${refOf(victim)} exists and differs from the branch copy`);
    expect(res.stdout).toContain(`Migrated ${IDS.length - 1} of ${IDS.length} checkpoints to refs (0 already migrated, 1 differ, 0 failed)`);
    expect(r.git(['rev-parse', refOf(victim)]).trim()).toBe(planted);
    for (const id of IDS) if (id !== victim) expect(r.git(['rev-parse', '--verify', '-q', refOf(id)]).trim()).not.toBe('');
  });
});

describe('entire migrate --to branch (the reverse, for hex-named refs)', () => {
  it('puts each hex ref on the branch, reads the same, leaves the refs; a ULID stays a ref; a second run writes nothing', () => {
    const r = makeRepo();
    const s = sampleSession();
    const hexA = '0123456789ab';
    const hexB = 'fedcba987654';
    const u = ulid(7);
    const cp = (id: string, sid: string, extra: Partial<GoCheckpoint> = {}): GoCheckpoint => ({
      id,
      sessions: [{ sessionId: sid, transcript: s.transcript, prompts: s.prompts, agent: 'Claude Code', compact: true }],
      ...extra,
    });
    writeGoCheckpoint(r, cp(hexA, 'sess-a'));
    writeGoCheckpoint(r, cp(hexB, 'sess-b', { sortedKeys: true }));
    writeGoCheckpoint(r, cp(u, 'sess-u'));
    for (const id of [hexA, hexB, u]) linkCommit(r, `work for ${id}`, [id]);
    const before = new Map([hexA, hexB, u].map((id) => [id, explainJson(r, id)]));
    const refsBefore = r.git(['for-each-ref', '--format=%(objectname) %(refname)', 'refs/entire/']);

    const dry = r.entire(['migrate', '--to', 'branch', '--dry-run']);
    expect(dry.status, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('Dry run: 2 of 2 checkpoints would be migrated to entire/checkpoints/v1');
    expect(r.gitResult(['rev-parse', '--verify', '-q', BRANCH]).status).not.toBe(0);

    const res = r.entire(['migrate', '--to', 'branch']);
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout).toContain('Migrated 2 of 2 checkpoints to entire/checkpoints/v1 (0 already migrated, 0 differ, 0 failed)');
    expect(r.git(['for-each-ref', '--format=%(objectname) %(refname)', 'refs/entire/'])).toBe(refsBefore);
    const listed = r.git(['ls-tree', '-r', '--name-only', BRANCH]).trim().split('\n');
    expect(listed.some((p) => p.startsWith('01/23456789ab/0/full.jsonl'))).toBe(true);
    expect(listed.some((p) => p.startsWith('fe/dcba987654/0/'))).toBe(true);
    expect(listed.some((p) => p.includes(u))).toBe(false);
    const root = JSON.parse(r.git(['show', `${BRANCH}:01/23456789ab/metadata.json`]));
    expect(root.sessions[0].transcript).toBe('/01/23456789ab/0/full.jsonl');

    const tip = r.git(['rev-parse', BRANCH]).trim();
    const again = r.entire(['migrate', '--to', 'branch']);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toContain('Migrated 0 of 2 checkpoints to entire/checkpoints/v1 (2 already migrated, 0 differ, 0 failed)');
    expect(r.git(['rev-parse', BRANCH]).trim()).toBe(tip);

    // the branch alone holds the hex ones now: drop their refs, explain reads the same
    for (const id of [hexA, hexB]) r.git(['update-ref', '-d', refOf(id)]);
    for (const id of [hexA, hexB, u]) expect(explainJson(r, id)).toEqual(before.get(id));
  });
});
