/**
 * Issue 16 through real git and the built CLI: a checkpoint slot's metadata.json records the model
 * of its transcript range, else the session's last known one (hook stdin); hostile values never
 * reach it; `explain` shows it.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupAll } from '../helpers/repo.js';
import { world, commit, headMessage, trailerIds, showCheckpointFile, stateOf, expectClean } from './helpers.js';
import type { FakeClaude } from '../helpers/agent.js';
import type { TempRepo } from '../helpers/repo.js';

afterAll(cleanupAll);

/** One turn writing `file`, then a commit by a person; returns the checkpoint's slot metadata. */
function turnAndCommit(r: TempRepo, agent: FakeClaude, file: string): { id: string; raw: string; meta: Record<string, unknown> } {
  agent.prompt(`write ${file}`);
  agent.write(file, `${file}\n`);
  agent.say(`Wrote ${file}.`);
  expect(agent.stop().status).toBe(0);
  r.git(['add', file]);
  const c = commit(r, ['-m', `add ${file}`], { tty: true });
  expect(c.status, c.stderr).toBe(0);
  const [id] = trailerIds(headMessage(r));
  expect(id).toBeDefined();
  const raw = showCheckpointFile(r, id!, '0/metadata.json');
  return { id: id!, raw, meta: JSON.parse(raw) as Record<string, unknown> };
}

describe('checkpoint metadata records the model (issue 16)', () => {
  it('the transcript’s model, after agent; explain shows it (text and --json)', () => {
    const { r, agent } = world();
    agent.sessionStart();
    agent.model = 'claude-opus-5-5';
    const { id, raw, meta } = turnAndCommit(r, agent, 'a.go');
    expect(meta['model']).toBe('claude-opus-5-5');
    const keys = Object.keys(meta);
    expect(keys.indexOf('model')).toBe(keys.indexOf('agent') + 1);
    expect(raw).toContain('"agent": "Claude Code",\n  "model": "claude-opus-5-5"');
    expect(stateOf(r, agent.sessionId)['model']).toBe('claude-opus-5-5');

    const text = r.entire(['explain', '--checkpoint', id]);
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toContain('Model: claude-opus-5-5');
    const json = r.entire(['explain', '--checkpoint', id, '--json']);
    expect(JSON.parse(json.stdout).sessions[0].model).toBe('claude-opus-5-5');
    const byCommit = r.entire(['explain', '--commit', 'HEAD']);
    expect(byCommit.stdout).toContain('  Model: claude-opus-5-5');
    expectClean(r);
  });

  it('omitted when unknown; hook stdin is the fallback; the transcript wins over stdin', () => {
    const { r, agent } = world();
    agent.sessionStart();
    // no model anywhere: no key
    const first = turnAndCommit(r, agent, 'a.go');
    expect('model' in first.meta).toBe(false);
    const shown = r.entire(['explain', '--checkpoint', first.id]);
    expect(shown.stdout).not.toContain('Model:');
    // an interactive SessionStart names the model (SPEC-2 §B.1): the state keeps it
    expect(agent.hook('session-start', { source: 'resume', model: 'claude-from-stdin' }).status).toBe(0);
    expect(stateOf(r, agent.sessionId)['model']).toBe('claude-from-stdin');
    const second = turnAndCommit(r, agent, 'b.go');
    expect(second.meta['model']).toBe('claude-from-stdin');
    // the transcript names one now: it wins, and becomes the session's last known model
    agent.model = 'claude-from-transcript';
    const third = turnAndCommit(r, agent, 'c.go');
    expect(third.meta['model']).toBe('claude-from-transcript');
    expect(stateOf(r, agent.sessionId)['model']).toBe('claude-from-transcript');
    expectClean(r);
  });

  it('mid-turn checkpoints: each records its range’s model; finalization gives the last one the turn’s last', () => {
    const { r, agent } = world();
    agent.prompt('write two files and commit each');
    const ids: string[] = [];
    const modelOf = (id: string) => JSON.parse(showCheckpointFile(r, id, '0/metadata.json'))['model'] as unknown;
    for (const [f, model] of [
      ['one.txt', 'model-one'],
      ['two.txt', 'model-two'],
    ] as const) {
      agent.model = model;
      agent.write(f, `${f}\n`);
      r.git(['add', f]);
      const c = commit(r, ['-m', `add ${f}`]); // the agent's commit: no TTY
      expect(c.status, c.stderr).toBe(0);
      ids.push(trailerIds(headMessage(r))[0]!);
      agent.say(`committed ${f}`);
    }
    // provisional: each checkpoint's range so far
    expect(ids.map(modelOf)).toEqual(['model-one', 'model-two']);
    agent.model = 'model-three';
    agent.say('All done.');
    expect(agent.stop().status).toBe(0);
    // finalized: the first range ends where the second starts; the second runs to the turn's end
    expect(ids.map(modelOf)).toEqual(['model-one', 'model-three']);
    expect(stateOf(r, agent.sessionId)['model']).toBe('model-three');
    expectClean(r);
  });

  it('hostile model names from stdin or the transcript never reach metadata, state or explain', () => {
    const { r, agent } = world();
    agent.sessionStart();
    // a first turn so the session has a state for session-start to update
    turnAndCommit(r, agent, 'a.go');
    const hostile = 'gpt\u001b]0;pwned\u0007\u001b[2J';
    expect(agent.hook('session-start', { source: 'resume', model: hostile }).status).toBe(0);
    expect(stateOf(r, agent.sessionId)['model']).toBeUndefined();
    agent.model = 'x'.repeat(100_000);
    const huge = turnAndCommit(r, agent, 'b.go');
    expect('model' in huge.meta).toBe(false);
    agent.model = 'claude\nInjected: line';
    const newline = turnAndCommit(r, agent, 'c.go');
    expect('model' in newline.meta).toBe(false);
    expect(newline.raw).not.toContain('Injected');
    expect(stateOf(r, agent.sessionId)['model']).toBeUndefined();
    const shown = r.entire(['explain', '--checkpoint', newline.id]);
    expect(shown.stdout).not.toContain('Model:');
    // the refusal is logged (bounded, escaped), the hook went on
    const log = readFileSync(join(r.dir, '.entire', 'logs', 'entire.log'), 'utf8');
    expect(log).toContain('not a valid model name');
    expect(log).not.toContain('\u001b');
    expectClean(r);
  });
});
