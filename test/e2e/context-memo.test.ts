/**
 * The layered context.md (SPEC-2 §F.4) a turn end derived is reused by the commit that condenses
 * the same transcript (src/strategy/context-layers.ts), and only for that same transcript.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupAll } from '../helpers/repo.js';
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
});
