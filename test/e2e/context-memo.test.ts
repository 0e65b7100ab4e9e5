/**
 * The layered context.md (SPEC-2 §F.4) a turn end derived is reused by the commit that condenses
 * the same transcript (src/strategy/context-layers.ts), and only for that same transcript; a later
 * turn end resumes the fold from its saved state (SPEC-2 §F.4, src/context/incremental.ts).
 */
import { describe, it, expect, afterAll } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupAll } from '../helpers/repo.js';

interface SavedFold {
  agent: string;
  offset: number;
  state: { turnCount: number; goal: string; turns: unknown[] };
}
/** The saved fold state as the built CLI wrote it (its engine names the build's version). */
const readFold = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as SavedFold;
import { world, commit, headMessage, trailerIds, showCheckpointFile } from './helpers.js';

afterAll(cleanupAll);

function turn(agent: ReturnType<typeof world>['agent']): void {
  agent.sessionStart();
  agent.prompt('write a.go with a main package');
  agent.write('a.go', 'package a\n');
  agent.say('Wrote a.go.');
  expect(agent.stop().status).toBe(0);
}

describe('layered context memo', () => {
  it("a commit right after the turn end reuses the turn end's layers; the checkpoint has them", () => {
    const { r, agent } = world();
    turn(agent);
    const memo = join(r.dir, '.git', 'entire-sessions', `${agent.sessionId}.layers`);
    const kept = JSON.parse(readFileSync(memo, 'utf8')) as { l1: string };
    expect(kept.l1).toContain('## Execution Register');
    r.git(['add', 'a.go']);
    const c = commit(r, ['-m', 'a.go'], { env: { ENTIRE_TIMING: '1' } });
    expect(c.status, c.stderr).toBe(0);
    expect(c.stderr).toContain('context: layers reused');
    expect(c.stderr).not.toContain('context: layers derived');
    const [id] = trailerIds(headMessage(r));
    expect(showCheckpointFile(r, id!, '0/context.md')).toContain(kept.l1.trim());
  });

  it('a memo for another transcript is never used: the layers are derived again', () => {
    const { r, agent } = world();
    turn(agent);
    const memo = join(r.dir, '.git', 'entire-sessions', `${agent.sessionId}.layers`);
    writeFileSync(memo, JSON.stringify({ key: 'not-this-transcript', l1: '## Execution Register\n\nPLANTED\n', l2: '' }));
    r.git(['add', 'a.go']);
    const c = commit(r, ['-m', 'a.go'], { env: { ENTIRE_TIMING: '1' } });
    expect(c.status, c.stderr).toBe(0);
    expect(c.stderr).toContain('context: layers derived');
    const [id] = trailerIds(headMessage(r));
    const md = showCheckpointFile(r, id!, '0/context.md');
    expect(md).not.toContain('PLANTED');
    expect(md).toContain('## Execution Register');
  });

  it('a later turn end folds only the new lines from the saved state; a tampered state is refused', () => {
    const { r, agent } = world();
    turn(agent);
    const statePath = join(r.dir, '.entire', 'tmp', 'context', `${agent.sessionId}.json`);
    const first = readFold(statePath);
    expect(first.agent).toBe('claude-code');
    expect(first.state.turnCount).toBe(1);
    agent.prompt('now add b.go with a helper function');
    agent.write('b.go', 'package a\n\nfunc helper() {}\n');
    agent.say('Added b.go.');
    const second = agent.stop({ ENTIRE_TIMING: '1' });
    expect(second.status, second.stderr).toBe(0);
    expect(second.stderr).toContain('context: layers derived (resumed)');
    const resumed = readFold(statePath);
    expect(resumed.offset).toBeGreaterThan(first.offset);
    expect(resumed.state.turnCount).toBe(2);
    const memo = JSON.parse(readFileSync(join(r.dir, '.git', 'entire-sessions', `${agent.sessionId}.layers`), 'utf8')) as { l1: string };
    expect(memo.l1).toContain('Turn 2 of 2');
    expect(memo.l1).toContain('- **Active files:** `b.go`, `a.go`');
    // a state planted in the work tree (too many turns): not used, the fold starts over
    const planted = readFold(statePath);
    planted.state.turns = [...planted.state.turns, ...planted.state.turns, ...planted.state.turns];
    planted.state.goal = 'PLANTED GOAL';
    writeFileSync(statePath, JSON.stringify(planted));
    agent.prompt('and a third file c.go please');
    agent.write('c.go', 'package a\n');
    agent.say('Added c.go.');
    const third = agent.stop({ ENTIRE_TIMING: '1' });
    expect(third.status, third.stderr).toBe(0);
    expect(third.stderr).toContain('context: layers derived');
    expect(third.stderr).not.toContain('context: layers derived (resumed)');
    const again = readFold(statePath);
    expect(again.state.goal).toBe('write a.go with a main package');
    expect(again.state.turnCount).toBe(3);
  });
});
