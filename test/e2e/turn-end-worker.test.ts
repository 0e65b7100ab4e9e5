/**
 * The turn-end hook hands its work to a detached worker (src/strategy/turn-end-worker.ts).
 * Every other test keeps the worker on the hook's pipes (ENTIRE_WORKER_STDIO=inherit in
 * test/helpers/repo.ts); these run it as agents do, detached, and check that order and
 * results are those of a hook that did everything itself.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupAll, tempDir } from '../helpers/repo.js';
import { world, commit, headMessage, trailerIds, showCheckpointFile, stateOf } from './helpers.js';
import type { TempRepo } from '../helpers/repo.js';

afterAll(cleanupAll);

const DETACHED = { ENTIRE_WORKER_STDIO: undefined };

function sessionsDir(r: TempRepo): string {
  return join(r.dir, '.git', 'entire-sessions');
}

/** Wait (bounded, on a condition) until no session lock is held. */
async function settled(r: TempRepo): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (readdirSync(sessionsDir(r)).some((n) => n.endsWith('.lock'))) {
    if (Date.now() > deadline) throw new Error('a session lock is still held');
    await new Promise((res) => setTimeout(res, 10));
  }
}

describe('the turn end runs in a detached worker', () => {
  it('the next prompt, sent the moment Stop returns, still comes after the whole turn end', async () => {
    const { r, agent } = world();
    agent.sessionStart();
    agent.prompt('write a.go');
    agent.write('a.go', 'package a\n');
    agent.say('Wrote a.go.');
    expect(agent.stop(DETACHED).status).toBe(0);
    // no wait: the turn start must queue behind the worker on the session lock
    expect(agent.hook('user-prompt-submit', { prompt: 'now b.go' }, DETACHED).status).toBe(0);
    await settled(r);
    const s = stateOf(r, agent.sessionId);
    expect(s['phase']).toBe('active');
    expect(s['checkpoint_count']).toBe(1); // the first turn's step was written before the second turn began
    expect(s['files_touched']).toEqual(['a.go']);
    expect(readdirSync(sessionsDir(r)).filter((n) => n.endsWith('.handover'))).toEqual([]);
  });

  it('a commit right after Stop is linked to a checkpoint with the whole turn', async () => {
    const { r, agent } = world();
    agent.sessionStart();
    agent.prompt('write a.go');
    agent.write('a.go', 'package a\n');
    agent.say('Wrote a.go, all done.');
    expect(agent.stop(DETACHED).status).toBe(0);
    r.git(['add', 'a.go']);
    const c = commit(r, ['-m', 'a.go'], { env: DETACHED });
    expect(c.status, c.stderr).toBe(0);
    await settled(r);
    const [id] = trailerIds(headMessage(r));
    expect(id).toMatch(/^[0-9a-f]{12}$/);
    expect(showCheckpointFile(r, id!, '0/full.jsonl')).toContain('Wrote a.go, all done.');
    expect(stateOf(r, agent.sessionId)['phase']).toBe('idle');
  });

  it('a session end while the worker still works does not wait: the worker ends the session when its turn end is done', async () => {
    const { r, agent } = world();
    agent.sessionStart();
    agent.prompt('write a.go');
    agent.write('a.go', 'package a\n');
    // Stop names a last reply the transcript does not hold yet: the worker waits for it (the flush)
    const stop = agent.hook('stop', { stop_hook_active: false, last_assistant_message: 'Wrote a.go, bye.' }, { ...DETACHED, ENTIRE_STOP_WAIT_MS: '25000' });
    expect(stop.status).toBe(0);
    const end = agent.hook('session-end', { reason: 'prompt_input_exit' }, DETACHED);
    expect(end.status).toBe(0);
    // the session end returned while the worker held the lock: it left the end to it
    expect(readFileSync(join(r.dir, '.entire', 'logs', 'entire.log'), 'utf8')).toContain('deferred_to_worker');
    expect(existsSync(join(sessionsDir(r), `${agent.sessionId}.end`))).toBe(true);
    expect(stateOf(r, agent.sessionId)['phase']).toBe('active');
    agent.say('Wrote a.go, bye.'); // the transcript catches up: the worker goes on
    const deadline = Date.now() + 30_000;
    while (stateOf(r, agent.sessionId)['phase'] !== 'ended') {
      if (Date.now() > deadline) throw new Error('the session was never ended');
      await new Promise((res) => setTimeout(res, 20));
    }
    await settled(r);
    const s = stateOf(r, agent.sessionId);
    expect(s['checkpoint_count']).toBe(1); // the turn end ran first, then the end
    expect(s['files_touched']).toEqual(['a.go']);
    expect(typeof s['ended_at']).toBe('string');
    expect(existsSync(join(sessionsDir(r), `${agent.sessionId}.end`))).toBe(false);
  });

  it('a session end with no worker at work ends the session itself and leaves no marker', () => {
    const { r, agent } = world();
    agent.sessionStart();
    agent.prompt('hi');
    agent.say('hello');
    expect(agent.stop().status).toBe(0);
    expect(agent.sessionEnd().status).toBe(0);
    expect(stateOf(r, agent.sessionId)['phase']).toBe('ended');
    expect(readdirSync(sessionsDir(r)).filter((n) => n.endsWith('.end'))).toEqual([]);
  });

  it('ENTIRE_HANDOVER naming any other file is not ours: the file is neither read nor removed, the hook reads its stdin', async () => {
    const { r, agent } = world();
    const victim = join(tempDir(), 'precious.txt');
    writeFileSync(victim, 'keep me\n');
    agent.prompt('hi');
    agent.say('hello');
    const res = agent.stop({ ENTIRE_HANDOVER: victim });
    expect(res.status).toBe(0);
    expect(existsSync(victim)).toBe(true);
    await settled(r);
    // an ordinary hook then, on its own stdin
    expect(stateOf(r, agent.sessionId)['phase']).toBe('idle');
  });
});
