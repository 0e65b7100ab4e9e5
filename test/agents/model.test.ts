/**
 * Issue 16: each agent's transcript analysis names the model of its range, read in the same pass
 * as prompts, paths and tokens; hook stdin names it for some agents. Real captures (test/fixtures/
 * real-agents/, see NOTES.md) give the model the scripted server or config used.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES } from '../helpers/repo.js';
import { getAgent } from '../../src/agents/registry.js';
import type { AgentKey } from '../../src/agents/types.js';
import { checkpointModel, isModelName, MAX_MODEL_CHARS } from '../../src/redact/model-name.js';
import { decodeSessionMetadata, encodeSessionMetadata } from '../../src/checkpoint/metadata.js';

const REAL = join(FIXTURES, 'real-agents');
const read = (...p: string[]) => readFileSync(join(REAL, ...p), 'utf8');

async function modelOf(agent: AgentKey, text: string, from = 0): Promise<string | undefined> {
  return (await getAgent(agent)).analyzeTranscript(text, { from }).model;
}

describe('each agent reads the model from its real transcript', () => {
  it('Claude Code: message.model of assistant lines', async () => {
    expect(await modelOf('claude-code', read('claude-code', 'p-three-runs.truncated.jsonl'))).toBe('claude-opus-5-5');
    expect(await modelOf('claude-code', read('claude-code', 'interactive-two-turns.truncated.jsonl'))).toBe('claude-opus-5-5');
  });

  it('Claude Code: the range’s last model; `<synthetic>` messages are no model call', async () => {
    const line = (uuid: string, model: string) =>
      JSON.stringify({ type: 'assistant', uuid, message: { id: `msg_${uuid}`, model, role: 'assistant', content: [{ type: 'text', text: 'x' }] } });
    const text = [line('a', 'claude-one'), line('b', 'claude-two'), line('c', '<synthetic>')].join('\n') + '\n';
    expect(await modelOf('claude-code', text)).toBe('claude-two');
    expect(await modelOf('claude-code', text, 1)).toBe('claude-two');
    // only a synthetic message in range: the range names no model
    expect(await modelOf('claude-code', text, 2)).toBeUndefined();
  });

  it('Codex: turn_context.model, the one in effect at the range (also from before it)', async () => {
    const rollout = read('codex', 'rollout-sample.jsonl');
    expect(await modelOf('codex', rollout)).toBe('gpt-5.5');
    expect(await modelOf('codex', rollout, 31)).toBe('gpt-5.5');
    // after the last turn_context (line 34): that turn's model still applies
    expect(await modelOf('codex', rollout, 40)).toBe('gpt-5.5');
  });

  it('Gemini CLI: the `model` of gemini messages', async () => {
    expect(await modelOf('gemini', read('gemini-cli', 'transcripts', 'session-sample.jsonl'))).toBe('gemini-2.5-flash');
    // the resume stray file holds no gemini message
    expect(await modelOf('gemini', read('gemini-cli', 'transcripts', 'session-sample.resume-startup-stray.jsonl'))).toBeUndefined();
  });

  it('OpenCode: providerID/modelID of assistant messages', async () => {
    const text = read('opencode', 'export-sample.json');
    expect(await modelOf('opencode', text)).toBe('local/local-model');
    // message 5 is the second prompt; the trimmed sample keeps no assistant message after it
    expect(await modelOf('opencode', text, 5)).toBeUndefined();
  });

  it('Copilot CLI: usage_record usage.model', async () => {
    expect(await modelOf('copilot-cli', read('copilot-cli', 'events-sample.jsonl'))).toBe('gpt-4.1');
  });

  it('Cursor: its transcripts name no model', async () => {
    const text = JSON.stringify({ role: 'assistant', message: { model: 'x', content: [{ type: 'text', text: 'hi' }] } }) + '\n';
    expect(await modelOf('cursor', text)).toBeUndefined();
  });
});

describe('hook stdin names the model for some agents', () => {
  it('Codex: every payload but SessionEnd (the real payloads)', async () => {
    const codex = await getAgent('codex');
    const lines = read('codex', 'hook-payloads.jsonl').trim().split('\n').map((l) => JSON.parse(l) as { event: string; stdin: Record<string, unknown> });
    const verbs: Record<string, string> = { SessionStart: 'session-start', UserPromptSubmit: 'user-prompt-submit', Stop: 'stop' };
    let seen = 0;
    for (const l of lines) {
      const verb = verbs[l.event];
      if (!verb) continue;
      expect(codex.parseHookInput(verb, JSON.stringify(l.stdin)).model).toBe('gpt-5.5');
      seen++;
    }
    expect(seen).toBeGreaterThanOrEqual(3);
  });

  it('Claude Code: SessionStart of an interactive session (the real payload)', async () => {
    const ev = (await getAgent('claude-code')).parseHookInput('session-start', read('claude-code', 'interactive-01-session-start.json'));
    expect(ev.model).toBe('claude-opus-5-5');
  });

  it('OpenCode: our plugin’s turn-start line', async () => {
    const ev = (await getAgent('opencode')).parseHookInput('turn-start', JSON.stringify({ session_id: 'ses_abc', prompt: 'hi', model: 'local/local-model' }));
    expect(ev.model).toBe('local/local-model');
  });

  it('hostile values never reach the event: refused (logged), the hook still runs', async () => {
    const codex = await getAgent('codex');
    const base = { session_id: '01a21444-58d9-7c40-94d2-8eb005a2dc4d', cwd: '/tmp/x', prompt: 'p' };
    for (const bad of ['gpt\u001b[31m', 'a\nb', 'x'.repeat(MAX_MODEL_CHARS + 1), 'gpt\u202e5', ' gpt']) {
      const ev = codex.parseHookInput('user-prompt-submit', JSON.stringify({ ...base, model: bad }));
      expect(ev.model).toBeUndefined();
      expect(ev.refused?.join(' ')).toContain('not a valid model name');
      expect(ev.prompt).toBe('p');
    }
    // a non-string is ignored without failing the payload
    const ev = codex.parseHookInput('user-prompt-submit', JSON.stringify({ ...base, model: { id: 'gpt' } }));
    expect(ev.model).toBeUndefined();
    expect(ev.prompt).toBe('p');
  });
});

describe('the one validator', () => {
  it('accepts model names as agents write them', () => {
    for (const ok of ['gpt-5.5', 'claude-opus-4-5-20251101', 'local/local-model', 'models/gemini-2.5-pro', 'Claude Sonnet 4.5', 'modèle', 'x'.repeat(MAX_MODEL_CHARS)]) {
      expect(isModelName(ok), ok).toBe(true);
    }
  });

  it('refuses control, format and separator characters, blank ends, overlong and non-strings', () => {
    for (const bad of ['', ' ', 'a\tb', 'a\u0000', 'a\u007f', 'a\u0085', 'a\u200bb', 'a\u2028b', 'a\u00a0b', 'a ', 'x'.repeat(MAX_MODEL_CHARS + 1), 42, null, {}]) {
      expect(isModelName(bad), JSON.stringify(bad)).toBe(false);
    }
  });

  it('a checkpoint takes the range’s model, else the session’s; only valid ones', () => {
    expect(checkpointModel('a', 'b')).toBe('a');
    expect(checkpointModel(undefined, 'b')).toBe('b');
    expect(checkpointModel('bad\u0007', 'b')).toBe('b');
    expect(checkpointModel(undefined, 'bad\u0007')).toBeUndefined();
  });

  it('metadata.json: `model` after agent and task_id; an invalid one is neither written nor read', () => {
    const base = { checkpoint_id: 'a1b2c3d4e5f6', session_id: 's1', strategy: 'manual-commit', created_at: 'now', checkpoints_count: 1, files_touched: null };
    const text = encodeSessionMetadata({ ...base, agent: 'Codex', task_id: 't-1', model: 'gpt-5.5', turn_id: 'abc' });
    expect(Object.keys(JSON.parse(text))).toEqual(['checkpoint_id', 'session_id', 'strategy', 'created_at', 'checkpoints_count', 'files_touched', 'agent', 'task_id', 'model', 'turn_id']);
    expect(decodeSessionMetadata(JSON.parse(text)).model).toBe('gpt-5.5');
    expect(encodeSessionMetadata({ ...base, model: 'x\u001b]0;pwned\u0007' })).not.toContain('model');
    const hostile = decodeSessionMetadata({ ...base, model: 'y'.repeat(5000) });
    expect(hostile.model).toBeUndefined();
    // not kept as an unknown key either: a rewrite drops it
    expect(hostile.extra?.['model']).toBeUndefined();
  });
});
