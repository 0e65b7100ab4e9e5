/**
 * SPEC-2 §C.0: a session end with no turn end since the last turn start (a headless run whose
 * agent fires no Stop, a turn cut short) first records that turn, as a turn start would.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { cleanupAll } from '../helpers/repo.js';
import { world, commit, headMessage, trailerIds, showCheckpointFile, stateOf } from './helpers.js';

afterAll(cleanupAll);

describe('session end over an open turn (SPEC-2 §C.0)', () => {
  it('records the turn (its step, files and transcript) before ending the session; a commit then links it', () => {
    const { r, agent } = world();
    agent.sessionStart();
    agent.prompt('write a.go');
    agent.write('a.go', 'package a\n');
    agent.say('Wrote a.go without a Stop.');
    expect(agent.sessionEnd().status).toBe(0);
    const s = stateOf(r, agent.sessionId);
    expect(s['phase']).toBe('ended');
    expect(s['checkpoint_count']).toBe(1);
    expect(s['files_touched']).toEqual(['a.go']);

    r.git(['add', 'a.go']);
    const c = commit(r, ['-m', 'a.go']);
    expect(c.status, c.stderr).toBe(0);
    const [id] = trailerIds(headMessage(r));
    expect(id).toMatch(/^[0-9a-f]{12}$/);
    expect(showCheckpointFile(r, id!, '0/full.jsonl')).toContain('Wrote a.go without a Stop.');
    expect(showCheckpointFile(r, id!, '0/prompt.txt')).toBe('write a.go');
  });
});
