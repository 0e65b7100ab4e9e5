/**
 * Gemini CLI 0.61 end to end through the built CLI (SPEC-2 §B.6–§B.8, B2,
 * B5, B6): the real hook payloads replayed, in the order the CLI sent them,
 * against the real session file as it grew (both from
 * test/fixtures/real-agents/gemini-cli/, `/tmp/gx` rewritten to this test's
 * directory), then a person's commit; then `resume` in a clone under another
 * directory name.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { dirname, join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { cleanupAll, FIXTURES, makeRepo, repoAt, tempDir, testEnv, type TempRepo } from '../helpers/repo.js';
import { commit, headMessage, trailerIds, showCheckpointFile, stateOf, expectClean } from './helpers.js';

afterAll(cleanupAll);

const REAL = join(FIXTURES, 'real-agents', 'gemini-cli');
const SID = 'be882b4e-d4e5-4e60-bccc-3909ddf3db3d';
const PROMPT = 'Create a.go with func A, commit it, then make B return 2';
const SESSION_NAME = 'session-2026-11-25T19-49-be882b4e.jsonl';

/** The fixture with the capture's `/tmp/gx` (holding `repo/` and `home/`) moved to this test's base, and the project hash of its root. */
function relocated(text: string, base: string, root: string): string {
  const hash = createHash('sha256').update(root).digest('hex');
  return text.split('/tmp/gx/').join(`${base}/`).replace(/"projectHash":"[0-9a-f]{64}"/g, `"projectHash":"${hash}"`);
}

