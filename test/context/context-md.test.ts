import { describe, it, expect, afterAll } from 'vitest';
import { cleanupAll } from '../helpers/repo.js';
import { world, commit, headMessage, trailerIds, showCheckpointFile, shadowBranches } from '../e2e/helpers.js';

afterAll(cleanupAll);

describe('layered context.md in shadow steps and checkpoint slots (SPEC-2 §F.4)', () => {
  it('is written at each step, condensed into the slot, and rewritten with the whole turn at finalization', () => {
    const { r, agent } = world();
    agent.sessionStart();
    agent.prompt('Add a.go with a hello function please');
    agent.write('a.go', 'package a\n');
    agent.say('Added a.go.');
    expect(agent.stop().status).toBe(0);
    const [shadow] = shadowBranches(r);
    const step = r.git(['show', `${shadow}:.entire/metadata/${agent.sessionId}/context.md`]);
    expect(step).toContain('# Session Context\n\n## Execution Register\n\n- **Goal:** Add a.go with a hello function please\n');
    expect(step).toContain('- **Active files:** `a.go`');

    // second turn: a commit mid-turn, then more work before Stop
    agent.prompt('Now add b.go and commit it, then write c.go');
    agent.write('b.go', 'package a\n');
    r.git(['add', 'a.go', 'b.go']);
    expect(commit(r, ['-m', 'ab']).status).toBe(0);
    const [id] = trailerIds(headMessage(r));
    const mid = showCheckpointFile(r, id!, '0/context.md');
    expect(mid).toContain('- **Active files:** `b.go`, `a.go`');
    expect(mid.endsWith('## User Prompts\n\n### Prompt 1\n\nAdd a.go with a hello function please\n\n### Prompt 2\n\nNow add b.go and commit it, then write c.go\n\n')).toBe(true);
    agent.write('c.go', 'package a\n');
    agent.say('Wrote b.go and c.go.');
    expect(agent.stop().status).toBe(0);
    const finalized = showCheckpointFile(r, id!, '0/context.md');
    expect(finalized).toContain('- **Active files:** `c.go`, `b.go`, `a.go`');
    expect(finalized).toContain('Last reply: "Wrote b.go and c.go."');
    expect(finalized).toContain('- **Current ask:** Now add b.go and commit it, then write c.go');
  });
});
