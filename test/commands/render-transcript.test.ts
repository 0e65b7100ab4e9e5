import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES } from '../helpers/repo.js';
import { renderEntries, renderTranscript as render } from '../../src/commands/render-transcript.js';
import { toolLine, type TranscriptEntry } from '../../src/agents/kit/entries.js';
import { getAgent } from '../../src/agents/registry.js';

const claudeAgent = await getAgent('claude-code');
const geminiAgent = await getAgent('gemini');
const renderTranscript = (t: string, format: 'jsonl' | 'json') => render(format === 'json' ? geminiAgent : claudeAgent, t, format);
const transcriptEntries = (t: string, format: 'jsonl' | 'json', from: number): TranscriptEntry[] =>
  (format === 'json' ? geminiAgent : claudeAgent).transcriptEntries(t, format, from);

const claude = readFileSync(join(FIXTURES, 'transcripts', 'claude-small.jsonl'), 'utf8');
const gemini = readFileSync(join(FIXTURES, 'transcripts', 'gemini-small.json'), 'utf8');

describe('render-transcript', () => {
  it('Claude JSONL: prompts, assistant text and one line per tool use; no snapshots, progress, thinking or tool results', () => {
    expect(renderTranscript(claude, 'jsonl')).toEqual([
      '> Add a GET /healthz endpoint to the express server that returns {"status":"ok"}, and add a small test for it.',
      '',
      "I'll check how routes are wired in `src/server.ts`, then add the endpoint and a test.",
      '→ Read src/server.ts',
      '→ Edit src/server.ts',
      '→ Write test/healthz.test.ts',
      '→ Bash npx jest test/healthz.test.ts',
      '',
      'Added `GET /healthz` in `src/server.ts` (returns `{"status":"ok"}`) and a supertest spec in `test/healthz.test.ts`. The test passes.',
      '',
      '> Also include the build sha from the BUILD_SHA env var in the healthz response.',
      '',
      '→ Edit src/server.ts',
      '',
      '`/healthz` now also returns `sha` (from `BUILD_SHA`, falling back to `"dev"`). The existing test still passes because it only checks `status`; want me to tighten it?',
    ]);
  });

  it('starts at a JSONL line offset (a checkpoint\'s transcript start)', () => {
    const lines = claude.split('\n');
    const second = lines.findIndex((l) => l.includes('BUILD_SHA env var'));
    const entries = transcriptEntries(claude, 'jsonl', second);
    expect(entries[0]).toEqual({ kind: 'user', text: 'Also include the build sha from the BUILD_SHA env var in the healthz response.' });
    expect(entries.map((e) => e.kind)).toEqual(['user', 'tool', 'assistant']);
    expect(transcriptEntries(claude, 'jsonl', lines.length + 5)).toEqual([]);
  });

  it('Gemini: user and gemini messages, tool calls relative to the project root', () => {
    const out = renderTranscript(gemini, 'json');
    expect(out[0]).toBe('> Add a GET /version endpoint to src/server.ts that returns the package.json version, and write a test for it.');
    expect(out).toContain('→ read_file src/server.ts');
    expect(out).toContain('→ write_file test/version.test.ts');
    expect(out).toContain('> Make the README mention the new endpoint.');
    expect(out.join('\n')).not.toContain('Inspecting the server'); // thoughts are not shown
  });

  it('default rendering is bounded; --full is not', () => {
    const entries = Array.from({ length: 50 }, (_, i) => ({ kind: 'assistant' as const, text: `line ${i}\n` + Array(10).fill('x').join('\n') }));
    const bounded = renderEntries(entries, { maxEntries: 5, maxLines: 3 });
    expect(bounded[0]).toBe('… 45 earlier entries (use --full to see everything)');
    expect(bounded).toContain('line 49');
    expect(bounded).not.toContain('line 44');
    expect(bounded).toContain('… (8 more lines)');
    const full = renderEntries(entries, { full: true, maxEntries: 5, maxLines: 3 });
    expect(full).toContain('line 0');
    expect(full.filter((l) => l === 'x')).toHaveLength(500);
  });

  it('tool lines name the target', () => {
    expect(toolLine('Edit', { file_path: '/r/src/a.ts', old_string: 'x' }, '/r')).toBe('Edit src/a.ts');
    expect(toolLine('Bash', { command: 'npm test\n  --watch' })).toBe('Bash npm test --watch');
    expect(toolLine('TodoWrite', { todos: [1, 2, 3] })).toBe('TodoWrite (3 items)');
    expect(toolLine('Mystery', {})).toBe('Mystery');
  });
});
