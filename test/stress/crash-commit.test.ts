/**
 * Crash at any point of the git side (issue 6 §1): `git commit` runs with
 * ENTIRE_TEST_FAULT naming a point inside prepare-commit-msg or post-commit;
 * the CLI SIGKILLs itself there. The commit must exist anyway (fail-open),
 * the repository and states stay valid, the metadata branch only moves
 * forward, and the next hook (or `entire doctor --force`) finishes the work:
 * every trailer resolves to a checkpoint holding the session's transcript.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupAll, type TempRepo } from '../helpers/repo.js';
import { FakeClaude } from '../helpers/agent.js';
import { enabledRepo, commit, headMessage, trailerIds, showCheckpointFile, checkpointIds } from '../e2e/helpers.js';
import { armFault, count, refOid, METADATA, expectFastForward, expectFsck, statesParse, expectTrailersResolve, expectHookOk, expectNoLocks } from './helpers.js';

afterAll(cleanupAll);

type Next = 'prompt' | 'stop' | 'doctor' | 'commit';

interface Crashed {
  r: TempRepo;
  agent: FakeClaude;
  tip0: string | null;
  head: string;
}

/** After the kill: git's commit landed, nothing is corrupt, nothing the user made is lost. */
function expectIntactAfterCrash(r: TempRepo, tip0: string | null, files: Record<string, string>): void {
  expectFsck(r);
  statesParse(r);
  expectFastForward(r, tip0);
  for (const [f, content] of Object.entries(files)) expect(readFileSync(join(r.dir, f), 'utf8'), f).toBe(content);
}

function runNext(c: Crashed, next: Next): void {
  const { r, agent } = c;
  if (next === 'prompt') expectHookOk(agent.prompt('and now c'), 'next prompt');
  else if (next === 'stop') expectHookOk(agent.stop(), 'next stop');
  else if (next === 'doctor') {
    const d = r.entire(['doctor', '--force']);
    expect(d.status, d.stdout + d.stderr).toBe(0);
  } else {
    r.write('unrelated.txt', 'x\n');
    r.git(['add', 'unrelated.txt']);
    expect(commit(r, ['-m', 'unrelated']).status).toBe(0);
  }
}

/** The checkpoint of `id` exists and holds `marker` in slot 0's transcript. */
function expectCheckpointHolds(r: TempRepo, id: string, marker: string): void {
  expect(checkpointIds(r)).toContain(id);
  expect(showCheckpointFile(r, id, '0/full.jsonl')).toContain(marker);
}

// The person commits after the turn ended (IDLE); b.go stays out of the commit (carry-forward).
const PERSON_POINTS = [
  'prepare-commit-msg:prepare-commit-msg-before-message',
  'prepare-commit-msg:prepare-commit-msg-after-message',
  'prepare-commit-msg:prepare-commit-msg-after-intent',
  'post-commit:state-locked',
  'post-commit:post-commit-before-condense',
  'post-commit:cas-before-update-ref',
  'post-commit:cas-after-update-ref',
  'post-commit:post-commit-after-condense',
  'post-commit:post-commit-before-carry-forward',
  'post-commit:cas-before-update-ref#2',
  'post-commit:cas-after-update-ref#2',
  'post-commit:post-commit-before-state-save',
  'post-commit:atomic-write-before-rename',
  'post-commit:state-saved-before-index',
  'post-commit:post-commit-before-intent-delete',
  'post-commit:post-commit-after-intent-delete',
  'post-commit:post-commit-before-shadow-delete',
];
const NEXTS: Next[] = ['prompt', 'doctor', 'commit'];

