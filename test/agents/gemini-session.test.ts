/**
 * Gemini CLI 0.61 (SPEC-2 §B.6–§B.8) on its real captures
 * (test/fixtures/real-agents/gemini-cli/, see NOTES.md): the JSONL session
 * thread, the turn-end flush, the hook payloads, where sessions live and are
 * restored, and what `enable` says about trust and git identity.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawnSync, execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync, existsSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, cleanupAll, FIXTURES, tempDir, testEnv } from '../helpers/repo.js';
import { getAgent, recognizeTranscript } from '../../src/agents/registry.js';
import { readGeminiThread } from '../../src/agents/gemini/thread.js';
import { analyzeGeminiText } from '../../src/agents/gemini/transcript.js';
import { lastGeminiText } from '../../src/agents/gemini/flush.js';
import { fileStamp, findGeminiTranscript, geminiProjectHash, projectSlug, slugify } from '../../src/agents/gemini/layout.js';
import { geminiRestorePath, registerGeminiProject } from '../../src/agents/gemini/restore.js';
import { geminiEnableNotes, geminiTrustsFolder } from '../../src/agents/gemini/trust.js';
import { isEntireError } from '../../src/errors.js';

afterAll(cleanupAll);

const REAL = join(FIXTURES, 'real-agents', 'gemini-cli');
const SAMPLE = join(REAL, 'transcripts', 'session-sample.jsonl');
const STRAY = join(REAL, 'transcripts', 'session-sample.resume-startup-stray.jsonl');
const sample = readFileSync(SAMPLE, 'utf8');
const hook = (name: string): Record<string, unknown> => JSON.parse(readFileSync(join(REAL, 'hooks', name), 'utf8')) as Record<string, unknown>;
const PROMPT = 'Create a.go with func A, commit it, then make B return 2';
const SID = 'be882b4e-d4e5-4e60-bccc-3909ddf3db3d';

const ENV_KEYS = ['HOME', 'GEMINI_CLI_HOME', 'ENTIRE_TEST_GEMINI_PROJECT_DIR'];
const savedEnv = { ...process.env };
afterEach(() => {
  for (const k of ENV_KEYS) {
    if (savedEnv[k] === undefined) delete process.env[k];
    else process.env[k] = savedEnv[k];
  }
});

function entire(args: string[]) {
  const home = tempDir();
  const r = spawnSync(process.execPath, [CLI, ...args], { env: testEnv(home), cwd: home, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const line = (v: unknown) => JSON.stringify(v) + '\n';
const META = { sessionId: 's-1', projectHash: 'x', startTime: '2026-11-25T19:49:29.314Z', lastUpdated: '2026-11-25T19:49:29.314Z', kind: 'main' };
const user = (id: string, text: string) => ({ id, type: 'user', content: [{ text }] });
const model = (id: string, text: string, extra: Record<string, unknown> = {}) => ({ id, type: 'gemini', content: text, ...extra });

describe('B1: entire debug transcript on the real session files (README expected extraction)', () => {
  it('session-sample.jsonl: 21 lines, last id, a.go and b.go, the prompt, tokens per gemini id', () => {
    const r = entire(['debug', 'transcript', SAMPLE, '--agent', 'gemini']);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      position: 21,
      last_identifier: 'b6fafb7b-0385-40cf-be38-5cd8e1a5f82c',
      modified_files: ['a.go', 'b.go'],
      prompts: [PROMPT],
      token_usage: { input_tokens: 4734, cache_creation_tokens: 0, cache_read_tokens: 400, output_tokens: 166, api_call_count: 4 },
      model: 'gemini-2.5-flash',
    });
    // named by its content without --agent; repo root /tmp/gx/repo from projectHash
    expect(JSON.parse(entire(['debug', 'transcript', SAMPLE]).stdout).modified_files).toEqual(['a.go', 'b.go']);
  });

  it('the resume stray file: 2 lines, the <session_context> id, nothing else', () => {
    const r = entire(['debug', 'transcript', STRAY, '--agent', 'gemini']);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      position: 2,
      last_identifier: 'd04923d38bb0f6017037e74183378ef4',
      modified_files: [],
      prompts: [],
      token_usage: { input_tokens: 0, cache_creation_tokens: 0, cache_read_tokens: 0, output_tokens: 0, api_call_count: 0 },
    });
  });

  it('--from 2 (where the turn started) is the whole turn; --from 21 is nothing', () => {
    const turn = JSON.parse(entire(['debug', 'transcript', SAMPLE, '--agent', 'gemini', '--from', '2']).stdout);
    expect(turn.prompts).toEqual([PROMPT]);
    expect(turn.token_usage.api_call_count).toBe(4);
    const after = JSON.parse(entire(['debug', 'transcript', SAMPLE, '--agent', 'gemini', '--from', '21']).stdout);
    expect(after).toMatchObject({ position: 21, modified_files: [], prompts: [], token_usage: { api_call_count: 0 } });
  });
});

describe('the JSONL thread (SPEC-2 §B.7)', () => {
  it('real file: 9 messages by first appearance, each in its last version', () => {
    const t = readGeminiThread(sample);
    expect(t.position).toBe(21);
    expect(t.messages.map((m) => m.value['id'])).toEqual([
      'd04923d38bb0f6017037e74183378ef4',
      '93415f58-40e8-495b-aa78-2b2d49e6f665',
      '14e6764f-6b76-408e-85b4-d1b096924f07',
      '91003b2b-b30b-455a-9a6c-468072291f95',
      '60537c0c-1e3a-41c3-b338-6ab72b440064',
      'f504374d-24ed-40d7-adf4-251cd200d7ce',
      '8af1b42f-1da7-4a7d-948c-363196b43960',
      '9bf54fd2-2646-40db-84d9-9754dbaad26f',
      'b6fafb7b-0385-40cf-be38-5cd8e1a5f82c',
    ]);
    // written on line 5 without tool calls, again on line 7 with them: first line, last version
    const written = t.messages[2]!;
    expect(written.line).toBe(4);
    expect(Array.isArray(written.value['toolCalls'])).toBe(true);
    expect(t.meta['startTime']).toBe('2026-11-25T19:49:29.314Z');
  });

  it('a range from offset N is the messages first seen on line N or later', () => {
    // the write_file message first appeared on line index 4: from 5 on it is not in the range
    const a = analyzeGeminiText(sample, { from: 5 });
    expect(a.modifiedFiles).toEqual(['/tmp/gx/repo/b.go']);
    expect(a.tokenUsage.api_call_count).toBe(3);
    expect(a.prompts).toEqual([]);
    expect(a.position).toBe(21);
  });

  it('$rewindTo drops that message and all later ones; an unknown id empties the thread; a dropped id may come back', () => {
    const base = line(META) + line(user('u1', 'one')) + line(model('g1', 'A1')) + line(user('u2', 'two')) + line(model('g2', 'A2'));
    const rewound = analyzeGeminiText(base + line({ $rewindTo: 'u2' }));
    expect(rewound.prompts).toEqual(['one']);
    expect(rewound.lastIdentifier).toBe('g1');
    expect(rewound.summary).toBe('A1');
    expect(analyzeGeminiText(base + line({ $rewindTo: 'nope' })).lastIdentifier).toBe('');
    const again = base + line({ $rewindTo: 'u2' }) + line(user('u2', 'two again'));
    expect(analyzeGeminiText(again).prompts).toEqual(['one', 'two again']);
    // it now counts at the line it came back on (index 6)
    expect(analyzeGeminiText(again, { from: 6 }).prompts).toEqual(['two again']);
  });

  it('$set.messages only adds unseen ids (a compression keeps the history); other $set keys patch the metadata', () => {
    const text =
      line(META) +
      line(user('u1', 'one')) +
      line(model('g1', 'A1', { tokens: { input: 10, output: 2, cached: 1 } })) +
      line({ $set: { messages: [user('c1', 'summary of the chat'), model('g1', 'CHANGED')], lastUpdated: 'later' } });
    const t = readGeminiThread(text);
    expect(t.messages.map((m) => m.value['id'])).toEqual(['u1', 'g1', 'c1']);
    expect(t.messages[1]!.value['content']).toBe('A1');
    expect(t.meta['lastUpdated']).toBe('later');
    expect(t.meta['messages']).toBeUndefined();
    expect(analyzeGeminiText(text).tokenUsage).toEqual({ input_tokens: 10, cache_creation_tokens: 0, cache_read_tokens: 1, output_tokens: 2, api_call_count: 1 });
  });

  it('not prompts: <session_context>, tool results as user records, synthetic <id>_response messages', () => {
    const text =
      line(META) +
      line({ $set: { messages: [user('ctx', '<session_context>\nThis is the Gemini CLI.\n</session_context>')] } }) +
      line(user('u1', 'real prompt')) +
      line({ id: 'tr', type: 'user', content: [{ functionResponse: { id: 'x', name: 'write_file', response: { output: 'ok' } } }] }) +
      line(user('g1_response', 'synthetic')) +
      line(model('g1', 'done', { toolCalls: [{ name: 'save_file', args: { filename: '/r/c.txt' } }, { name: 'read_file', args: { file_path: '/r/x' } }] }));
    const a = analyzeGeminiText(text);
    expect(a.prompts).toEqual(['real prompt']);
    expect(a.modifiedFiles).toEqual(['/r/c.txt']);
  });

  it('a line still being written is skipped but counts for the position', () => {
    const text = line(META) + line(user('u1', 'one')) + '{"id":"g1","type":"gem';
    const a = analyzeGeminiText(text);
    expect(a.position).toBe(3);
    expect(a.lastIdentifier).toBe('u1');
  });

  it('a file streams by in 1 MiB reads: lines across reads, a line over 16 MiB skipped but counted, an unterminated tail', async () => {
    const gemini = await getAgent('gemini');
    const p = join(tempDir(), 'session-2026-11-25T19-49-s1.jsonl');
    const big = 'x'.repeat(3 * 1024 * 1024);
    const text = line(META) + line(user('u1', big)) + line(user('u2', 'y'.repeat(17 * 1024 * 1024))) + line(model('g1', 'ok')) + JSON.stringify(user('u3', 'last'));
    writeFileSync(p, text);
    const file = gemini.analyzeTranscriptFile(p, {});
    expect(file.cursor).toBeUndefined();
    expect(file.analysis.position).toBe(5);
    expect(file.analysis.prompts).toEqual([big, 'last']);
    expect(file.analysis.lastIdentifier).toBe('u3');
    expect(file.analysis).toEqual(analyzeGeminiText(text));
    expect(gemini.transcriptPosition(p)).toEqual({ position: 5, lastIdentifier: 'u3', exists: true });
  });

  it('the legacy document form keeps v1 rules (message indexes)', async () => {
    const doc = readFileSync(join(FIXTURES, 'transcripts', 'gemini-small.json'), 'utf8');
    const a = analyzeGeminiText(doc);
    expect(a.position).toBe(8);
    const gemini = await getAgent('gemini');
    expect(gemini.transcriptFormat('/x/session-2026-01-01T00-00-abcdefgh.json')).toBe('json');
    expect(gemini.transcriptFormat('/x/session-2026-01-01T00-00-abcdefgh.jsonl')).toBe('jsonl');
  });

  it('is recognised as a Gemini session by its metadata line; a Claude transcript is not', async () => {
    expect((await recognizeTranscript(sample))?.key).toBe('gemini');
    const claude = readFileSync(join(FIXTURES, 'real-agents', 'claude-code', 'p-turn1.truncated.jsonl'), 'utf8');
    expect((await recognizeTranscript(claude))?.key).not.toBe('gemini');
  });

  it('explain renders the thread: the prompt, each tool call, the answer; no context or tool results', async () => {
    const gemini = await getAgent('gemini');
    const entries = gemini.transcriptEntries(sample, 'jsonl', 0);
    expect(entries[0]).toEqual({ kind: 'user', text: PROMPT });
    expect(entries.filter((e) => e.kind === 'tool').map((e) => e.text.split(' ').slice(0, 2).join(' '))).toEqual([
      'write_file a.go',
      'run_shell_command tty;',
      'replace b.go',
    ]);
    expect(entries[entries.length - 1]).toEqual({ kind: 'assistant', text: 'Created a.go, committed it, and changed B to return 2.' });
    expect(entries.filter((e) => e.kind === 'user')).toHaveLength(1);
    expect(gemini.transcriptEntries(sample, 'jsonl', 21)).toEqual([]);
  });
});

describe('B2: the AfterAgent flush (SPEC-2 §B.7, §B.4)', () => {
  const afterAgent = hook('after-agent.json');

  it("the last gemini message on disk is the payload's prompt_response", () => {
    expect(lastGeminiText(sample, true)).toBe(afterAgent['prompt_response']);
    // the $set line after it and a half-written line do not hide it
    expect(lastGeminiText(sample + '{"id":"zz","type":"gemi', true)).toBe(afterAgent['prompt_response']);
  });

  it('the real session file with the real payload is flushed at the first look; an older answer is not', async () => {
    const p = join(tempDir(), 'session-2026-11-25T19-49-be882b4e.jsonl');
    writeFileSync(p, sample);
    const gemini = await getAgent('gemini');
    const r = await gemini.waitForTranscriptFlush(p, { startedAt: Date.now(), capMs: 10_000, response: afterAgent['prompt_response'] as string });
    expect(r.outcome).toBe('flushed');
    // before the answer was written (the file ends at the replace result): the size rule decides
    writeFileSync(p, sample.split('\n').slice(0, 19).join('\n') + '\n');
    const early = await gemini.waitForTranscriptFlush(p, { startedAt: Date.now(), capMs: 10_000, response: afterAgent['prompt_response'] as string });
    expect(early.outcome).toBe('stable');
  });
});

describe('B.6 payloads', () => {
  it('SessionStart names no transcript (on resume it is a stray file); BeforeAgent/AfterAgent/SessionEnd do', async () => {
    const gemini = await getAgent('gemini');
    const parse = (verb: string, file: string) => gemini.parseHookInput(verb, readFileSync(join(REAL, 'hooks', file), 'utf8'));
    const start = parse('session-start', 'session-start.resume.json');
    expect(start).toMatchObject({ kind: 'session-start', source: 'resume', sessionId: '7e57ffe7-ac6d-4b4a-ba18-a47e396174c7' });
    expect(start.transcriptPath).toBeUndefined();
    const before = parse('before-agent', 'before-agent.resume.json');
    expect(before.transcriptPath).toBe('/tmp/etest.4q6wsN/home/.gemini/tmp/repo/chats/session-2026-11-25T19-53-7e57ffe7.jsonl');
    expect(before.prompt).toBe('Now add d.go with func D (test turn 2)');
    const after = parse('after-agent', 'after-agent.json');
    expect(after).toMatchObject({ kind: 'turn-end', response: 'Created a.go, committed it, and changed B to return 2.' });
    expect(parse('session-end', 'session-end.json')).toMatchObject({ kind: 'session-end', reason: 'exit', transcriptPath: hook('session-end.json')['transcript_path'] });
    for (const f of ['before-tool.write_file.json', 'after-tool.replace.json', 'pre-compress.json', 'after-model.text.json']) {
      const verb = f.split('.')[0]!;
      expect(parse(verb, f).kind).toBe('noop');
    }
  });
});

describe('where sessions live and are restored (SPEC-2 §B.7, §B.8)', () => {
  let home: string;
  beforeEach(() => {
    home = tempDir();
    mkdirSync(join(home, '.gemini'));
    process.env['HOME'] = home;
    delete process.env['GEMINI_CLI_HOME'];
    delete process.env['ENTIRE_TEST_GEMINI_PROJECT_DIR'];
  });
  const gem = (...p: string[]) => join(home, '.gemini', ...p);
  const marker = (slug: string, owner: string) => {
    mkdirSync(gem('tmp', slug), { recursive: true });
    writeFileSync(gem('tmp', slug, '.project_root'), owner);
  };

  it('slugs as the CLI makes them', () => {
    expect(slugify('My Repo.v2')).toBe('my-repo-v2');
    expect(slugify('--x__y--')).toBe('x-y');
    expect(slugify('ünï')).toBe('n');
    expect(slugify('...')).toBe('project');
  });

  it("a root's slug: registered (markers agreeing), else a marker naming it, else the first free <slug>-<n>", () => {
    expect(projectSlug('/w/app')).toEqual({ slug: 'app', registered: false });
    writeFileSync(gem('projects.json'), JSON.stringify({ projects: { '/other/app': 'app' } }));
    expect(projectSlug('/w/app')).toEqual({ slug: 'app-1', registered: false });
    marker('app-1', '/elsewhere/app'); // owned on disk by another root
    expect(projectSlug('/w/app')).toEqual({ slug: 'app-2', registered: false });
    marker('found', '/w/app');
    expect(projectSlug('/w/app')).toEqual({ slug: 'found', registered: false });
    writeFileSync(gem('projects.json'), JSON.stringify({ projects: { '/other/app': 'app', '/w/app': 'mine' } }));
    expect(projectSlug('/w/app')).toEqual({ slug: 'mine', registered: true });
    marker('mine', '/someone/else'); // the CLI drops a mapping its marker contradicts
    expect(projectSlug('/w/app')).toEqual({ slug: 'found', registered: false });
  });

  it('restore target: chats/session-<startTime UTC>-<sid8>.jsonl, .json for a legacy document, an existing file of the session first', () => {
    const chats = gem('tmp', 'app', 'chats');
    expect(geminiRestorePath('/w/app', SID, Buffer.from(sample))).toBe(join(chats, 'session-2026-11-25T19-49-be882b4e.jsonl'));
    const legacy = Buffer.from(JSON.stringify({ sessionId: SID, startTime: '2026-02-03T04:05:06.000Z', messages: [] }));
    expect(geminiRestorePath('/w/app', SID, legacy)).toBe(join(chats, 'session-2026-02-03T04-05-be882b4e.json'));
    mkdirSync(chats, { recursive: true });
    writeFileSync(join(chats, 'session-2026-11-25T19-50-be882b4e.jsonl'), 'x');
    writeFileSync(join(chats, 'session-2026-11-26T08-00-be882b4e.jsonl'), 'stray');
    expect(geminiRestorePath('/w/app', SID, Buffer.from(sample))).toBe(join(chats, 'session-2026-11-25T19-50-be882b4e.jsonl'));
    expect(fileStamp('not a date', new Date('2026-01-02T03:04:05Z'))).toBe('2026-01-02T03-04');
  });

  it('registering writes the marker and adds the root to projects.json keeping every other entry and key', () => {
    writeFileSync(gem('projects.json'), JSON.stringify({ projects: { '/other/app': 'app' }, extra: 1 }));
    const target = geminiRestorePath('/w/app', SID, Buffer.from(sample));
    registerGeminiProject('/w/app', target);
    expect(JSON.parse(readFileSync(gem('projects.json'), 'utf8'))).toEqual({ projects: { '/other/app': 'app', '/w/app': 'app-1' }, extra: 1 });
    expect(readFileSync(gem('tmp', 'app-1', '.project_root'), 'utf8')).toBe('/w/app');
    expect(readdirSync(gem()).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    // registered now: nothing to change
    registerGeminiProject('/w/app', target);
    expect(projectSlug('/w/app')).toEqual({ slug: 'app-1', registered: true });
  });

  it('refuses a projects.json it cannot read, a target outside the slug, and a symlinked slug directory', () => {
    writeFileSync(gem('projects.json'), '{not json');
    expect(() => registerGeminiProject('/w/app', gem('tmp', 'app', 'chats', 'session-x-be882b4e.jsonl'))).toThrow(/not a project registry/);
    expect(readFileSync(gem('projects.json'), 'utf8')).toBe('{not json');
    writeFileSync(gem('projects.json'), '{"projects":{}}');
    expect(() => registerGeminiProject('/w/app', gem('tmp', 'other', 'chats', 'x.jsonl'))).toThrow(/not in this project/);
    const elsewhere = tempDir();
    mkdirSync(gem('tmp'), { recursive: true });
    symlinkSync(elsewhere, gem('tmp', 'app'));
    let err: unknown;
    try {
      registerGeminiProject('/w/app', gem('tmp', 'app', 'chats', 'x.jsonl'));
    } catch (e) {
      err = e;
    }
    expect(isEntireError(err, 'UNSAFE_PATH')).toBe(true);
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it('finds a session without a hook path in the slug directory, else the legacy sha256 one; GEMINI_CLI_HOME moves the home', () => {
    const legacy = gem('tmp', geminiProjectHash('/w/app'), 'chats');
    mkdirSync(legacy, { recursive: true });
    writeFileSync(join(legacy, 'session-2026-01-01T00-00-be882b4e.json'), '{}');
    expect(findGeminiTranscript('/w/app', SID)).toBe(join(legacy, 'session-2026-01-01T00-00-be882b4e.json'));
    const chats = gem('tmp', 'app', 'chats');
    mkdirSync(chats, { recursive: true });
    writeFileSync(join(chats, 'session-2026-11-25T19-49-be882b4e.jsonl'), sample);
    expect(findGeminiTranscript('/w/app', SID)).toBe(join(chats, 'session-2026-11-25T19-49-be882b4e.jsonl'));
    const other = tempDir();
    process.env['GEMINI_CLI_HOME'] = other;
    expect(findGeminiTranscript('/w/app', SID)).toBe('');
    expect(geminiRestorePath('/w/app', SID)).toMatch(new RegExp(`^${other}/\\.gemini/tmp/app/chats/session-.*-be882b4e\\.jsonl$`));
  });
});

describe('enable notes (SPEC-2 §B.8)', () => {
  it('trust as the CLI decides it: env, folderTrust off, the longest trustedFolders rule', () => {
    const home = tempDir();
    const root = join(home, 'work', 'app');
    mkdirSync(root, { recursive: true });
    const env = { HOME: home } as NodeJS.ProcessEnv;
    const rules = (r: Record<string, string>) => {
      mkdirSync(join(home, '.gemini'), { recursive: true });
      writeFileSync(join(home, '.gemini', 'trustedFolders.json'), JSON.stringify(r));
    };
    expect(geminiTrustsFolder(root, env)).toBe(false);
    expect(geminiTrustsFolder(root, { ...env, GEMINI_CLI_TRUST_WORKSPACE: 'true' })).toBe(true);
    rules({ [root]: 'TRUST_FOLDER' });
    expect(geminiTrustsFolder(root, env)).toBe(true);
    expect(geminiTrustsFolder(root, { ...env, GEMINI_CLI_TRUST_WORKSPACE: 'false' })).toBe(false);
    rules({ [join(home, 'work')]: 'TRUST_FOLDER', [root]: 'DO_NOT_TRUST' });
    expect(geminiTrustsFolder(root, env)).toBe(false);
    rules({ [join(home, 'work', 'sibling')]: 'TRUST_PARENT' });
    expect(geminiTrustsFolder(root, env)).toBe(true);
    rules({ [join(home, 'work', 'app-other')]: 'TRUST_FOLDER' });
    expect(geminiTrustsFolder(root, env)).toBe(false);
    writeFileSync(join(home, '.gemini', 'settings.json'), JSON.stringify({ security: { folderTrust: { enabled: false } } }));
    expect(geminiTrustsFolder(root, env)).toBe(true);
  });

  it('the trust line for an untrusted folder; the identity line unless the repo config names the author', async () => {
    const home = tempDir();
    const root = join(home, 'repo');
    execFileSync('git', ['init', '-q', root], { env: testEnv(home) });
    // the hook's process environment (git must not see a global config here either)
    const env = { HOME: home, GIT_CONFIG_GLOBAL: '/dev/null' } as NodeJS.ProcessEnv;
    const notes = await geminiEnableNotes(root, env);
    expect(notes).toEqual([
      `! Gemini CLI runs these hooks only in a trusted folder: trust ${root} in Gemini`,
      expect.stringContaining('"Author identity unknown"'),
    ]);
    execFileSync('git', ['config', 'user.name', 'Dev'], { cwd: root, env: testEnv(home) });
    execFileSync('git', ['config', 'user.email', 'dev@example.com'], { cwd: root, env: testEnv(home) });
    expect(await geminiEnableNotes(root, { ...env, GEMINI_CLI_TRUST_WORKSPACE: 'true' })).toEqual([]);
    expect(existsSync(join(home, '.gemini', 'trustedFolders.json'))).toBe(false);
  });
});