function logLines(r: TempRepo): Array<Record<string, unknown>> {
  return readFileSync(join(r.dir, '.entire', 'logs', 'entire.log'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** A repo at `<base>/repo`, `$HOME` at `<base>/home` (the capture's layout), Entire enabled for Gemini, b.go returning 1. */
function geminiRepo(): { r: TempRepo; base: string; enableOut: string } {
  const r = makeRepo();
  const base = dirname(r.dir);
  r.write('b.go', 'package main\n\nfunc B() int { return 1 }\n');
  r.commitAll('b.go');
  const en = r.entire(['enable', '--agent', 'gemini']);
  expect(en.status, en.stderr).toBe(0);
  r.git(['add', '.entire/settings.json', '.entire/.gitignore', '.gemini/settings.json']);
  r.git(['commit', '-q', '--no-verify', '-m', 'enable entire']);
  return { r, base, enableOut: en.stdout };
}

/**
 * The captured turn, hook by hook, with the session file as it was at each
 * hook: metadata and `<session_context>` at start-up, everything at
 * AfterAgent; the agent's edits in between. Returns the session file.
 */
function replayTurn(r: TempRepo, base: string): string {
  const session = relocated(readFileSync(join(REAL, 'transcripts', 'session-sample.jsonl'), 'utf8'), base, r.dir).split('\n');
  const chats = join(r.home, '.gemini', 'tmp', 'repo', 'chats');
  mkdirSync(chats, { recursive: true });
  const file = join(chats, SESSION_NAME);
  const hook = (verb: string, payload: string, env: Record<string, string> = {}) => {
    const res = r.entire(['hooks', 'gemini', verb], { input: relocated(readFileSync(join(REAL, 'hooks', payload), 'utf8'), base, r.dir), env });
    expect(res.status, res.stderr).toBe(0);
    expect(res.stderr).toBe('');
    return res;
  };
  writeFileSync(file, session.slice(0, 2).join('\n') + '\n');
  expect(hook('session-start', 'session-start.startup.json').stdout).toContain('Powered by Entire');
  hook('before-agent', 'before-agent.json');
  expect(stateOf(r, SID)).toMatchObject({ phase: 'active', transcript_path: file, first_prompt: PROMPT });
  r.write('a.go', 'package main\n\nfunc A() int { return 42 }\n');
  r.write('b.go', 'package main\n\nfunc B() int { return 2 }\n');
  writeFileSync(file, session.join('\n'));
  hook('after-agent', 'after-agent.json', { ENTIRE_STOP_WAIT_MS: '3000' });
  hook('session-end', 'session-end.json');
  return file;
}

describe('Gemini CLI 0.61: a replayed headless turn, then a commit', () => {
  it('the checkpoint has the prompt, the token usage and the files; the flush needed no wait (B2)', () => {
    const { r, base } = geminiRepo();
    replayTurn(r, base);
    const state = stateOf(r, SID);
    expect(state).toMatchObject({ phase: 'ended', agent_type: 'Gemini CLI', files_touched: ['a.go', 'b.go'] });

    const done = logLines(r).find((l) => l['msg'] === 'hook completed' && l['hook'] === 'gemini after-agent');
    expect(done).toMatchObject({ flush: 'flushed' });
    expect(typeof done!['flush_wait_ms']).toBe('number');

    r.git(['add', 'a.go', 'b.go']);
    expect(commit(r, ['-m', 'a.go, and B returns 2']).status).toBe(0);
    const [id] = trailerIds(headMessage(r));
    expect(id).toMatch(/^[0-9a-f]{12}$/);
    const md = JSON.parse(showCheckpointFile(r, id!, '0/metadata.json')) as Record<string, unknown>;
    expect(md).toMatchObject({
      session_id: SID,
      agent: 'Gemini CLI',
      files_touched: ['a.go', 'b.go'],
      checkpoint_transcript_start: 2,
      transcript_identifier_at_start: 'd04923d38bb0f6017037e74183378ef4',
      token_usage: { input_tokens: 4734, cache_creation_tokens: 0, cache_read_tokens: 400, output_tokens: 166, api_call_count: 4 },
      transcript_path: `.gemini/tmp/repo/chats/${SESSION_NAME}`,
    });
    expect(showCheckpointFile(r, id!, '0/prompt.txt')).toBe(PROMPT);
    // stored as JSONL, line for line (SPEC §2.7)
    const stored = showCheckpointFile(r, id!, '0/full.jsonl');
    expect(stored.trimEnd().split('\n')).toHaveLength(21);
    expect(JSON.parse(stored.split('\n')[0]!)).toMatchObject({ sessionId: SID, kind: 'main' });

    const explain = r.entire(['explain', '--commit', 'HEAD']);
    expect(explain.status, explain.stderr).toBe(0);
    expect(explain.stdout).toContain(`Prompt: ${PROMPT}`);
    expect(explain.stdout).toContain('→ write_file a.go');
    expect(explain.stdout).toContain('Created a.go, committed it, and changed B to return 2.');
    expectClean(r);
  });

  it('B5: SessionStart(resume) naming the stray new file keeps the original transcript in the state', () => {
    const { r } = geminiRepo();
    // the resume capture ran under /tmp/etest.4q6wsN
    const move = (name: string) =>
      readFileSync(join(REAL, 'hooks', name), 'utf8').split('/tmp/etest.4q6wsN/repo').join(r.dir).split('/tmp/etest.4q6wsN/home').join(r.home);
    const sid = '7e57ffe7-ac6d-4b4a-ba18-a47e396174c7';
    const chats = join(r.home, '.gemini', 'tmp', 'repo', 'chats');
    mkdirSync(chats, { recursive: true });
    const original = join(chats, 'session-2026-11-25T19-53-7e57ffe7.jsonl');
    const stray = join(chats, 'session-2026-11-25T19-54-7e57ffe7.jsonl');
    const meta = (sessionId: string) => JSON.stringify({ sessionId, projectHash: 'x', startTime: '2026-11-25T19:53:00.000Z', kind: 'main' }) + '\n';
    writeFileSync(original, meta(sid) + JSON.stringify({ id: 'u1', type: 'user', content: [{ text: 'first turn' }] }) + '\n');
    writeFileSync(stray, readFileSync(join(REAL, 'transcripts', 'session-sample.resume-startup-stray.jsonl')));
    for (const [verb, payload] of [
      ['session-start', 'session-start.resume.json'],
      ['before-agent', 'before-agent.resume.json'],
      ['session-start', 'session-start.resume.json'],
    ] as const) {
      const res = r.entire(['hooks', 'gemini', verb], { input: move(payload) });
      expect(res.status, res.stderr).toBe(0);
    }
    expect(JSON.parse(move('session-start.resume.json'))['transcript_path']).toBe(stray);
    expect(stateOf(r, sid)).toMatchObject({ phase: 'active', transcript_path: original });
  });

  it('enable in an untrusted folder says how to trust it, and never edits trustedFolders.json', () => {
    const { r, enableOut } = geminiRepo();
    expect(enableOut.split('\n')).toContain(`! Gemini CLI runs these hooks only in a trusted folder: trust ${r.dir} in Gemini`);
    expect(existsSync(join(r.home, '.gemini', 'trustedFolders.json'))).toBe(false);
    const trusted = r.entire(['enable', '--agent', 'gemini'], { env: { GEMINI_CLI_TRUST_WORKSPACE: 'true' } });
    expect(trusted.status, trusted.stderr).toBe(0);
    expect(trusted.stdout).not.toContain('trusted folder');
    // Claude Code has no such notes
    expect(r.entire(['enable']).stdout).not.toContain('!');
  });
});

describe('B6: resume in a clone under another directory name', () => {
  it('writes the session where `gemini --resume` looks and registers the slug, keeping other projects', () => {
    const { r, base } = geminiRepo();
    replayTurn(r, base);
    r.git(['add', 'a.go', 'b.go']);
    expect(commit(r, ['-m', 'a.go, and B returns 2']).status).toBe(0);
    const [id] = trailerIds(headMessage(r));
    const stored = showCheckpointFile(r, id!, '0/full.jsonl');

    // a teammate: another home whose Gemini already knows a project named like the clone
    const base2 = tempDir();
    const home2 = join(base2, 'home');
    const dir2 = join(base2, 'other-name');
    mkdirSync(join(home2, '.gemini', 'tmp', 'other-name'), { recursive: true });
    const registry = { projects: { '/somewhere/other-name': 'other-name' } };
    writeFileSync(join(home2, '.gemini', 'projects.json'), JSON.stringify(registry, null, 2));
    writeFileSync(join(home2, '.gemini', 'tmp', 'other-name', '.project_root'), '/somewhere/other-name');
    const env2 = testEnv(home2);
    execFileSync('git', ['clone', '-q', r.dir, dir2], { env: env2 });
    const clone = repoAt(dir2, home2, env2);

    const res = clone.entire(['resume', 'main']);
    expect(res.status, res.stderr).toBe(0);
    const target = join(home2, '.gemini', 'tmp', 'other-name-1', 'chats', SESSION_NAME);
    expect(res.stdout).toContain(`Restored transcript of session ${SID} to ${target}`);
    expect(res.stdout).toContain(`gemini --resume ${SID}`);
    expect(readFileSync(target, 'utf8')).toBe(stored);
    expect(JSON.parse(readFileSync(join(home2, '.gemini', 'projects.json'), 'utf8'))).toEqual({
      projects: { '/somewhere/other-name': 'other-name', [dir2]: 'other-name-1' },
    });
    expect(readFileSync(join(home2, '.gemini', 'tmp', 'other-name-1', '.project_root'), 'utf8')).toBe(dir2);
    expect(readFileSync(join(home2, '.gemini', 'tmp', 'other-name', '.project_root'), 'utf8')).toBe('/somewhere/other-name');

    // again: the same bytes are already there; a differing file is kept (SPEC-2 §A.10)
    expect(clone.entire(['resume', 'main']).stdout).toContain(`Transcript of session ${SID} is already at ${target}`);
    writeFileSync(target, stored + '{"$set":{"lastUpdated":"later"}}\n');
    const kept = clone.entire(['resume', 'main']);
    expect(kept.stdout).toContain(`Kept ${target} (differs; --force overwrites)`);
  });
});
