/**
 * Issue 25 point 7: the turn-end handover file is written by the confined
 * writer (a symlink planted at its name is replaced, never written through),
 * and a token-shaped model name (`ghp_…`) is dropped before anything stores
 * it: no state file, checkpoint metadata or pushed object carries it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupAll } from '../helpers/repo.js';
import { world, commit, headMessage, trailerIds, showCheckpointFile, stateOf } from '../e2e/helpers.js';
import { getAgent } from '../../src/agents/registry.js';
import { checkpointModel, isModelName } from '../../src/redact/model-name.js';
import { encodeSessionMetadata } from '../../src/checkpoint/metadata.js';

afterAll(cleanupAll);

// a synthetic GitHub token (the github-pat rule's shape)
const TOKEN = 'ghp_' + 'Zq9Xw2Lm4Np6Rt8Vy1Bc3Df5Gh7Jk0Ms2Qu4Wx';

describe('the turn-end handover file', () => {
  it('a symlink planted at <sid>.handover is replaced, its target untouched, and the turn end still runs', () => {
    const { r, agent } = world();
    agent.prompt('write a.go');
    agent.write('a.go', 'package a\n');
    agent.say('wrote a.go');
    const bashrc = join(r.home, '.bashrc');
    writeFileSync(bashrc, 'echo original\n');
    const sessions = join(r.dir, '.git', 'entire-sessions');
    mkdirSync(sessions, { recursive: true });
    symlinkSync(bashrc, join(sessions, `${agent.sessionId}.handover`));
    const s = agent.stop();
    expect(s.status, s.stderr).toBe(0);
    expect(readFileSync(bashrc, 'utf8')).toBe('echo original\n');
    expect(lstatSync(bashrc).isFile()).toBe(true);
    // the worker ran the turn end: the step is on the shadow branch, the turn is over
    const st = stateOf(r, agent.sessionId);
    expect(st['phase']).toBe('idle');
    expect(st['checkpoint_count']).toBe(1);
  });
});

describe('a token-shaped model name', () => {
  it('is no model name: dropped by the one validator', () => {
    expect(isModelName(TOKEN)).toBe(false);
    expect(isModelName(`openai/${TOKEN}`)).toBe(false);
    expect(isModelName('https://user:hunter2hunter2@example.com/model')).toBe(false);
    // real names stay, long dated ones too
    for (const m of ['gpt-5.5', 'gpt-5-codex', 'claude-sonnet-4-5-20250929', 'claude-opus-5-5', 'gemini-2.5-pro', 'meta-llama/Meta-Llama-3.1-405B-Instruct-Turbo', 'us.anthropic.claude-3-7-sonnet-20250219-v1:0']) {
      expect(isModelName(m), m).toBe(true);
    }
    expect(encodeSessionMetadata({ session_id: 's', model: TOKEN } as never)).not.toContain('ghp_');
  });

  it('Codex turn_context.model ghp_…: the rollout names it, no checkpoint model takes it', async () => {
    const codex = await getAgent('codex');
    const rollout =
      [
        { timestamp: '2026-01-01T00:00:00Z', type: 'session_meta', payload: { id: 's', cwd: '/w' } },
        { timestamp: '2026-01-01T00:00:01Z', type: 'turn_context', payload: { cwd: '/w', model: TOKEN } },
      ]
        .map((l) => JSON.stringify(l))
        .join('\n') + '\n';
    const model = codex.analyzeTranscript(rollout, { from: 0 }).model;
    expect(checkpointModel(model, TOKEN)).toBeUndefined();
  });

  it('from the transcript and hook stdin: not in the state, the checkpoint metadata or any object', () => {
    const { r, agent } = world();
    agent.model = TOKEN;
    expect(agent.hook('session-start', { source: 'startup', model: TOKEN }).status).toBe(0);
    agent.prompt('write a.go');
    agent.write('a.go', 'package a\n');
    agent.say('wrote a.go');
    expect(agent.stop().status).toBe(0);
    r.git(['add', 'a.go']);
    const c = commit(r, ['-m', 'add a.go'], { tty: true });
    expect(c.status, c.stderr).toBe(0);
    const [id] = trailerIds(headMessage(r));
    const meta = showCheckpointFile(r, id!, '0/metadata.json');
    expect(meta).not.toContain('ghp_');
    expect('model' in (JSON.parse(meta) as object)).toBe(false);
    expect(stateOf(r, agent.sessionId)['model']).toBeUndefined();
    // no object in the repository holds the token (the transcript is redacted as always)
    const all = r.git(['cat-file', '--batch-all-objects', '--batch']);
    expect(all).not.toContain(TOKEN);
  });
});
