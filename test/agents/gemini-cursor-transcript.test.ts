import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupAll, FIXTURES, tempDir } from '../helpers/repo.js';
import {
  analyzeGeminiFile,
  analyzeGeminiJson,
  geminiFilePosition,
  geminiProjectRoot,
  parseGeminiTranscript,
} from '../../src/agents/gemini/transcript.js';
import { geminiProjectHash } from '../../src/agents/gemini/layout.js';
import { analyzeCursorJsonl, cursorTranscriptPath } from '../../src/agents/cursor/transcript.js';
import { toRepoRelative } from '../../src/agents/kit/home-paths.js';
import { isEntireError } from '../../src/errors.js';

afterAll(cleanupAll);

const DIR = join(FIXTURES, 'transcripts');
const ROOT = '/home/dev/projects/acme-api';
const v1 = readFileSync(join(DIR, 'gemini-small.json'), 'utf8');
const v2 = readFileSync(join(DIR, 'gemini-small-v2.json'), 'utf8');

const PROMPTS = [
  'Add a GET /version endpoint to src/server.ts that returns the package.json version, and write a test for it.',
  'Make the README mention the new endpoint.',
];
const TOKENS = { input_tokens: 61637, cache_creation_tokens: 0, cache_read_tokens: 48790, output_tokens: 425, api_call_count: 6 };

describe('Gemini fixtures (SPEC §7.2)', () => {
  for (const [name, text, position, secondPrompt] of [
    ['gemini-small.json', v1, 8, 5],
    ['gemini-small-v2.json', v2, 9, 6],
  ] as const) {
    it(`${name}: position ${position}, paths, prompts, tokens, summary`, () => {
      const a = analyzeGeminiJson(text);
      expect(a.position).toBe(position);
      expect(a.lastIdentifier).toBe('4a9d2f7b-6e1c-43a8-b5f2-8d0e7c3a1b69');
      expect(toRepoRelative(a.modifiedFiles, ROOT)).toEqual(['src/server.ts', 'test/version.test.ts', 'README.md']);
      expect(a.prompts).toEqual(PROMPTS);
      expect(a.tokenUsage).toEqual(TOKENS);
      expect(a.summary).toBe('README now lists `GET /version` under Endpoints.');
    });

    it(`${name}: from message ${secondPrompt} only the second turn`, () => {
      const a = analyzeGeminiJson(text, { from: secondPrompt });
      expect(a.position).toBe(position);
      expect(a.prompts).toEqual([PROMPTS[1]]);
      expect(toRepoRelative(a.modifiedFiles, ROOT)).toEqual(['README.md']);
      expect(a.tokenUsage).toEqual({
        input_tokens: 21604,
        cache_creation_tokens: 0,
        cache_read_tokens: 20928,
        output_tokens: 71,
        api_call_count: 2,
      });
    });
  }

  it('derives the project root from projectHash', () => {
    const doc = parseGeminiTranscript(v1);
    expect(geminiProjectHash(ROOT)).toBe(doc['projectHash']);
    expect(geminiProjectRoot(doc, [`${ROOT}/src/server.ts`])).toBe(ROOT);
    expect(geminiProjectRoot(doc, ['/elsewhere/x.ts'])).toBeUndefined();
  });
});

