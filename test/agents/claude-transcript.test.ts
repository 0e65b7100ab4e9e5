import { afterAll, describe, expect, it } from 'vitest';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupAll, FIXTURES, tempDir } from '../helpers/repo.js';
import {
  analyzeClaudeFile,
  analyzeClaudeJsonl,
  claudeFilePosition,
  countLines,
  lastUuid,
} from '../../src/agents/claude-code/transcript.js';
import { toRepoRelative } from '../../src/agents/kit/home-paths.js';

afterAll(cleanupAll);

const DIR = join(FIXTURES, 'transcripts');
const ROOT = '/home/dev/projects/acme-api';
const small = readFileSync(join(DIR, 'claude-small.jsonl'), 'utf8');
const midturn = readFileSync(join(DIR, 'claude-midturn-commit.jsonl'), 'utf8');

const FIRST_PROMPT =
  'Add a GET /healthz endpoint to the express server that returns {"status":"ok"}, and add a small test for it.';
const SECOND_PROMPT = 'Also include the build sha from the BUILD_SHA env var in the healthz response.';

/** Byte offset at which line `n` (0-based) starts. */
function offsetOfLine(text: string, n: number): number {
  let pos = 0;
  for (let i = 0; i < n; i++) pos = text.indexOf('\n', pos) + 1;
  return pos;
}

function line(obj: unknown): string {
  return JSON.stringify(obj) + '\n';
}

function assistant(id: string, content: unknown[], usage?: Record<string, number>, uuid = `u-${id}-${Math.random()}`) {
  return line({ type: 'assistant', uuid, message: { id, role: 'assistant', content, ...(usage ? { usage } : {}) } });
}

function user(content: unknown, uuid = `u-user-${Math.random()}`) {
  return line({ type: 'user', uuid, message: { role: 'user', content } });
}

describe('claude-small.jsonl (SPEC §7.1 fixture values)', () => {
  const a = analyzeClaudeJsonl(small);

  it('position is 20 lines and the identifier is the last uuid', () => {
    expect(a.position).toBe(20);
    expect(a.lastIdentifier).toBe('f340c3c2-f210-401b-a7db-092d82f42784');
  });

  it('modified files are the Edit/Write paths, absolute as written, repo-relative via the helper', () => {
    expect(a.modifiedFiles).toEqual([`${ROOT}/src/server.ts`, `${ROOT}/test/healthz.test.ts`]);
    expect(toRepoRelative(a.modifiedFiles, ROOT)).toEqual(['src/server.ts', 'test/healthz.test.ts']);
  });

  it('has the two prompts, the IDE tag stripped from the first', () => {
    expect(a.prompts).toEqual([FIRST_PROMPT, SECOND_PROMPT]);
  });

  it('token usage dedups streamed lines by message id', () => {
    expect(a.tokenUsage).toEqual({
      input_tokens: 36,
      cache_creation_tokens: 5045,
      cache_read_tokens: 116409,
      output_tokens: 868,
      api_call_count: 7,
    });
  });

  it('summary is the last assistant text', () => {
    expect(a.summary.startsWith('`/healthz` now also returns `sha`')).toBe(true);
  });

  it('from line 14 sees only turn 2', () => {
    const b = analyzeClaudeJsonl(small, { fromLine: 14 });
    expect(b.position).toBe(20);
    expect(b.tokenUsage).toEqual({
      input_tokens: 12,
      cache_creation_tokens: 1518,
      cache_read_tokens: 36054,
      output_tokens: 195,
      api_call_count: 2,
    });
    expect(toRepoRelative(b.modifiedFiles, ROOT)).toEqual(['src/server.ts']);
    expect(b.prompts).toEqual([SECOND_PROMPT]);
  });

  it('a chunk starting at line 14 (baseLine) gives the same answer as the whole text from 14', () => {
    const chunk = small.slice(offsetOfLine(small, 14));
    const c = analyzeClaudeJsonl(chunk, { baseLine: 14 });
    const b = analyzeClaudeJsonl(small, { fromLine: 14 });
    expect(c).toEqual(b);
  });

  it('an offset past the end yields nothing but the position', () => {
    const c = analyzeClaudeJsonl(small, { fromLine: 25 });
    expect(c.position).toBe(20);
    expect(c.prompts).toEqual([]);
    expect(c.modifiedFiles).toEqual([]);
    expect(c.tokenUsage.api_call_count).toBe(0);
  });
});

