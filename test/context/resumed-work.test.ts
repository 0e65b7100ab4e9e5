import { describe, it, expect, afterAll } from 'vitest';
import { cleanupAll } from '../helpers/repo.js';
import { world, commit, headMessage, trailerIds, checkpointIds } from '../e2e/helpers.js';

afterAll(cleanupAll);

describe('status --json and doctor count resumed and pending hook operations (issue 19)', () => {
  it('a post-commit killed before condensing is finished by the next hook and counted', () => {
    const { r, agent } = world();
    agent.prompt('Add a.txt with some text please');
    agent.write('a.txt', 'x\n');
    agent.say('Added.');
    expect(agent.stop().status).toBe(0);
    r.git(['add', 'a.txt']);
    commit(r, ['-m', 'a'], { env: { ENTIRE_TEST_FAULT: 'post-commit-before-condense' } });
    const [id] = trailerIds(headMessage(r));
    expect(checkpointIds(r)).not.toContain(id);
    const before = JSON.parse(r.entire(['status', '--json']).stdout) as { hook_operations: { resumed_pending_work: number } };
    expect(before.hook_operations.resumed_pending_work).toBe(0);
    // the next hook finds the interrupted commit's intent and writes its checkpoint
    agent.prompt('Next task: nothing more to do');
    expect(checkpointIds(r)).toContain(id);
    const after = JSON.parse(r.entire(['status', '--json']).stdout) as { hook_operations: { resumed_pending_work: number; resumed: Record<string, number>; still_pending: number } };
    expect(after.hook_operations).toEqual({ resumed_pending_work: 1, resumed: { condensations: 0, finalizations: 0, commit_intents: 1 }, still_pending: 0 });
    const doctor = r.entire(['doctor']);
    expect(doctor.stdout).toContain('Hook operations: 1 resumed pending work (0 condensation(s), 0 finalization(s), 1 commit intent(s)); 0 still pending.');
    const dj = JSON.parse(r.entire(['doctor', '--json']).stdout) as { hook_operations: { resumed_pending_work: number } };
    expect(dj.hook_operations.resumed_pending_work).toBe(1);
  });
});