describe('Gemini message shapes', () => {
  const doc = (messages: unknown[]) => JSON.stringify({ sessionId: 's', messages });

  it('accepts string and [{text}] content, skips info/error, takes path keys in order file_path → path → filename', () => {
    const a = analyzeGeminiJson(
      doc([
        { id: '1', type: 'user', content: [{ text: 'part one' }, { text: 'part two' }] },
        { id: '2', type: 'info', content: 'Switched model' },
        { id: '3', type: 'error', content: 'boom' },
        {
          id: '4',
          type: 'gemini',
          content: [{ text: 'answer' }],
          tokens: { input: 3, output: 4, cached: 5, thoughts: 99, tool: 99, total: 999 },
          toolCalls: [
            { name: 'write_file', args: { path: '/r/a.ts' } },
            { name: 'save_file', args: { filename: '/r/b.ts' } },
            { name: 'edit_file', args: { file_path: '/r/c.ts', path: '/r/ignored.ts' } },
            { name: 'run_shell_command', args: { command: 'touch /r/d.ts' } },
            { name: 'replace', args: { file_path: '/r/a.ts' } },
          ],
        },
        { id: '', type: 'user', content: '<system-reminder>x</system-reminder>  ' },
      ]),
    );
    expect(a.prompts).toEqual(['part one\n\npart two']);
    expect(a.modifiedFiles).toEqual(['/r/a.ts', '/r/b.ts', '/r/c.ts']);
    expect(a.tokenUsage).toEqual({ input_tokens: 3, cache_creation_tokens: 0, cache_read_tokens: 5, output_tokens: 4, api_call_count: 1 });
    expect(a.summary).toBe('answer');
    expect(a.position).toBe(5);
    expect(a.lastIdentifier).toBe('4');
  });

  it('invalid JSON is TRANSCRIPT_UNREADABLE; empty text is an empty transcript', () => {
    let err: unknown;
    try {
      analyzeGeminiJson('{"messages": [');
    } catch (e) {
      err = e;
    }
    expect(isEntireError(err, 'TRANSCRIPT_UNREADABLE')).toBe(true);
    expect(analyzeGeminiJson('').position).toBe(0);
    expect(analyzeGeminiJson('{}').position).toBe(0);
  });

  it('file helpers: missing file, position, analysis from an offset', () => {
    const dir = tempDir();
    const p = join(dir, 'chat.json');
    expect(analyzeGeminiFile(p).exists).toBe(false);
    writeFileSync(p, v2);
    expect(geminiFilePosition(p)).toEqual({ position: 9, lastIdentifier: '4a9d2f7b-6e1c-43a8-b5f2-8d0e7c3a1b69', exists: true });
    expect(analyzeGeminiFile(p, { from: 6 }).analysis.prompts).toEqual([PROMPTS[1]]);
  });
});

describe('Cursor transcripts (SPEC §7.3)', () => {
  const l = (o: unknown) => JSON.stringify(o) + '\n';
  const text =
    l({ role: 'user', message: { content: [{ type: 'text', text: '<timestamp>Mon 10:00</timestamp>\n<user_query>\ncreate a file\n</user_query>' }] } }) +
    l({
      role: 'assistant',
      message: {
        content: [
          { type: 'text', text: 'Creating it.' },
          { type: 'tool_use', name: 'Write', input: { path: '/r/new.txt', contents: 'x' } },
          { type: 'tool_use', name: 'StrReplace', input: { path: '/r/old.txt', old_string: 'a', new_string: 'b' } },
          { type: 'tool_use', name: 'Read', input: { path: '/r/read.txt' } },
          { type: 'tool_use', name: 'Shell', input: { command: 'rm x' } },
        ],
      },
    }) +
    l({ role: 'user', message: { content: [{ type: 'text', text: '<user_query>second <timestamp>kept</timestamp></user_query>' }] } }) +
    l({ role: 'assistant', message: { content: [{ type: 'text', text: 'Done.' }] } });

  it('reads role-keyed lines: prompts unwrapped, Write/StrReplace paths, no tokens or ids', () => {
    const a = analyzeCursorJsonl(text);
    expect(a.position).toBe(4);
    expect(a.prompts).toEqual(['create a file', 'second <timestamp>kept</timestamp>']);
    expect(a.modifiedFiles).toEqual(['/r/new.txt', '/r/old.txt']);
    expect(a.tokenUsage.api_call_count).toBe(0);
    expect(a.lastIdentifier).toBe('');
    expect(a.summary).toBe('Done.');
    expect(analyzeCursorJsonl(text, { fromLine: 2 }).prompts).toEqual(['second <timestamp>kept</timestamp>']);
  });

  it('transcript location: flat CLI layout, else the IDE nested layout when only it exists', () => {
    const home = tempDir();
    const saved = { HOME: process.env['HOME'], O: process.env['ENTIRE_TEST_CURSOR_PROJECT_DIR'] };
    process.env['HOME'] = home;
    delete process.env['ENTIRE_TEST_CURSOR_PROJECT_DIR'];
    try {
      const dir = join(home, '.cursor', 'projects', 'home-dev-projects-acme-api', 'agent-transcripts');
      expect(cursorTranscriptPath(ROOT, 'c1')).toBe(join(dir, 'c1.jsonl'));
      mkdirSync(join(dir, 'c1'), { recursive: true });
      writeFileSync(join(dir, 'c1', 'c1.jsonl'), '');
      expect(cursorTranscriptPath(ROOT, 'c1')).toBe(join(dir, 'c1', 'c1.jsonl'));
    } finally {
      if (saved.HOME === undefined) delete process.env['HOME'];
      else process.env['HOME'] = saved.HOME;
      if (saved.O !== undefined) process.env['ENTIRE_TEST_CURSOR_PROJECT_DIR'] = saved.O;
    }
  });
});