describe('crash during a person’s commit (IDLE session, carry-forward)', () => {
  PERSON_POINTS.forEach((point, i) => {
    const next = NEXTS[i % NEXTS.length]!;
    it(`${point}, then ${next}`, () => {
      count('fault points');
      const r = enabledRepo();
      const agent = new FakeClaude(r);
      agent.prompt('write a and b');
      agent.write('a.go', 'package a\n');
      agent.write('b.go', 'package b\n');
      agent.say('wrote a and b MARKER-ONE');
      expectHookOk(agent.stop(), 'stop');
      r.git(['add', 'a.go']);
      const tip0 = refOid(r, METADATA);
      const before = r.git(['rev-parse', 'HEAD']).trim();
      const f = armFault(r, point);
      const res = commit(r, ['-m', 'add a'], { env: f.env });
      expect(res.status, res.stderr).toBe(0);
      expect(f.fired(), `fault point ${point} was never reached`).toBe(true);
      const head = r.git(['rev-parse', 'HEAD']).trim();
      expect(head).not.toBe(before);
      expect(r.git(['ls-tree', '--name-only', 'HEAD'])).toContain('a.go');
      expectIntactAfterCrash(r, tip0, { 'a.go': 'package a\n', 'b.go': 'package b\n' });

      const c: Crashed = { r, agent, tip0, head };
      runNext(c, next);
      expectFsck(r);
      statesParse(r);
      expectFastForward(r, tip0);
      const ids = trailerIds(headMessage(r, head));
      expectTrailersResolve(r);
      for (const id of ids) expectCheckpointHolds(r, id, 'MARKER-ONE');
      if (next !== 'doctor') {
        // whatever the next hook was, doctor finds nothing stuck (a shadow branch
        // a killed post-commit did not get to delete is garbage `clean` removes)
        const d = r.entire(['doctor']);
        expect(d.status, d.stdout).toBe(0);
        const findings = d.stdout.split('\n').filter((l) => l.startsWith('[found]') && !l.includes('orphan-shadow-branch'));
        expect(findings, d.stdout).toEqual([]);
      }

      // nothing lost: b.go is still the session's work and reaches a checkpoint
      if (next === 'prompt') {
        agent.say('MARKER-TWO');
        expectHookOk(agent.stop(), 'stop');
      }
      r.git(['add', 'b.go']);
      expect(commit(r, ['-m', 'add b']).status).toBe(0);
      const idsB = trailerIds(headMessage(r));
      expect(idsB.length, 'b.go was forgotten: its commit got no checkpoint').toBe(1);
      expectTrailersResolve(r);
      expectCheckpointHolds(r, idsB[0]!, 'MARKER-ONE');
      expectFsck(r);
      expectFastForward(r, tip0);
      expectNoLocks(r);
    });
  });
});

// The agent commits in the middle of its turn (ACTIVE): the checkpoint is provisional
// and the Stop hook must finalize it with the whole turn.
const AGENT_POINTS = [
  'post-commit:post-commit-before-condense',
  'post-commit:cas-before-update-ref',
  'post-commit:post-commit-after-condense',
  'post-commit:post-commit-before-state-save',
  'post-commit:atomic-write-before-rename',
  'post-commit:state-saved-before-index',
  'post-commit:post-commit-before-intent-delete',
  'post-commit:post-commit-after-intent-delete',
  'prepare-commit-msg:prepare-commit-msg-after-message',
];

describe('crash during an agent’s mid-turn commit (ACTIVE session)', () => {
  AGENT_POINTS.forEach((point, i) => {
    const next: Next = i % 3 === 2 ? 'doctor' : 'stop';
    it(`${point}, then ${next}`, () => {
      count('fault points');
      const r = enabledRepo();
      const agent = new FakeClaude(r);
      agent.prompt('write a and commit it');
      agent.write('a.go', 'package a\n');
      agent.say('MARKER-ONE');
      r.git(['add', 'a.go']);
      const tip0 = refOid(r, METADATA);
      const f = armFault(r, point);
      const res = commit(r, ['-m', 'add a'], { env: f.env });
      expect(res.status, res.stderr).toBe(0);
      expect(f.fired(), `fault point ${point} was never reached`).toBe(true);
      const head = r.git(['rev-parse', 'HEAD']).trim();
      expectIntactAfterCrash(r, tip0, { 'a.go': 'package a\n' });
      agent.bash('git commit -m "add a"', 'committed');
      agent.say('after the commit MARKER-TWO');
      runNext({ r, agent, tip0, head }, next);
      expectFsck(r);
      expectFastForward(r, tip0);
      const ids = expectTrailersResolve(r);
      const sid = agent.sessionId;
      if (next === 'stop') {
        // the turn ended: the checkpoint was finalized with the whole turn
        for (const id of ids) expectCheckpointHolds(r, id, 'MARKER-TWO');
        const st = statesParse(r).get(sid)!;
        expect(st['turn_checkpoint_ids'], JSON.stringify(st)).toBeUndefined();
        expect(st['pending_condensations'], JSON.stringify(st)).toBeUndefined();
      } else {
        for (const id of ids) expectCheckpointHolds(r, id, 'MARKER-ONE');
        expectHookOk(agent.stop(), 'stop');
        for (const id of ids) expectCheckpointHolds(r, id, 'MARKER-TWO');
      }
      expectNoLocks(r);
    });
  });
});