describe('claude-midturn-commit.jsonl', () => {
  it('18 lines, 3 paths, token totals', () => {
    const a = analyzeClaudeJsonl(midturn);
    expect(a.position).toBe(18);
    expect(toRepoRelative(a.modifiedFiles, ROOT)).toEqual(['src/middleware/rateLimit.ts', 'src/server.ts', 'README.md']);
    expect(a.tokenUsage).toEqual({
      input_tokens: 32,
      cache_creation_tokens: 4617,
      cache_read_tokens: 112816,
      output_tokens: 1150,
      api_call_count: 7,
    });
    expect(a.prompts).toHaveLength(1);
  });
});

describe('line counting and identifiers', () => {
  it('counts \\n plus a non-empty unterminated tail', () => {
    expect(countLines('')).toBe(0);
    expect(countLines('a')).toBe(1);
    expect(countLines('a\n')).toBe(1);
    expect(countLines('a\nb')).toBe(2);
    expect(countLines('\n\n')).toBe(2);
    expect(countLines(small.slice(0, -1))).toBe(20);
    expect(countLines(small + '{"partial')).toBe(21);
  });

  it('lastUuid skips lines without a uuid, empty uuids and a cut last line', () => {
    const text =
      line({ type: 'user', uuid: 'first' }) +
      line({ type: 'assistant', uuid: 'second' }) +
      line({ type: 'file-history-snapshot', messageId: 'x' }) +
      line({ type: 'system', uuid: '' }) +
      '{"type":"progress","uuid":"cut-off';
    expect(lastUuid(text)).toBe('second');
    expect(lastUuid('')).toBe('');
    expect(lastUuid(line({ data: { uuid: 'nested-only' } }))).toBe('');
  });
});

describe('prompts', () => {
  it('strips IDE and system elements, non-greedy and across lines, and drops what is left empty', () => {
    const text =
      user([
        { type: 'text', text: '<ide_selection>The user selected\nlines 1-3:\nfoo</ide_selection>' },
        { type: 'text', text: 'Fix <system-reminder>be\nnice</system-reminder>the bug' },
      ]) +
      user('<command-name>/clear</command-name>\n<command-message>clear</command-message>\n<command-args></command-args>') +
      user('<local-command-stdout>ok</local-command-stdout>') +
      user('<local-command-caveat>Caveat: ignore</local-command-caveat>  Real prompt  ') +
      user('<ide_opened_file>a</ide_opened_file> keep <ide_opened_file>b</ide_opened_file> this');
    const a = analyzeClaudeJsonl(text);
    expect(a.prompts).toEqual(['Fix the bug', 'Real prompt', 'keep  this']);
  });

  it('joins several text blocks with a blank line', () => {
    const a = analyzeClaudeJsonl(user([{ type: 'text', text: 'one' }, { type: 'image' }, { type: 'text', text: 'two' }]));
    expect(a.prompts).toEqual(['one\n\ntwo']);
  });

  it('tool_result user lines are not prompts', () => {
    const a = analyzeClaudeJsonl(
      user([{ type: 'tool_result', tool_use_id: 't1', content: 'output text' }]) +
        user([{ type: 'tool_result', tool_use_id: 't2', content: [{ type: 'text', text: 'more output' }] }]),
    );
    expect(a.prompts).toEqual([]);
  });
});

describe('edit paths', () => {
  it('takes Write/Edit/MultiEdit/NotebookEdit/mcp__acp__* paths, dedups in first-seen order, ignores other tools', () => {
    const text =
      assistant('m1', [
        { type: 'tool_use', name: 'Read', input: { file_path: '/r/read.ts' } },
        { type: 'tool_use', name: 'Write', input: { file_path: '/r/b.ts' } },
        { type: 'tool_use', name: 'Edit', input: { file_path: '/r/a.ts' } },
      ]) +
      assistant('m2', [
        { type: 'tool_use', name: 'MultiEdit', input: { file_path: '/r/c.ts' } },
        { type: 'tool_use', name: 'NotebookEdit', input: { notebook_path: '/r/n.ipynb' } },
        { type: 'tool_use', name: 'mcp__acp__Write', input: { file_path: '/r/d.ts' } },
        { type: 'tool_use', name: 'mcp__acp__Edit', input: { file_path: '/r/b.ts' } },
        { type: 'tool_use', name: 'Bash', input: { command: 'touch /r/e.ts' } },
      ]) +
      user([{ type: 'tool_use', name: 'Write', input: { file_path: '/r/user-line.ts' } }]);
    expect(analyzeClaudeJsonl(text).modifiedFiles).toEqual(['/r/b.ts', '/r/a.ts', '/r/c.ts', '/r/n.ipynb', '/r/d.ts']);
  });
});

