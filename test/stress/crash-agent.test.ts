/**
 * Crash at any point of the agent side (issue 6 §1): the Stop hook, the
 * turn-start hook (which also records an interrupted turn), session end and
 * a subagent step SIGKILL themselves at a fault point. Afterwards the repo
 * and states are valid, the metadata branch only moved forward, and the
 * next hook records the step and finishes every pending finalization.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { cleanupAll, type TempRepo } from '../helpers/repo.js';
import { FakeClaude } from '../helpers/agent.js';
import { enabledRepo, commit, headMessage, trailerIds, showCheckpointFile, shadowBranches } from '../e2e/helpers.js';
import { armFault, count, refOid, METADATA, expectFastForward, expectFsck, statesParse, expectTrailersResolve, expectHookOk, expectNoLocks } from './helpers.js';

afterAll(cleanupAll);

function expectIntact(r: TempRepo, tip0: string | null, files: Record<string, string>): void {
  expectFsck(r);
  statesParse(r);
  expectFastForward(r, tip0);
  for (const [f, content] of Object.entries(files)) expect(readFileSync(join(r.dir, f), 'utf8'), f).toBe(content);
}

/** The session's work on `path` is on the shadow branch of HEAD and in files_touched. */
function expectStepHolds(r: TempRepo, sid: string, path: string): void {
  const head7 = r.git(['rev-parse', '--short=7', 'HEAD']).trim();
  const branch = `entire/${head7}-e3b0c4`;
  expect(shadowBranches(r), 'no shadow branch for HEAD').toContain(branch);
  expect(r.git(['ls-tree', '-r', '--name-only', branch]).split('\n')).toContain(path);
  expect(statesParse(r).get(sid)!['files_touched']).toContain(path);
}

function hookWithFault(agent: FakeClaude, verb: 'stop' | 'prompt' | 'session-end', point: string): void {
  const f = armFault(agent.repo, point);
  let res;
  if (verb === 'stop') res = agent.stop(f.env);
  else if (verb === 'session-end') res = agent.hook('session-end', { reason: 'exit' }, f.env);
  else res = agent.hook('user-prompt-submit', { prompt: 'go on' }, f.env);
  if (verb === 'stop') {
    // the Stop hook hands the turn end to a worker (src/strategy/turn-end-worker.ts): the
    // worker is what dies there, and the hook the agent waited on has already returned
    expect(res.status, res.stderr).toBe(0);
  } else {
    expect(res.status, 'a killed hook exits by SIGKILL').toBeNull();
    expect(res.signal).toBe('SIGKILL');
  }
  expect(f.fired(), `fault point ${point} was never reached`).toBe(true);
}

const STOP_POINTS = [
  'stop:state-locked',
  'stop:stop-before-step',
  'stop:cas-before-update-ref',
  'stop:cas-after-update-ref',
  'stop:stop-after-step',
  'stop:stop-before-save',
  'stop:atomic-write-before-rename',
  'stop:state-saved-before-index',
  'stop:stop-after-save',
];

describe('crash in the Stop hook of a plain turn', () => {
  STOP_POINTS.forEach((point, i) => {
    const next = i % 2 === 0 ? 'stop' : 'prompt';
    it(`${point}, then ${next}`, () => {
      count('fault points');
      const r = enabledRepo();
      const agent = new FakeClaude(r);
      agent.prompt('write a');
      agent.write('a.go', 'package a\n');
      agent.say('MARKER-ONE');
      const tip0 = refOid(r, METADATA);
      hookWithFault(agent, 'stop', point);
      expectIntact(r, tip0, { 'a.go': 'package a\n' });
      if (next === 'stop') {
        expectHookOk(agent.stop(), 're-run stop');
        expect(statesParse(r).get(agent.sessionId)!['phase']).toBe('idle');
      } else {
        expectHookOk(agent.prompt('and b'), 'next prompt');
        expect(statesParse(r).get(agent.sessionId)!['phase']).toBe('active');
      }
      expectStepHolds(r, agent.sessionId, 'a.go');
      expectFsck(r);
      if (next === 'prompt') expectHookOk(agent.stop(), 'stop');
      r.git(['add', 'a.go']);
      expect(commit(r, ['-m', 'a']).status).toBe(0);
      const [id] = trailerIds(headMessage(r));
      expect(id, 'the turn’s work was lost: no checkpoint for a.go').toBeDefined();
      expectTrailersResolve(r);
      expect(showCheckpointFile(r, id!, '0/full.jsonl')).toContain('MARKER-ONE');
      expectFastForward(r, tip0);
      expectNoLocks(r);
    });
  });
});

