/**
 * SPEC-3 §B.1: each adapter's `EditsReader` on the real captures (test/fixtures/real-agents/,
 * see NOTES.md), exact edits; then what a hostile transcript gets (nothing, and no throw).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AGENT_KEYS, editsReaderOf, getAgent } from '../../src/agents/registry.js';
import type { AgentEdit, EditsReader, EditsResult, ReadEditsOptions } from '../../src/agents/edits.js';
import { FIXTURES, PROJECT_ROOT } from '../helpers/repo.js';

const REAL = join(FIXTURES, 'real-agents');
const read = (p: string): Buffer => readFileSync(join(REAL, p));
const reader = async (key: string): Promise<EditsReader> => {
  const r = await editsReaderOf(key);
  if (!r) throw new Error(`${key} has no EditsReader`);
  return r;
};
const none = { outside: 0, malformed: 0, failed: 0, overBudget: 0 };
type E = Omit<AgentEdit, 'turn' | 'promptIndex' | 'position'> & Partial<AgentEdit>;
const edit = (turn: number, promptIndex: number, position: number, e: E): AgentEdit => ({ turn, promptIndex, position, ...e }) as AgentEdit;

interface Case {
  agent: string;
  file: string;
  repoRoot: string;
  opts?: Partial<ReadEditsOptions>;
  edits: AgentEdit[];
}

const CASES: Case[] = [
  {
    agent: 'claude-code',
    file: 'claude-code/p-three-runs.truncated.jsonl',
    repoRoot: '/tmp/etest.hqerga/repo-a',
    edits: [
      edit(1, 0, 23, { toolUseId: 'toolu_01d5b801448527dfb9debf102', tool: 'Write', path: 'a.go', kind: 'write', added: ['package a', '', 'func Hello() string { return "hi" }'], removed: [] }),
      // a Write over an existing file: the structuredPatch of its result (the lines it changed)
      edit(1, 0, 35, { toolUseId: 'toolu_01ece2eca16a264b5bfac4d66', tool: 'Write', path: 'README.md', kind: 'write', added: ['', 'See a.go for the greeting.'], removed: [] }),
      // an Edit of part of a line: the whole lines of its structuredPatch, not `return "hello"`
      edit(2, 1, 53, {
        toolUseId: 'toolu_0176729c270b63a18fb6f5f38',
        tool: 'Edit',
        path: 'a.go',
        kind: 'edit',
        added: ['func Hello() string { return "hello" }'],
        removed: ['func Hello() string { return "hi" }'],
      }),
    ],
  },
  {
    agent: 'claude-code',
    file: 'claude-code/interactive-two-turns.truncated.jsonl',
    repoRoot: '/tmp/ra-int/repo',
    edits: [edit(1, 0, 23, { toolUseId: 'toolu_01ba0e723c6fc82720f6e5040', tool: 'Write', path: 'a.go', kind: 'write', added: ['package a'], removed: [] })],
  },
  {
    // a subagent's own transcript (`<sid>/subagents/agent-<id>.jsonl`); its result carries no toolUseResult
    agent: 'claude-code',
    file: 'claude-code/p-subagent-foreground-agent.truncated.jsonl',
    repoRoot: '/tmp/etest.hqerga/f-fg/repo-fg',
    opts: { subagent: 'a1b2' },
    edits: [edit(1, 0, 13, { toolUseId: 'toolu_0108dcc77264db009d0419283', tool: 'Write', path: 'sub.txt', kind: 'write', added: ['written by a subagent'], removed: [], subagent: 'a1b2' })],
  },
  {
    agent: 'claude-code',
    file: 'claude-code/p-subagent-background-agent.truncated.jsonl',
    repoRoot: '/tmp/etest.hqerga/f-bg/repo-bg',
    edits: [edit(1, 0, 13, { toolUseId: 'toolu_01c55131a12ccb2552d7c46f5', tool: 'Write', path: 'sub.txt', kind: 'write', added: ['written by a subagent'], removed: [] })],
  },
  {
    agent: 'claude-code',
    file: 'claude-code/p-subagent-foreground-main.truncated.jsonl',
    repoRoot: '/tmp/etest.hqerga/f-fg/repo-fg',
    edits: [],
  },
  {
    agent: 'gemini',
    file: 'gemini-cli/transcripts/session-sample.jsonl',
    repoRoot: '/tmp/gx/repo',
    edits: [
      edit(1, 0, 4, { toolUseId: 'write_file__write_file_1795636173108_0', tool: 'write_file', path: 'a.go', kind: 'write', added: ['package main', '', 'func A() int { return 42 }'], removed: [] }),
      // `replace` of `return 1` → `return 2`: the whole lines of the applied `fileDiff`
      edit(1, 0, 14, { toolUseId: 'replace__replace_1795636179481_0', tool: 'replace', path: 'b.go', kind: 'edit', added: ['func B() int { return 2 }'], removed: ['func B() int { return 1 }'] }),
    ],
  },
  {
    agent: 'codex',
    file: 'codex/rollout-sample.jsonl',
    repoRoot: '/tmp/ra/dc1/repo',
    edits: [
      edit(1, 0, 11, { toolUseId: 'call_mwwjivjv0002', tool: 'apply_patch', path: 'hello.txt', kind: 'patch', added: ['hello world'], removed: [] }),
      // the patch removes and re-adds `A demo repo.`; the FileChange Codex applied keeps it as context
      edit(1, 0, 21, { toolUseId: 'call_mwwjj2k70008', tool: 'apply_patch', path: 'README.md', kind: 'patch', added: ['', 'See hello.txt.'], removed: [] }),
      edit(2, 1, 36, { toolUseId: 'call_mwwjjf1m0001', tool: 'apply_patch', path: 'hello.txt', kind: 'patch', added: ['hello again'], removed: ['hello world'] }),
    ],
  },
  {
    agent: 'copilot-cli',
    file: 'copilot-cli/events-sample.jsonl',
    repoRoot: '/tmp/ra/cp1/repo',
    edits: [
      edit(1, 0, 10, { toolUseId: 'call_mwwk7u8f0001', tool: 'create', path: 'hello.txt', kind: 'write', added: ['hello world'], removed: [] }),
      // the capture's `detailedContent` diff is trimmed (incomplete): the strings stay, marked partial
      edit(1, 0, 30, { toolUseId: 'call_mwwk7vij0005', tool: 'edit', path: 'README.md', kind: 'edit', added: ['A demo repo.', '', 'See hello.txt.'], removed: ['A demo repo.'], partial: true }),
    ],
  },
  {
    // a subagent's calls sit in the session's own file, marked with its agentId
    agent: 'copilot-cli',
    file: 'copilot-cli/subagent/events.jsonl',
    repoRoot: '/tmp/entire-agents-copilot-cli-DGQIdP/project-fg',
    edits: [
      edit(1, 0, 21, {
        toolUseId: 'call_2f24fe107ec022fa9f1db7cc',
        tool: 'create',
        path: 'fg.txt',
        kind: 'write',
        added: ['written by a foreground subagent'],
        removed: [],
        subagent: '9461133c-e7c4-4020-a0b0-5be771c207c0',
      }),
    ],
  },
  {
    agent: 'opencode',
    file: 'opencode/export-sample.json',
    repoRoot: '/tmp/ra/do1/repo',
    edits: [
      edit(1, 0, 1, { toolUseId: 'call_mwwk2nds0002', tool: 'write', path: 'hello.txt', kind: 'write', added: ['hello world'], removed: [] }),
      edit(1, 0, 3, { toolUseId: 'call_mwwk2qc90006', tool: 'edit', path: 'README.md', kind: 'edit', added: ['A demo repo.', '', 'See hello.txt.'], removed: ['A demo repo.'], partial: true }),
    ],
  },
  {
    // a child session's export (staged by the subagent step)
    agent: 'opencode',
    file: 'opencode/subagent/child-export.json',
    repoRoot: '/tmp/entire-agents-opencode-dFSuOA/project-fg',
    opts: { subagent: 'ses_de93b89c9ffe7oBA1hzUCIEDPK' },
    edits: [
      edit(1, 0, 1, { toolUseId: 'call_8e852aa5c1913514fc587f76', tool: 'write', path: 'fg.txt', kind: 'write', added: ['written by a foreground subagent'], removed: [], subagent: 'ses_de93b89c9ffe7oBA1hzUCIEDPK' }),
    ],
  },
];

describe('edits of the real captures', () => {
  it.each(CASES)('$agent $file', async (c) => {
    const r = (await reader(c.agent)).readEdits(read(c.file), { repoRoot: c.repoRoot, ...c.opts });
    expect(r).toEqual({ edits: c.edits, skipped: none });
  });

  it("promptIndex indexes the adapter's own prompts of the same transcript", async () => {
    const promptOf: Record<string, string> = {};
    for (const c of CASES) {
      const text = read(c.file).toString('utf8');
      const prompts = (await getAgent(c.agent)).analyzeTranscript(text).prompts;
      for (const e of c.edits) {
        expect(e.promptIndex, c.file).toBeLessThan(prompts.length);
        promptOf[`${c.file} ${e.toolUseId}`] = prompts[e.promptIndex]!;
      }
    }
    expect(promptOf['claude-code/p-three-runs.truncated.jsonl toolu_0176729c270b63a18fb6f5f38']).toBe('RA-A2 say hello instead of hi, and commit that');
    expect(promptOf['codex/rollout-sample.jsonl call_mwwjjf1m0001']).toBe('please follow up');
    expect(promptOf['opencode/export-sample.json call_mwwk2qc90006']).toBe('Please say hello: create hello.txt and commit it.');
    expect(promptOf['copilot-cli/subagent/events.jsonl call_2f24fe107ec022fa9f1db7cc']).toBe('ETIER-FG have a foreground subagent write fg.txt');
  });

  it('reads a clone elsewhere: paths under the recorded project directory map to the same relative path', async () => {
    for (const c of CASES) {
      const r = (await reader(c.agent)).readEdits(read(c.file), { repoRoot: '/home/someone/clone', ...c.opts });
      expect(r.edits.map((e) => e.path), c.file).toEqual(c.edits.map((e) => e.path));
    }
  });

  it('`from` skips calls before a position and keeps counting turns and prompts', async () => {
    const r = (await reader('claude-code')).readEdits(read('claude-code/p-three-runs.truncated.jsonl'), { repoRoot: '/tmp/etest.hqerga/repo-a', from: 42 });
    expect(r.edits.map((e) => [e.toolUseId, e.turn, e.promptIndex])).toEqual([['toolu_0176729c270b63a18fb6f5f38', 2, 1]]);
    const g = (await reader('codex')).readEdits(read('codex/rollout-sample.jsonl'), { repoRoot: '/tmp/ra/dc1/repo', from: 31 });
    expect(g.edits.map((e) => [e.path, e.turn, e.promptIndex])).toEqual([['hello.txt', 2, 1]]);
  });

  it('a string and a Buffer read the same', async () => {
    const r = await reader('gemini');
    const buf = read('gemini-cli/transcripts/session-sample.jsonl');
    expect(r.readEdits(buf.toString('utf8'), { repoRoot: '/tmp/gx/repo' })).toEqual(r.readEdits(buf, { repoRoot: '/tmp/gx/repo' }));
  });

  it('every agent has the capability, found by one lookup', async () => {
    for (const key of AGENT_KEYS) expect((await editsReaderOf(key))?.tools.length, key).toBeGreaterThan(0);
    expect((await editsReaderOf({ key: 'codex' }))?.tools).toEqual(['apply_patch']);
    await expect(editsReaderOf('nope')).rejects.toThrow(/Unknown agent/);
  });
});

describe('bundles', () => {
  const hooks = join(PROJECT_ROOT, 'dist', 'hooks.cjs');
  // `npm test` builds dist/ first; the fast subset may run without it
  it.skipIf(!existsSync(hooks))('the hooks bundle carries no edits reader (commands only look capabilities up)', () => {
    expect(readFileSync(hooks, 'utf8')).not.toContain('*** Begin Patch');
    expect(readFileSync(join(PROJECT_ROOT, 'dist', 'entire.cjs'), 'utf8')).toContain('*** Begin Patch');
  });
});

// ---------------------------------------------------------------------------------------------
// Hostile and broken transcripts (SPEC-2 §A): dropped, counted, never thrown

const claudeLine = (id: string, name: string, input: unknown): string =>
  JSON.stringify({ type: 'assistant', cwd: '/r', message: { role: 'assistant', content: [{ type: 'tool_use', id, name, input }] } });
const claudePrompt = (text: string): string => JSON.stringify({ type: 'user', cwd: '/r', message: { role: 'user', content: text } });
const claudeResult = (id: string, isError: boolean, toolUseResult?: unknown): string =>
  JSON.stringify({ type: 'user', cwd: '/r', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, is_error: isError, content: 'x' }] }, ...(toolUseResult ? { toolUseResult } : {}) });

async function claude(lines: string[], opts: Partial<ReadEditsOptions> = {}): Promise<EditsResult> {
  return (await reader('claude-code')).readEdits(lines.join('\n') + '\n', { repoRoot: '/r', ...opts });
}

describe('hostile transcripts', () => {
  it('paths outside the repository are dropped: absolute, `..`, `.git/`, NUL, a sibling with the same prefix', async () => {
    const bad = ['/r/.GIT/config', '/etc/passwd', '/r/../etc/passwd', '../outside.txt', 'a/../../x', '/r/.git/hooks/pre-commit', '.git/config', '/r2/a.txt', 'a\0b', '/', '/r', '', 'x'.repeat(5000)];
    const r = await claude([claudePrompt('go'), ...bad.map((p, i) => claudeLine(`t${i}`, 'Write', { file_path: p, content: 'evil\n' })), claudeLine('ok', 'Write', { file_path: '/r/./src/../ok.txt', content: 'fine\n' })]);
    expect(r.edits.map((e) => e.path)).toEqual(['ok.txt']);
    expect(r.skipped.outside).toBe(bad.length);
  });

  it('malformed tool input is counted, not thrown; non-edit tools are ignored', async () => {
    const r = await claude([
      claudePrompt('go'),
      claudeLine('a', 'Write', { file_path: 42, content: 'x' }),
      claudeLine('b', 'Edit', { file_path: '/r/a', old_string: 'x' }),
      claudeLine('c', 'MultiEdit', { file_path: '/r/a', edits: [{ old_string: 1 }] }),
      claudeLine('d', 'Write', 'not an object'),
      claudeLine('e', 'Bash', { command: 'rm -rf /' }),
      '{"type":"assistant","message":{"content":[{"type":"tool_use"',
      'not json at all',
      '[]',
      JSON.stringify({ type: 'assistant', message: { content: 'text' } }),
    ]);
    expect(r).toEqual({ edits: [], skipped: { ...none, malformed: 4 } });
  });

  it('a failed or rejected call yields nothing', async () => {
    const r = await claude([claudePrompt('go'), claudeLine('a', 'Write', { file_path: '/r/a.txt', content: 'x\n' }), claudeResult('a', true)]);
    expect(r).toEqual({ edits: [], skipped: { ...none, failed: 1 } });
  });

  it('a result naming another call or a hostile structuredPatch changes nothing it should not', async () => {
    const r = await claude([
      claudePrompt('go'),
      claudeLine('a', 'Edit', { file_path: '/r/a.txt', old_string: 'x', new_string: 'y' }),
      claudeResult('zzz', true),
      claudeResult('a', false, { filePath: '/etc/passwd', structuredPatch: [{ lines: [7, { x: 1 }] }] }),
    ]);
    expect(r.edits).toEqual([edit(1, 0, 1, { toolUseId: 'a', tool: 'Edit', path: 'a.txt', kind: 'edit', added: ['y'], removed: ['x'], partial: true })]);
  });

  it('a background task\'s completion opens a turn without a prompt (the real task-notification line)', async () => {
    const main = read('claude-code/p-subagent-background-main.truncated.jsonl').toString('utf8');
    const r = (await reader('claude-code')).readEdits(main + claudeLine('after', 'Write', { file_path: '/tmp/etest.hqerga/f-bg/repo-bg/n.txt', content: 'n\n' }) + '\n', {
      repoRoot: '/tmp/etest.hqerga/f-bg/repo-bg',
    });
    expect(r.edits.map((e) => [e.toolUseId, e.turn, e.promptIndex, e.position])).toEqual([['after', 2, 0, 44]]);
  });

  it('a Write that rewrote a file with the same bytes changed no line', async () => {
    const r = await claude([
      claudePrompt('go'),
      claudeLine('w', 'Write', { file_path: '/r/same.txt', content: 'a\nb\n' }),
      claudeResult('w', false, { type: 'update', filePath: '/r/same.txt', content: 'a\nb\n', structuredPatch: [], originalFile: 'a\nb\n' }),
    ]);
    expect(r.edits).toEqual([edit(1, 0, 1, { toolUseId: 'w', tool: 'Write', path: 'same.txt', kind: 'write', added: [], removed: [] })]);
  });

  it('MultiEdit and NotebookEdit', async () => {
    const r = await claude([
      claudePrompt('go'),
      claudeLine('m', 'MultiEdit', { file_path: '/r/m.ts', edits: [{ old_string: 'a\nb', new_string: 'c' }, { old_string: 'd', new_string: 'e\nf\n' }] }),
      claudeLine('n', 'NotebookEdit', { notebook_path: '/r/n.ipynb', cell_id: 'c1', new_source: 'print(1)\nprint(2)', edit_mode: 'replace' }),
    ]);
    expect(r.edits).toEqual([
      edit(1, 0, 1, { toolUseId: 'm', tool: 'MultiEdit', path: 'm.ts', kind: 'edit', added: ['c', 'e', 'f'], removed: ['a', 'b', 'd'], partial: true }),
      edit(1, 0, 2, { toolUseId: 'n', tool: 'NotebookEdit', path: 'n.ipynb', kind: 'edit', added: ['print(1)', 'print(2)'], removed: [], partial: true }),
    ]);
  });

  it('an absurdly large transcript is read up to the bound, and an edit over the line bound is dropped', async () => {
    const big = 'x\n'.repeat(150_000);
    const r = await claude([claudePrompt('go'), claudeLine('big', 'Write', { file_path: '/r/big.txt', content: big }), claudeLine('ok', 'Write', { file_path: '/r/ok.txt', content: 'ok' })]);
    expect(r.edits.map((e) => e.path)).toEqual(['ok.txt']);
    expect(r.skipped.overBudget).toBe(1);
    // a transcript over maxBytes: read up to it (at a line end), the rest counted
    const lines = [claudePrompt('go'), claudeLine('a', 'Write', { file_path: '/r/a.txt', content: 'a' }), claudeLine('b', 'Write', { file_path: '/r/b.txt', content: 'b' })];
    const cut = await claude(lines, { maxBytes: lines[0]!.length + lines[1]!.length + 5 });
    expect(cut.edits.map((e) => e.path)).toEqual(['a.txt']);
    expect(cut.skipped.overBudget).toBe(1);
  });

  it('garbage of every agent reads as nothing, never throws', async () => {
    const garbage = ['', '\n\n', '{', 'null', '[1,2]', '{"messages":7}', '{"info":{},"messages":[1,"x",{"info":{"role":"assistant"},"parts":[{"type":"tool","tool":"write","state":{"input":{"filePath":"/etc/x","content":"y"}}}]}]}', Buffer.from([0xff, 0xfe, 0x00, 0x0a]).toString('latin1')];
    for (const key of AGENT_KEYS) {
      const r = await reader(key);
      for (const g of garbage) expect(() => r.readEdits(g, { repoRoot: '/r' }), `${key} ${JSON.stringify(g)}`).not.toThrow();
      expect(r.readEdits(Buffer.from([0xff, 0xfe]), { repoRoot: '/r' }).edits).toEqual([]);
    }
  });
});

describe('real captures with hostile values planted (generated)', () => {
  const HOSTILE: unknown[] = ['/etc/passwd', '../../x', '/r/../../etc/shadow', '.git/hooks/post-commit', 'a\u0000b', '', 'x'.repeat(5000), null, 7, [], {}, '*** Begin Patch\n*** Add File: ../../evil\n+x\n*** End Patch', '@@ -1,1 +1,1 @@\n-a\n+b\n+c'];
  /** Every string, number or null in the value, each replaced by a hostile one with probability 1/8 (a seeded walk). */
  function plant(v: unknown, next: () => number): unknown {
    if (Array.isArray(v)) return v.map((x) => plant(x, next));
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plant(x, next)]));
    return next() % 8 === 0 ? HOSTILE[next() % HOSTILE.length] : v;
  }
  const rng = (seed: number) => {
    let x = seed >>> 0 || 1;
    return () => ((x ^= x << 13), (x ^= x >>> 17), (x ^= x << 5), x >>> 0);
  };
  it.each(CASES.filter((c, i) => CASES.findIndex((d) => d.file === c.file) === i))('$agent $file', async (c) => {
    const r = await reader(c.agent);
    const raw = read(c.file).toString('utf8');
    const isDoc = c.file.endsWith('.json');
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        const next = rng(seed);
        const text = isDoc ? JSON.stringify(plant(JSON.parse(raw), next)) : raw.split('\n').map((l) => (l.startsWith('{') ? JSON.stringify(plant(JSON.parse(l), next)) : l)).join('\n');
        const res = r.readEdits(text, { repoRoot: c.repoRoot });
        for (const e of res.edits) {
          expect(e.path.startsWith('/') || e.path.split('/').some((s) => s === '..' || s === '.' || s === '') || e.path.split('/')[0] === '.git').toBe(false);
          expect(e.path.includes('\u0000')).toBe(false);
          expect(Array.isArray(e.added) && e.added.every((l) => typeof l === 'string')).toBe(true);
        }
        expect(res.edits.length).toBeLessThanOrEqual(c.edits.length + 4);
      }),
      { numRuns: 25 },
    );
  });
});