describe('token usage', () => {
  it('keeps, per message id, the line with the highest output_tokens', () => {
    const text =
      assistant('A', [{ type: 'text', text: 'x' }], {
        input_tokens: 1,
        cache_creation_input_tokens: 10,
        cache_read_input_tokens: 100,
        output_tokens: 5,
      }) +
      assistant('A', [{ type: 'text', text: 'y' }], {
        input_tokens: 2,
        cache_creation_input_tokens: 20,
        cache_read_input_tokens: 200,
        output_tokens: 50,
      }) +
      assistant('A', [{ type: 'text', text: 'z' }], {
        input_tokens: 3,
        cache_creation_input_tokens: 30,
        cache_read_input_tokens: 300,
        output_tokens: 20,
      }) +
      assistant('B', [], { input_tokens: 7, output_tokens: 1 }) +
      line({ type: 'assistant', message: { role: 'assistant', content: [], usage: { input_tokens: 1000, output_tokens: 1000 } } });
    expect(analyzeClaudeJsonl(text).tokenUsage).toEqual({
      input_tokens: 9,
      cache_creation_tokens: 20,
      cache_read_tokens: 200,
      output_tokens: 51,
      api_call_count: 2,
    });
  });
});

describe('malformed input', () => {
  it('skips lines that are not JSON objects without throwing, and still counts them', () => {
    const text =
      'not json at all\n' +
      '{"type":"user",\n' +
      'null\n' +
      '[1,2,3]\n' +
      '"a string with \\"user\\""\n' +
      line({ type: 'assistant', message: 'not an object' }) +
      line({ type: 'assistant', message: { id: 'q', content: 'plain string content' } }) +
      line({ type: 'user', message: { content: 42 } }) +
      user('the real prompt') +
      '\n' +
      '{"type":"assistant","message":{"id":"cut"';
    const a = analyzeClaudeJsonl(text);
    expect(a.position).toBe(11);
    expect(a.prompts).toEqual(['the real prompt']);
    expect(a.modifiedFiles).toEqual([]);
    expect(a.summary).toBe('plain string content');
  });
});

describe('summary', () => {
  it('is the first text block of the last assistant line that has one', () => {
    const text =
      assistant('a', [{ type: 'text', text: 'older' }]) +
      assistant('b', [
        { type: 'thinking', thinking: 'hmm' },
        { type: 'text', text: 'first block' },
        { type: 'text', text: 'second block' },
      ]) +
      assistant('c', [{ type: 'tool_use', name: 'Bash', input: { command: 'ls' } }]);
    expect(analyzeClaudeJsonl(text).summary).toBe('first block');
  });
});

