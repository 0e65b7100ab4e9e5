/**
 * SPEC-2 §F.4/F8 on every transcript fixture (synthetic and real captures): the layered
 * context fits its budgets, is byte-identical on a re-run, names a Goal and Active files, and
 * leaves v1's `## User Prompts` section unchanged.
 */
import { describe, it, expect } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES } from '../helpers/repo.js';
import { getAgent } from '../../src/agents/registry.js';
import { contextLayers } from '../../src/context/layers.js';
import { tokens } from '../../src/context/text.js';
import { encodeContextFile } from '../../src/checkpoint/prompts.js';

interface Case {
  file: string;
  agent: string;
  root: string;
  /** Main conversations name a goal and files; subagent-only or edit-free ones need not. */
  edits: boolean;
}

const cases: Case[] = [
  { file: 'transcripts/claude-small.jsonl', agent: 'claude-code', root: '', edits: true },
  { file: 'transcripts/claude-midturn-commit.jsonl', agent: 'claude-code', root: '', edits: true },
  { file: 'transcripts/claude-secrets.jsonl', agent: 'claude-code', root: '', edits: false },
  { file: 'transcripts/gemini-small.json', agent: 'gemini', root: '', edits: true },
  { file: 'transcripts/gemini-small-v2.json', agent: 'gemini', root: '', edits: true },
  ...readdirSync(join(FIXTURES, 'real-agents/claude-code'))
    // a subagent's own transcript (`p-subagent-*-agent…`, kept for the edits readers) is no
    // session's conversation: context is derived from the main transcripts only
    .filter((f) => f.endsWith('.jsonl') && !/^p-subagent-.*-agent\./.test(f))
    // the subagent runs edit in the subagent's own transcript, not the main one
    .map((f) => ({ file: `real-agents/claude-code/${f}`, agent: 'claude-code', root: '', edits: !f.startsWith('p-subagent-') })),
  { file: 'real-agents/gemini-cli/transcripts/session-sample.jsonl', agent: 'gemini', root: '/tmp/gx/repo', edits: true },
  { file: 'real-agents/codex/rollout-sample.jsonl', agent: 'codex', root: '/tmp/ra/dc1/repo', edits: true },
  { file: 'real-agents/copilot-cli/events-sample.jsonl', agent: 'copilot-cli', root: '/tmp/ra/cp1/repo', edits: true },
  { file: 'real-agents/opencode/export-sample.json', agent: 'opencode', root: '/tmp/ra/do1/repo', edits: true },
];

async function layersOf(c: Case, text: string) {
  const adapter = await getAgent(c.agent);
  const format = adapter.transcriptFormat(c.file);
  const root = c.root || adapter.transcriptProjectRoot(text, adapter.analyzeTranscript(text).modifiedFiles) || '/';
  const prompts = adapter.analyzeTranscript(text).prompts;
  return { layers: contextLayers({ adapter, transcript: Buffer.from(text), format, prompts, root }), prompts };
}

describe('layered context on every transcript fixture (SPEC-2 F8)', () => {
  for (const c of cases) {
    it(c.file, async () => {
      const text = readFileSync(join(FIXTURES, c.file), 'utf8');
      const { layers, prompts } = await layersOf(c, text);
      expect(layers).not.toBeNull();
      const { l1, l2 } = layers!;
      expect(l1.startsWith('## Execution Register\n\n- **Goal:** ')).toBe(true);
      expect(tokens(l1)).toBeLessThanOrEqual(300);
      expect(tokens(l2)).toBeLessThanOrEqual(500);
      expect(l1).not.toMatch(/\*\*Goal:\*\* none stated/);
      if (c.edits) expect(l1).not.toMatch(/\*\*Active files:\*\* none/);
      // same bytes → same layers
      const again = (await layersOf(c, text)).layers;
      expect(again).toEqual(layers);
      const file = encodeContextFile(prompts, layers);
      expect(file.startsWith('# Session Context\n\n## Execution Register\n')).toBe(true);
      const v1 = encodeContextFile(prompts, null);
      // from `## User Prompts` on, byte-identical to v1's file
      expect(file.slice(file.indexOf('## User Prompts'))).toBe(v1.slice(v1.indexOf('## User Prompts')));
      if (process.env['SHOW_CONTEXT']) console.log(`==== ${c.file}\n${l1}\n\n${l2}`);
    });
  }
});

describe('Cursor transcripts (role-keyed JSONL) get layers too', () => {
  it('names the goal, the edited file and the failing shell command', async () => {
    const lines = [
      { role: 'user', message: { content: [{ type: 'text', text: '<user_query>\nAdd a health check to server.ts\n</user_query>' }] } },
      { role: 'assistant', message: { content: [{ type: 'tool_use', id: 't1', name: 'StrReplace', input: { path: '/w/proj/src/server.ts', old_string: 'a', new_string: 'b' } }] } },
      { role: 'user', message: { content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] } },
      { role: 'assistant', message: { content: [{ type: 'tool_use', id: 't2', name: 'Shell', input: { command: 'npm test' } }] } },
      { role: 'user', message: { content: [{ type: 'tool_result', tool_use_id: 't2', is_error: true, content: 'Error: 1 test failed' }] } },
      { role: 'assistant', message: { content: [{ type: 'text', text: 'One test still fails.' }] } },
    ];
    const adapter = await getAgent('cursor');
    const layers = contextLayers({ adapter, transcript: Buffer.from(lines.map((l) => JSON.stringify(l)).join('\n') + '\n'), format: 'jsonl', prompts: [], root: '/w/proj' });
    expect(layers!.l1).toContain('- **Goal:** Add a health check to server.ts');
    expect(layers!.l1).toContain('- **Active files:** `src/server.ts`');
    expect(layers!.l1).toContain('- **Blocker:** `npm test` failing: Error: 1 test failed');
  });
});
