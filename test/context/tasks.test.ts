import { describe, it, expect, afterAll } from 'vitest';
import { cleanupAll } from '../helpers/repo.js';
import { FakeClaude } from '../helpers/agent.js';
import { enabledRepo, commit, headMessage, trailerIds, showCheckpointFile, stateOf } from '../e2e/helpers.js';

afterAll(cleanupAll);

describe('ENTIRE_TASK_ID and `entire tasks` (SPEC-2 §F.1)', () => {
  it('records the task in the state and the slot, counts attempts, and lists both threads newest first', () => {
    const r = enabledRepo();
    const a = new FakeClaude(r);
    a.hookEnv = { ENTIRE_TASK_ID: 'T-1' };
    a.sessionStart();
    a.prompt('Add a.txt with a greeting');
    a.write('a.txt', 'hi\n');
    a.say('Added a.txt.');
    expect(a.stop().status).toBe(0);
    a.prompt('Try again with a longer greeting');
    a.write('a.txt', 'hello there\n');
    a.say('Done.');
    expect(a.stop().status).toBe(0);
    expect(stateOf(r, a.sessionId)).toMatchObject({ task_id: 'T-1', task_attempts: 2 });
    r.git(['add', 'a.txt']);
    expect(commit(r, ['-m', 'a']).status).toBe(0);
    const [id] = trailerIds(headMessage(r));
    const meta = JSON.parse(showCheckpointFile(r, id!, '0/metadata.json')) as Record<string, unknown>;
    expect(meta['task_id']).toBe('T-1');
    // the key follows `agent` (SPEC-2 §F.1)
    const keys = Object.keys(meta);
    expect(keys.indexOf('task_id')).toBe(keys.indexOf('agent') + 1);

    const b = new FakeClaude(r);
    b.hookEnv = { ENTIRE_TASK_ID: 'T-1' };
    b.prompt('Retry the greeting task from scratch');
    b.say('Nothing to do.');
    expect(b.stop().status).toBe(0);
    // an invalid id is ignored
    const c = new FakeClaude(r);
    c.hookEnv = { ENTIRE_TASK_ID: 'bad id; rm -rf' };
    c.prompt('Unrelated work here');
    expect(c.stop().status).toBe(0);
    expect(stateOf(r, c.sessionId)['task_id']).toBeUndefined();

    const res = r.entire(['tasks', '--json']);
    expect(res.status, res.stderr).toBe(0);
    const doc = JSON.parse(res.stdout) as { tasks: { task_id: string; threads: { session_id: string; agent: string; attempt_count: number; created_at: string; last_used_at: string }[] }[] };
    expect(doc.tasks.map((t) => t.task_id)).toEqual(['T-1']);
    const threads = doc.tasks[0]!.threads;
    expect(threads.map((t) => t.session_id)).toEqual([b.sessionId, a.sessionId]);
    expect(threads.map((t) => t.attempt_count)).toEqual([1, 2]);
    expect(threads[1]!.agent).toBe('Claude Code');
    expect(Date.parse(threads[1]!.last_used_at)).toBeGreaterThanOrEqual(Date.parse(threads[1]!.created_at));

    const text = r.entire(['tasks']);
    expect(text.stdout).toContain('Task T-1');
    expect(text.stdout).toContain(`${a.sessionId}  2 attempts`);
  });
});