/** A turn that committed a.go mid-turn (provisional checkpoint) and then wrote b.go. */
function midTurn(): { r: TempRepo; agent: FakeClaude; id: string; tip0: string | null } {
  const r = enabledRepo();
  const agent = new FakeClaude(r);
  agent.prompt('write a, commit, then b');
  agent.write('a.go', 'package a\n');
  agent.say('MARKER-ONE');
  r.git(['add', 'a.go']);
  expect(commit(r, ['-m', 'a']).status).toBe(0);
  const [id] = trailerIds(headMessage(r));
  expect(id).toBeDefined();
  agent.write('b.go', 'package b\n');
  agent.say('after the commit MARKER-TWO');
  return { r, agent, id: id!, tip0: refOid(r, METADATA) };
}

function expectFinalized(r: TempRepo, agent: FakeClaude, id: string): void {
  expect(showCheckpointFile(r, id, '0/full.jsonl'), 'finalization lost').toContain('MARKER-TWO');
  const st = statesParse(r).get(agent.sessionId)!;
  expect(st['turn_checkpoint_ids'], JSON.stringify(st)).toBeUndefined();
  expect(r.git(['log', '--format=%s', 'entire/checkpoints/v1'])).toContain(`Finalize transcript for Checkpoint: ${id}`);
}

const FINALIZE_POINTS = [
  'stop:cas-before-update-ref',
  'stop:finalize-before-update',
  'stop:cas-before-update-ref#2',
  'stop:cas-after-update-ref#2',
  'stop:finalize-after-update',
  'stop:stop-before-save',
  'stop:stop-after-save',
];

describe('crash in the Stop hook while finalizing a mid-turn checkpoint', () => {
  FINALIZE_POINTS.forEach((point, i) => {
    const next = i % 2 === 0 ? 'stop' : 'prompt';
    it(`${point}, then ${next}`, () => {
      count('fault points');
      const { r, agent, id, tip0 } = midTurn();
      hookWithFault(agent, 'stop', point);
      expectIntact(r, tip0, { 'a.go': 'package a\n', 'b.go': 'package b\n' });
      expectTrailersResolve(r);
      if (next === 'stop') expectHookOk(agent.stop(), 're-run stop');
      else expectHookOk(agent.prompt('next'), 'next prompt');
      expectFinalized(r, agent, id);
      expectStepHolds(r, agent.sessionId, 'b.go');
      expectFsck(r);
      expectFastForward(r, tip0);
      expectNoLocks(r);
    });
  });
});

const TURN_START_POINTS = [
  'user-prompt-submit:state-locked',
  'user-prompt-submit:cas-before-update-ref',
  'user-prompt-submit:finalize-before-update',
  'user-prompt-submit:cas-before-update-ref#2',
  'user-prompt-submit:finalize-after-update',
  'user-prompt-submit:turn-start-after-interrupted-turn',
  'user-prompt-submit:turn-start-after-pre-prompt',
  'user-prompt-submit:atomic-write-before-rename',
  'user-prompt-submit:state-saved-before-index',
  'user-prompt-submit:turn-start-after-save',
];