describe('the other agents, on crafted lines', () => {
  it('Codex: a failed apply_patch yields nothing; Delete File, Move to, a patch through FileChange only, a patch through the shell', async () => {
    const line = (o: unknown) => JSON.stringify(o);
    const text = [
      line({ type: 'session_meta', payload: { cwd: '/old/repo' } }),
      line({ type: 'event_msg', payload: { type: 'task_started' } }),
      line({ type: 'turn_context', payload: { cwd: '/old/repo/sub' } }),
      line({ type: 'event_msg', payload: { type: 'item_completed', item: { type: 'UserMessage', content: [{ type: 'text', text: 'go' }] } } }),
      line({ type: 'response_item', payload: { type: 'custom_tool_call', call_id: 'c1', name: 'apply_patch', input: '*** Begin Patch\n*** Delete File: gone.txt\n*** Update File: a.txt\n*** Move to: b.txt\n@@\n-x\n+y\n*** End of File\n*** End Patch\n' } }),
      line({ type: 'response_item', payload: { type: 'custom_tool_call', call_id: 'c2', name: 'apply_patch', input: '*** Begin Patch\n*** Add File: ../../etc/cron.d/x\n+evil\n*** Add File: new.txt\n+n\n*** End Patch' } }),
      line({ type: 'response_item', payload: { type: 'custom_tool_call_output', call_id: 'c2', output: 'Exit code: 1\nOutput:\nverification failed' } }),
      line({ type: 'event_msg', payload: { type: 'item_completed', item: { type: 'FileChange', id: 'sh1', status: 'completed', changes: { '/old/repo/sub/c.txt': { type: 'add', content: 'c1\nc2\n' } } } } }),
      line({ type: 'response_item', payload: { type: 'function_call', call_id: 'sh2', name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: d.txt\n+d\n*** End Patch\nEOF"] }) } }),
      line({ type: 'response_item', payload: { type: 'function_call', call_id: 'sh3', name: 'shell', arguments: JSON.stringify({ command: ['ls'] }) } }),
    ].join('\n');
    const r = (await reader('codex')).readEdits(text, { repoRoot: '/new/clone' });
    expect(r.edits).toEqual([
      edit(1, 0, 4, { toolUseId: 'c1', tool: 'apply_patch', path: 'sub/gone.txt', kind: 'delete', added: [], removed: [] }),
      edit(1, 0, 4, { toolUseId: 'c1', tool: 'apply_patch', path: 'sub/b.txt', kind: 'patch', added: ['y'], removed: ['x'], movedFrom: 'sub/a.txt' }),
      edit(1, 0, 7, { toolUseId: 'sh1', tool: 'FileChange', path: 'sub/c.txt', kind: 'patch', added: ['c1', 'c2'], removed: [] }),
      edit(1, 0, 8, { toolUseId: 'sh2', tool: 'apply_patch', path: 'sub/d.txt', kind: 'patch', added: ['d'], removed: [] }),
    ]);
    expect(r.skipped).toEqual({ ...none, outside: 1, failed: 1 });
  });

  it('Copilot: apply_patch and a complete detailedContent diff; a failed call yields nothing', async () => {
    const line = (type: string, data: unknown) => JSON.stringify({ type, data });
    const diff = '\ndiff --git a/r/a.txt b/r/a.txt\nindex 1..2 100644\n--- a/r/a.txt\n+++ b/r/a.txt\n@@ -1,2 +1,2 @@\n keep\n-old line\n+new line\n';
    const text = [
      line('session.start', { context: { cwd: '/r', gitRoot: '/r' } }),
      line('user.message', { content: 'go' }),
      line('tool.execution_start', { toolCallId: 'p1', toolName: 'apply_patch', arguments: '*** Begin Patch\n*** Add File: n.txt\n+hi\n*** End Patch' }),
      line('tool.execution_start', { toolCallId: 'e1', toolName: 'edit', arguments: { path: '/r/a.txt', old_str: 'old', new_str: 'new' } }),
      line('tool.execution_complete', { toolCallId: 'e1', success: true, fileEdits: [{ path: '/r/a.txt', kind: 'edit' }], result: { detailedContent: diff } }),
      line('tool.execution_start', { toolCallId: 'f1', toolName: 'create', arguments: { path: '/r/f.txt', file_text: 'f' } }),
      line('tool.execution_complete', { toolCallId: 'f1', success: false }),
    ].join('\n');
    const r = (await reader('copilot-cli')).readEdits(text, { repoRoot: '/r' });
    expect(r.edits).toEqual([
      edit(1, 0, 2, { toolUseId: 'p1', tool: 'apply_patch', path: 'n.txt', kind: 'patch', added: ['hi'], removed: [] }),
      edit(1, 0, 3, { toolUseId: 'e1', tool: 'edit', path: 'a.txt', kind: 'edit', added: ['new line'], removed: ['old line'] }),
    ]);
    expect(r.skipped).toEqual({ ...none, failed: 1 });
  });

  it('OpenCode: patch (patchText) relative to the session directory; an errored part yields nothing', async () => {
    const doc = {
      info: { id: 'ses_x', directory: '/r' },
      messages: [
        { info: { role: 'user', id: 'm0' }, parts: [{ type: 'text', text: 'go' }] },
        {
          info: { role: 'assistant', id: 'm1' },
          parts: [
            { type: 'tool', tool: 'patch', callID: 'p', state: { status: 'completed', input: { patchText: '*** Begin Patch\n*** Update File: src/x.ts\n@@\n-a\n+b\n*** End Patch' } } },
            { type: 'tool', tool: 'write', callID: 'w', state: { status: 'error', input: { filePath: '/r/w.txt', content: 'w' } } },
          ],
        },
      ],
    };
    const r = (await reader('opencode')).readEdits(JSON.stringify(doc), { repoRoot: '/r' });
    expect(r.edits).toEqual([edit(1, 0, 1, { toolUseId: 'p', tool: 'patch', path: 'src/x.ts', kind: 'patch', added: ['b'], removed: ['a'] })]);
    expect(r.skipped).toEqual({ ...none, failed: 1 });
  });

  it('Gemini: a cancelled call yields nothing', async () => {
    const text = [
      JSON.stringify({ sessionId: 's', projectHash: 'h', kind: 'main' }),
      JSON.stringify({ id: 'u1', type: 'user', content: [{ text: 'go' }] }),
      JSON.stringify({ id: 'g1', type: 'gemini', content: '', toolCalls: [{ id: 'w1', name: 'write_file', args: { file_path: '/r/a.txt', content: 'a' }, status: 'cancelled' }] }),
    ].join('\n');
    const r = (await reader('gemini')).readEdits(text, { repoRoot: '/r' });
    expect(r).toEqual({ edits: [], skipped: { ...none, failed: 1 } });
  });

  it('Cursor: Write and StrReplace in role-keyed lines (shapes of the adapter, no capture yet)', async () => {
    const text = [
      JSON.stringify({ role: 'user', message: { content: [{ type: 'text', text: '<user_query>\ngo\n</user_query>' }] } }),
      JSON.stringify({ role: 'assistant', message: { content: [{ type: 'tool_use', id: 'w', name: 'Write', input: { path: '/r/a.txt', contents: 'a\nb' } }] } }),
      JSON.stringify({ role: 'assistant', message: { content: [{ type: 'tool_use', id: 's', name: 'StrReplace', input: { path: '/r/a.txt', old_string: 'b', new_string: 'c' } }] } }),
    ].join('\n');
    const r = (await reader('cursor')).readEdits(text, { repoRoot: '/r' });
    expect(r.edits).toEqual([
      edit(1, 0, 1, { toolUseId: 'w', tool: 'Write', path: 'a.txt', kind: 'write', added: ['a', 'b'], removed: [] }),
      edit(1, 0, 2, { toolUseId: 's', tool: 'StrReplace', path: 'a.txt', kind: 'edit', added: ['c'], removed: ['b'], partial: true }),
    ]);
  });
});
