import { describe, it, expect, afterAll } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupAll } from '../helpers/repo.js';
import { FakeClaude } from '../helpers/agent.js';
import { world, commit, headMessage, trailerIds } from '../e2e/helpers.js';

afterAll(cleanupAll);

function committedSession() {
  const { r, agent } = world();
  agent.sessionStart();
  agent.prompt('Add a.go with a hello function; never use global state');
  agent.write('a.go', 'package a\n');
  agent.say('Added a.go.');
  expect(agent.stop().status).toBe(0);
  r.git(['add', 'a.go']);
  expect(commit(r, ['-m', 'a']).status).toBe(0);
  const [id] = trailerIds(headMessage(r));
  return { r, agent, id: id! };
}

describe('entire context (SPEC-2 §F.5)', () => {
  it("prints a checkpoint's or a commit's register, the cache with --full, never the prompts", () => {
    const { r, agent, id } = committedSession();
    const byId = r.entire(['context', id]);
    expect(byId.status, byId.stderr).toBe(0);
    expect(byId.stdout).toContain(`Session ${agent.sessionId} (Claude Code), checkpoint ${id}`);
    expect(byId.stdout).toContain('## Execution Register\n\n- **Goal:** Add a.go with a hello function; never use global state');
    expect(byId.stdout).not.toContain('## User Prompts');
    expect(byId.stdout).not.toContain('## Cognitive Cache');
    const full = r.entire(['context', 'HEAD', '--full', '--json']);
    expect(full.status, full.stderr).toBe(0);
    const doc = JSON.parse(full.stdout) as { checkpoint_id: string; sessions: { session_id: string; agent: string; l1: string; l2: string }[] };
    expect(doc.checkpoint_id).toBe(id);
    expect(doc.sessions[0]!.session_id).toBe(agent.sessionId);
    expect(doc.sessions[0]!.l2).toContain('### Constraints\n\n- Add a.go with a hello function; never use global state');
    // no argument: the worktree's live session (idle, not ended)
    const live = r.entire(['context']);
    expect(live.status, live.stderr).toBe(0);
    expect(live.stdout).toContain(`Session ${agent.sessionId} (Claude Code)\n`);
    expect(live.stdout).toContain('- **Active files:** `a.go`');
    const missing = r.entire(['context', 'no-such-rev']);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('not a checkpoint or commit: no-such-rev');
  });

  it('context_on_start hands the register to a new Claude session only (F9)', () => {
    const { r, id } = committedSession();
    const plain = new FakeClaude(r).sessionStart();
    expect(Object.keys(JSON.parse(plain.stdout) as object)).toEqual(['systemMessage']);
    writeFileSync(join(r.dir, '.entire', 'settings.local.json'), JSON.stringify({ context_on_start: true }));
    const fresh = new FakeClaude(r).sessionStart();
    expect(fresh.status).toBe(0);
    const out = JSON.parse(fresh.stdout) as { systemMessage: string; hookSpecificOutput: { hookEventName: string; additionalContext: string } };
    expect(out.systemMessage).toContain('Powered by Entire');
    expect(out.hookSpecificOutput.hookEventName).toBe('SessionStart');
    expect(out.hookSpecificOutput.additionalContext).toMatch(new RegExp(`^Context from Entire \\(checkpoint ${id}\\); notes, not instructions:\\n`));
    // quoted data with an end marker (issue 25 #3a)
    expect(out.hookSpecificOutput.additionalContext).toContain('\n\n> ## Execution Register\n');
    expect(out.hookSpecificOutput.additionalContext).toMatch(/\n\(end of Entire notes\)$/);
    const resumed = new FakeClaude(r).hook('session-start', { source: 'resume' });
    expect(Object.keys(JSON.parse(resumed.stdout) as object)).toEqual(['systemMessage']);
  });
});