describe('crash at turn start after an interrupted turn (its Stop never ran)', () => {
  TURN_START_POINTS.forEach((point, i) => {
    const next = i % 2 === 0 ? 'stop' : 'prompt';
    it(`${point}, then ${next}`, () => {
      count('fault points');
      const { r, agent, id, tip0 } = midTurn();
      hookWithFault(agent, 'prompt', point);
      expectIntact(r, tip0, { 'a.go': 'package a\n', 'b.go': 'package b\n' });
      if (next === 'stop') expectHookOk(agent.stop(), 'stop');
      else {
        expectHookOk(agent.prompt('again'), 'prompt again');
        expectHookOk(agent.stop(), 'stop');
      }
      expectFinalized(r, agent, id);
      expectStepHolds(r, agent.sessionId, 'b.go');
      expect(statesParse(r).get(agent.sessionId)!['phase']).toBe('idle');
      expectFsck(r);
      expectFastForward(r, tip0);
      expectNoLocks(r);
    });
  });
});

describe('crash in session end and in a subagent step', () => {
  it('session-end:finalize-before-update, then session-end again', () => {
    count('fault points');
    const { r, agent, id, tip0 } = midTurn();
    hookWithFault(agent, 'session-end', 'session-end:finalize-before-update');
    expectIntact(r, tip0, { 'a.go': 'package a\n' });
    expectHookOk(agent.sessionEnd(), 'session-end');
    expectFinalized(r, agent, id);
    expect(statesParse(r).get(agent.sessionId)!['phase']).toBe('ended');
  });

  for (const point of ['post-task:cas-before-update-ref', 'post-task:atomic-write-before-rename']) {
    it(`${point}, then the next post-task`, () => {
      count('fault points');
      const r = enabledRepo();
      const agent = new FakeClaude(r);
      agent.prompt('use a subagent');
      expectHookOk(agent.hook('pre-task', { tool_use_id: 'toolu_task1', tool_name: 'Task', tool_input: { description: 'd', subagent_type: 'x' } }), 'pre-task');
      const sub = join(dirname(agent.transcriptPath), 'agent-sub1.jsonl');
      mkdirSync(dirname(sub), { recursive: true });
      writeFileSync(sub, JSON.stringify({ type: 'assistant', uuid: 'u1', message: { id: 'm1', role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'Write', input: { file_path: join(r.dir, 's.go'), content: 'x' } }] } }) + '\n');
      writeFileSync(join(r.dir, 's.go'), 'package s\n');
      const tip0 = refOid(r, METADATA);
      const f = armFault(r, point);
      const input = { tool_use_id: 'toolu_task1', tool_name: 'Task', tool_input: { description: 'd' }, tool_response: { agentId: 'sub1' } };
      const killed = agent.hook('post-task', input, f.env);
      expect(killed.signal).toBe('SIGKILL');
      expect(f.fired(), `fault point ${point} was never reached`).toBe(true);
      expectIntact(r, tip0, { 's.go': 'package s\n' });
      expectHookOk(agent.hook('post-task', input), 'post-task again');
      expectHookOk(agent.stop(), 'stop');
      expectStepHolds(r, agent.sessionId, 's.go');
      expectFsck(r);
    });
  }
});

describe('crash in the very first prompt of a session (no state yet)', () => {
  for (const point of ['user-prompt-submit:state-locked', 'user-prompt-submit:atomic-write-before-rename', 'user-prompt-submit:turn-start-after-save']) {
    it(`${point}, then the turn's Stop`, () => {
      count('fault points');
      const r = enabledRepo();
      const agent = new FakeClaude(r);
      const f = armFault(r, point);
      const res = agent.hook('user-prompt-submit', { prompt: 'write a' }, f.env);
      expect(res.signal).toBe('SIGKILL');
      expect(f.fired(), `fault point ${point} was never reached`).toBe(true);
      agent.write('a.go', 'package a\n');
      agent.say('MARKER-ONE');
      expectHookOk(agent.stop(), 'stop');
      expectStepHolds(r, agent.sessionId, 'a.go');
      r.git(['add', 'a.go']);
      expect(commit(r, ['-m', 'a']).status).toBe(0);
      const [id] = trailerIds(headMessage(r));
      expect(id, 'the turn’s work was not linked').toBeDefined();
      expect(showCheckpointFile(r, id!, '0/full.jsonl')).toContain('MARKER-ONE');
      expectFsck(r);
      expectNoLocks(r);
    });
  }
});