// Three sessions: A and B are in the commit (one checkpoint, two slots), C is not
// (it follows HEAD: its shadow branch is migrated). The kill lands between them.
const MULTI_POINTS = [
  'post-commit:post-commit-after-condense',
  'post-commit:post-commit-before-condense#2',
  'post-commit:cas-before-update-ref#2',
  'post-commit:post-commit-before-state-save#2',
  'post-commit:post-commit-after-intent-delete',
  'post-commit:post-commit-before-shadow-delete',
  'post-commit:state-locked#3',
];

describe('crash between the sessions of one commit (two condensed, one migrated)', () => {
  MULTI_POINTS.forEach((point, i) => {
    const next: Next = i % 2 === 0 ? 'prompt' : 'doctor';
    it(`${point}, then ${next}`, () => {
      count('fault points');
      const r = enabledRepo();
      const [a, b, c] = [new FakeClaude(r), new FakeClaude(r), new FakeClaude(r)];
      for (const [s, f] of [[a, 'a'], [b, 'b'], [c, 'c']] as const) {
        s.prompt(`write ${f}`);
        s.write(`${f}.go`, `package ${f}\n`);
        s.say(`MARKER-${f.toUpperCase()}`);
        expectHookOk(s.stop(), 'stop');
      }
      r.git(['add', 'a.go', 'b.go']);
      const tip0 = refOid(r, METADATA);
      const f = armFault(r, point);
      const res = commit(r, ['-m', 'a and b'], { env: f.env });
      expect(res.status, res.stderr).toBe(0);
      expect(f.fired(), `fault point ${point} was never reached`).toBe(true);
      const [id] = trailerIds(headMessage(r));
      expect(id).toBeDefined();
      expectIntactAfterCrash(r, tip0, { 'a.go': 'package a\n', 'b.go': 'package b\n', 'c.go': 'package c\n' });
      runNext({ r, agent: a, tip0, head: '' }, next);
      expectFsck(r);
      expectFastForward(r, tip0);
      expectTrailersResolve(r);
      // both sessions of the commit have their slot, each with its own transcript
      const slots = [0, 1].map((n) => showCheckpointFile(r, id!, `${n}/full.jsonl`)).join('\n');
      expect(slots).toContain('MARKER-A');
      expect(slots).toContain('MARKER-B');
      // C's work is not lost: its next commit links C's transcript
      r.git(['add', 'c.go']);
      expect(commit(r, ['-m', 'c']).status).toBe(0);
      const [idC] = trailerIds(headMessage(r));
      expect(idC, 'c.go was forgotten').toBeDefined();
      expectTrailersResolve(r);
      expect(showCheckpointFile(r, idC!, '0/full.jsonl')).toContain('MARKER-C');
      expectFsck(r);
      expectNoLocks(r);
    });
  });
});

// An amend keeps the ID and rewrites the session's slot.
const AMEND_POINTS = ['post-commit:post-commit-before-condense', 'post-commit:cas-before-update-ref', 'post-commit:post-commit-before-state-save', 'prepare-commit-msg:prepare-commit-msg-after-intent'];

describe('crash during an amend', () => {
  AMEND_POINTS.forEach((point, i) => {
    const next: Next = i % 2 === 0 ? 'prompt' : 'doctor';
    it(`${point}, then ${next}`, () => {
      count('fault points');
      const r = enabledRepo();
      const agent = new FakeClaude(r);
      agent.prompt('write a');
      agent.write('a.go', 'package a\n');
      agent.say('MARKER-ONE');
      expectHookOk(agent.stop(), 'stop');
      r.git(['add', 'a.go']);
      expect(commit(r, ['-m', 'a']).status).toBe(0);
      const [id] = trailerIds(headMessage(r));
      agent.prompt('fix a');
      agent.write('a.go', 'package a // fixed\n');
      agent.say('MARKER-TWO');
      expectHookOk(agent.stop(), 'stop');
      r.git(['add', 'a.go']);
      const tip0 = refOid(r, METADATA);
      const f = armFault(r, point);
      const res = commit(r, ['--amend', '--no-edit'], { env: f.env });
      expect(res.status, res.stderr).toBe(0);
      expect(f.fired(), `fault point ${point} was never reached`).toBe(true);
      expect(trailerIds(headMessage(r)), 'the amend lost its trailer').toEqual([id]);
      expectIntactAfterCrash(r, tip0, { 'a.go': 'package a // fixed\n' });
      runNext({ r, agent, tip0, head: '' }, next);
      expectFsck(r);
      expectFastForward(r, tip0);
      expectTrailersResolve(r);
      expect(showCheckpointFile(r, id!, '0/full.jsonl')).toContain('MARKER-TWO');
    });
  });
});