describe('files: cursors and subagents', () => {
  it('analyses a file and returns a cursor at the end of the last complete line', () => {
    const dir = tempDir();
    const p = join(dir, 's.jsonl');
    writeFileSync(p, small);
    const r = analyzeClaudeFile(p);
    expect(r.exists).toBe(true);
    expect(r.analysis.position).toBe(20);
    expect(r.cursor).toEqual({ byte: Buffer.byteLength(small), line: 20, identifier: 'f340c3c2-f210-401b-a7db-092d82f42784' });
  });

  it('with a cursor reads only the bytes after it (earlier bytes may even be garbage)', () => {
    const dir = tempDir();
    const p = join(dir, 's.jsonl');
    const head = small.slice(0, offsetOfLine(small, 14));
    writeFileSync(p, head);
    const first = analyzeClaudeFile(p);
    expect(first.cursor?.line).toBe(14);
    // Replace the first 14 lines by same-length garbage (newlines kept): a reader honouring the cursor never sees it.
    writeFileSync(p, head.replace(/[^\n]/g, 'x') + small.slice(head.length));
    const second = analyzeClaudeFile(p, { from: 14, cursor: first.cursor! });
    expect(second.analysis.position).toBe(20);
    expect(second.analysis.prompts).toEqual([SECOND_PROMPT]);
    expect(second.analysis.tokenUsage.output_tokens).toBe(195);
    expect(second.cursor?.line).toBe(20);
  });

  it('keeps the identifier from the cursor when the new lines have no uuid', () => {
    const dir = tempDir();
    const p = join(dir, 's.jsonl');
    writeFileSync(p, small);
    const first = analyzeClaudeFile(p);
    appendFileSync(p, line({ type: 'file-history-snapshot', messageId: 'm' }));
    const pos = claudeFilePosition(p, first.cursor);
    expect(pos.position).toBe(21);
    expect(pos.lastIdentifier).toBe('f340c3c2-f210-401b-a7db-092d82f42784');
    const again = analyzeClaudeFile(p, { from: 20, cursor: first.cursor! });
    expect(again.analysis.lastIdentifier).toBe('f340c3c2-f210-401b-a7db-092d82f42784');
  });

  it('ignores a cursor that no longer fits the file (shrunk, or not at a line start) and reads it all', () => {
    const dir = tempDir();
    const p = join(dir, 's.jsonl');
    writeFileSync(p, midturn);
    const stale = { byte: Buffer.byteLength(small), line: 20, identifier: 'stale' };
    const r = analyzeClaudeFile(p, { from: 0, cursor: stale });
    expect(r.analysis.position).toBe(18);
    expect(r.analysis.tokenUsage.output_tokens).toBe(1150);
    const notAtLineStart = { byte: 5, line: 1, identifier: 'x' };
    expect(claudeFilePosition(p, notAtLineStart).position).toBe(18);
  });

  it('a cursor after `from` is not used', () => {
    const dir = tempDir();
    const p = join(dir, 's.jsonl');
    writeFileSync(p, small);
    const end = analyzeClaudeFile(p).cursor!;
    const r = analyzeClaudeFile(p, { from: 14, cursor: end });
    expect(r.analysis.tokenUsage.output_tokens).toBe(195);
  });

  it('an unterminated last line counts for the position and is re-read next time', () => {
    const dir = tempDir();
    const p = join(dir, 's.jsonl');
    writeFileSync(p, small + '{"type":"user","uuid":"late","message":{"content":"tail prompt"}}');
    const r = analyzeClaudeFile(p);
    expect(r.analysis.position).toBe(21);
    expect(r.analysis.prompts).toContain('tail prompt');
    expect(r.cursor?.line).toBe(20);
    expect(r.cursor?.byte).toBe(Buffer.byteLength(small));
  });

  it('a missing file is an empty transcript', () => {
    const r = analyzeClaudeFile(join(tempDir(), 'nope.jsonl'));
    expect(r.exists).toBe(false);
    expect(r.analysis.position).toBe(0);
    expect(claudeFilePosition(join(tempDir(), 'nope.jsonl')).position).toBe(0);
  });

  it('adds subagent_tokens from agent-<id>.jsonl beside the transcript or under <sid>/subagents/', () => {
    const dir = tempDir();
    const sid = 'sess-1';
    const p = join(dir, `${sid}.jsonl`);
    writeFileSync(
      p,
      user([{ type: 'text', text: 'go' }]) +
        assistant('main', [{ type: 'tool_use', name: 'Task', input: {} }], { input_tokens: 1, output_tokens: 1 }) +
        user([{ type: 'tool_result', tool_use_id: 't', content: [{ type: 'text', text: 'done\nagentId: a7f3c91 (for resuming)' }] }]) +
        user([{ type: 'tool_result', tool_use_id: 't2', content: 'agentId: b22 and again agentId: a7f3c91' }]) +
        user([{ type: 'tool_result', tool_use_id: 't3', content: 'agentId: missing9' }]),
    );
    writeFileSync(
      join(dir, 'agent-a7f3c91.jsonl'),
      assistant('s1', [], { input_tokens: 10, cache_creation_input_tokens: 1, cache_read_input_tokens: 2, output_tokens: 3 }) +
        assistant('s1', [], { input_tokens: 10, cache_creation_input_tokens: 1, cache_read_input_tokens: 2, output_tokens: 4 }),
    );
    mkdirSync(join(dir, sid, 'subagents'), { recursive: true });
    writeFileSync(join(dir, sid, 'subagents', 'agent-b22.jsonl'), assistant('s2', [], { input_tokens: 5, output_tokens: 6 }));
    const r = analyzeClaudeFile(p);
    expect(r.analysis.subagentIds).toEqual(['a7f3c91', 'b22', 'missing9']);
    expect(r.analysis.tokenUsage.api_call_count).toBe(1);
    expect(r.analysis.tokenUsage.subagent_tokens).toEqual({
      input_tokens: 15,
      cache_creation_tokens: 1,
      cache_read_tokens: 2,
      output_tokens: 10,
      api_call_count: 2,
    });
    // From an offset after the tool results: no subagents referenced.
    expect(analyzeClaudeFile(p, { from: 5 }).analysis.tokenUsage.subagent_tokens).toBeUndefined();
  });
});
