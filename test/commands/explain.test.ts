import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeRepo, cleanupAll, tempDir, FIXTURES, type TempRepo } from '../helpers/repo.js';
import { SAMPLE_IDS, fetchSample, linkCommit, writeCheckpoint } from './helpers.js';

afterAll(cleanupAll);

const DETAIL_KEYS = ['checkpoint_id', 'strategy', 'branch', 'checkpoints_count', 'files_touched', 'token_usage', 'commits', 'sessions'];
const DETAIL_SESSION_KEYS = [
  'index',
  'session_id',
  'agent',
  'model',
  'created_at',
  'turn_id',
  'checkpoints_count',
  'files_touched',
  'token_usage',
  'checkpoint_transcript_start',
  'prompts',
  'summary',
  'transcript_bytes',
];
const LIST_KEYS = ['checkpoint_id', 'commit', 'subject', 'date', 'agent', 'session_ids', 'files_touched', 'first_prompt'];

function json(r: TempRepo, args: string[]): any {
  const res = r.entire(args);
  expect(res.status, res.stderr).toBe(0);
  return JSON.parse(res.stdout);
}

/** stderr of a failed command: exactly one line. */
function oneErrorLine(res: { status: number | null; stdout: string; stderr: string }): string {
  expect(res.status).toBe(1);
  const lines = res.stderr.split('\n').filter((l) => l !== '');
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

describe('explain on Go-written checkpoints (SPEC §11.35)', () => {
  let r: TempRepo;
  const commitOf = new Map<string, string>();

  beforeAll(() => {
    r = makeRepo();
    fetchSample(r);
    for (const id of SAMPLE_IDS) commitOf.set(id, linkCommit(r, `work for ${id}`, [id]));
    r.git(['commit', '-q', '--no-verify', '--allow-empty', '-m', 'plain commit without checkpoint']);
  });

  it('lists the 6 checkpoints linked from HEAD history, newest first', () => {
    const doc = json(r, ['explain', '--json']);
    expect(Object.keys(doc)).toEqual(['checkpoints']);
    expect(doc.checkpoints).toHaveLength(6);
    expect(doc.checkpoints.map((c: any) => c.checkpoint_id)).toEqual([...SAMPLE_IDS].reverse());
    for (const c of doc.checkpoints) expect(Object.keys(c)).toEqual(LIST_KEYS);
    const byId = new Map<string, any>(doc.checkpoints.map((c: any) => [c.checkpoint_id, c]));
    expect(byId.get('42527c9c20c8').session_ids).toHaveLength(2);
    expect(byId.get('42527c9c20c8').commit).toBe(commitOf.get('42527c9c20c8'));
    expect(byId.get('42527c9c20c8').subject).toBe('work for 42527c9c20c8');
    expect(byId.get('c945f262e88d').agent).toBe('Gemini CLI');
    expect(byId.get('8294a9921cfd').agent).toBe('Agent');
    expect(byId.get('c945f262e88d').first_prompt).toBe('run an agent that creates a color file inside docs, choose your color');
  });

  it('text list names each checkpoint and its commit', () => {
    const res = r.entire(['explain']);
    expect(res.status, res.stderr).toBe(0);
    for (const id of SAMPLE_IDS) expect(res.stdout).toContain(`${id}  ${commitOf.get(id)!.slice(0, 7)}`);
    expect(res.stdout).toContain('[Gemini CLI]');
  });

  it('--checkpoint 42527c9c20c8 --json: detail shape with 2 sessions and the linking commit', () => {
    const doc = json(r, ['explain', '--checkpoint', '42527c9c20c8', '--json']);
    expect(Object.keys(doc)).toEqual(DETAIL_KEYS);
    expect(doc.checkpoint_id).toBe('42527c9c20c8');
    expect(doc.branch).toBe('20260209-postinstall-and-completions');
    expect(doc.files_touched).toEqual(['cmd/entire/cli/setup.go', 'scripts/install.sh']);
    expect(doc.token_usage.output_tokens).toBe(1292);
    expect(doc.commits).toEqual([{ sha: commitOf.get('42527c9c20c8'), subject: 'work for 42527c9c20c8', date: expect.any(String) }]);
    expect(doc.sessions).toHaveLength(2);
    for (const s of doc.sessions) expect(Object.keys(s)).toEqual(DETAIL_SESSION_KEYS);
    expect(doc.sessions.map((s: any) => s.index)).toEqual([0, 1]);
    expect(doc.sessions[0].session_id).toBe('28596a79-6247-4bc2-a031-f5848b31e039');
    expect(doc.sessions[0].checkpoint_transcript_start).toBe(19);
    expect(doc.sessions[0].model).toBeNull(); // the Go tool records none
    const blob = r.git(['cat-file', '-s', 'entire/checkpoints/v1:42/527c9c20c8/0/full.jsonl']).trim();
    expect(doc.sessions[0].transcript_bytes).toBe(Number(blob));
    expect(doc.sessions[0].prompts[1]).toBe('do it');
  });

  it('ba5e23ccb05b/0: legacy transcript_uuid_at_start and lines offset are read', () => {
    const doc = json(r, ['explain', '--checkpoint', 'ba5e23ccb05b', '--json']);
    expect(doc.sessions[0].session_id).toBe('2026-01-21-0cf3db51-1c73-43bb-8d05-dc02739514a5');
    expect(doc.sessions[0].checkpoint_transcript_start).toBe(964);
    const text = r.entire(['explain', '--checkpoint', 'ba5e23ccb05b']);
    expect(text.status).toBe(0);
    expect(text.stdout).toContain('3539c3e9-3c31-457b-9c12-be861919d539');
  });

  it('8294a9921cfd/0: steps_count read as checkpoints_count 1, agent unknown', () => {
    const doc = json(r, ['explain', '--checkpoint', '8294a9921cfd', '--json']);
    expect(doc.sessions[0].checkpoints_count).toBe(1);
    expect(doc.sessions[0].agent).toBe('Agent');
    expect(doc.branch).toBe('');
  });

  it('c945f262e88d: Gemini detected from content, no content hash stored', () => {
    const doc = json(r, ['explain', '--checkpoint', 'c945f262e88d', '--json']);
    expect(doc.sessions[0].agent).toBe('Gemini CLI');
    expect(doc.sessions[0].transcript_bytes).toBeGreaterThan(0);
    expect(r.gitResult(['cat-file', '-e', 'entire/checkpoints/v1:c9/45f262e88d/0/content_hash.txt']).status).not.toBe(0);
  });

  it('--checkpoint text: header lines in order, unique prefix accepted', () => {
    const res = r.entire(['explain', '--checkpoint', '42527c']);
    expect(res.status, res.stderr).toBe(0);
    const lines = res.stdout.split('\n');
    expect(lines.slice(0, 6).map((l) => l.split(':')[0])).toEqual(['Checkpoint', 'Session', 'Created', 'Author', 'Tokens', 'Files']);
    expect(lines[0]).toBe('Checkpoint: 42527c9c20c8');
    expect(lines[1]).toBe('Session: 28596a79-6247-4bc2-a031-f5848b31e039, 79eb9f8a-232c-4a72-a26b-4b4520ef2152');
    expect(lines[3]).toBe('Author: Test Author <author@example.com>');
    expect(lines[5]).toBe('Files: (2)');
    expect(res.stdout).toContain('→ Edit scripts/install.sh');
  });

  it('--short stops after the header', () => {
    const res = r.entire(['explain', '--checkpoint', '42527c9c20c8', '--short']);
    expect(res.status).toBe(0);
    expect(res.stdout.trimEnd().split('\n')).toHaveLength(6);
  });

  it('--full shows the whole transcript; the default is bounded', () => {
    const short = r.entire(['explain', '--checkpoint', '7e72a8d8fdb8']);
    const full = r.entire(['explain', '--checkpoint', '7e72a8d8fdb8', '--full']);
    expect(short.status).toBe(0);
    expect(full.status).toBe(0);
    expect(short.stdout).toContain('(use --full to see everything)');
    expect(full.stdout).not.toContain('(use --full to see everything)');
    expect(full.stdout.length).toBeGreaterThan(short.stdout.length);
  });

  it('--raw-transcript prints the stored bytes exactly', () => {
    const res = r.entire(['explain', '--checkpoint', 'ba5e23ccb05b', '--raw-transcript']);
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout).toBe(r.git(['cat-file', 'blob', 'entire/checkpoints/v1:ba/5e23ccb05b/0/full.jsonl']));
    const gem = r.entire(['explain', '--commit', commitOf.get('c945f262e88d')!, '--raw-transcript']);
    expect(gem.status, gem.stderr).toBe(0);
    expect(gem.stdout).toBe(r.git(['cat-file', 'blob', 'entire/checkpoints/v1:c9/45f262e88d/0/full.jsonl']));
  });

  it('--raw-transcript --session picks one session of a multi-session checkpoint', () => {
    const res = r.entire(['explain', '--checkpoint', '42527c9c20c8', '--raw-transcript', '--session', '28596a79-6247-4bc2-a031-f5848b31e039']);
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout).toBe(r.git(['cat-file', 'blob', 'entire/checkpoints/v1:42/527c9c20c8/0/full.jsonl']));
  });

  it('--commit shows checkpoint id, each session with agent and first prompt, then the transcript', () => {
    const res = r.entire(['explain', '--commit', commitOf.get('42527c9c20c8')!]);
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout).toContain('Checkpoint: 42527c9c20c8');
    expect(res.stdout).toContain('Session: 28596a79-6247-4bc2-a031-f5848b31e039');
    expect(res.stdout).toContain('Session: 79eb9f8a-232c-4a72-a26b-4b4520ef2152');
    expect(res.stdout).toContain('Agent: Claude Code');
    expect(res.stdout).toContain('Prompt: While we want this output text to be obvious');
    expect(res.stdout).toContain('→ Edit scripts/install.sh');
    expect(res.stdout).not.toContain('"type":'); // readable, not raw JSON

    const gem = r.entire(['explain', '--commit', commitOf.get('c945f262e88d')!]);
    expect(gem.stdout).toContain('Agent: Gemini CLI');
    expect(gem.stdout).toContain('→ write_file docs/blue.md');
    const legacy = r.entire(['explain', '--commit', commitOf.get('8294a9921cfd')!]);
    expect(legacy.stdout).toContain('Agent: Agent');
  });

  it('--commit --json uses the list shape', () => {
    const doc = json(r, ['explain', '--commit', commitOf.get('ba5e23ccb05b')!, '--json']);
    expect(doc.checkpoints).toHaveLength(1);
    expect(Object.keys(doc.checkpoints[0])).toEqual(LIST_KEYS);
    expect(doc.checkpoints[0].commit).toBe(commitOf.get('ba5e23ccb05b'));
  });

  it('a commit without checkpoint: "No associated Entire checkpoint", exit 0', () => {
    const res = r.entire(['explain', '--commit', 'HEAD']);
    expect(res.status).toBe(0);
    expect(res.stdout).toContain('No associated Entire checkpoint');
  });

  it('--session lists the checkpoints containing that session (agent-id form accepted)', () => {
    const doc = json(r, ['explain', '--session', '21a2e002-8b63-45db-8e0d-1978fe0600aa', '--json']);
    expect(doc.checkpoints.map((c: any) => c.checkpoint_id)).toEqual(['8294a9921cfd']);
    expect(doc.checkpoints[0].commit).toBe(commitOf.get('8294a9921cfd'));
  });

  it('unknown commit, checkpoint or session: one line, exit 1, nothing on stdout', () => {
    for (const args of [
      ['explain', '--commit', 'no-such-rev'],
      ['explain', '--checkpoint', 'ffffffffffff'],
      ['explain', '--checkpoint', 'f0f0'],
      ['explain', '--checkpoint', 'not-hex'],
      ['explain', '--session', 'no-such-session'],
    ]) {
      const res = r.entire(args);
      expect(oneErrorLine(res)).toMatch(/^Error: /);
      expect(res.stdout).toBe('');
    }
    expect(oneErrorLine(r.entire(['explain', '--commit', 'no-such-rev']))).toBe('Error: unknown commit: no-such-rev');
    expect(oneErrorLine(r.entire(['explain', '--checkpoint', 'ffffffffffff']))).toBe('Error: checkpoint not found: ffffffffffff');
  });

  it('conflicting flags are a usage error', () => {
    expect(oneErrorLine(r.entire(['explain', '--short', '--full']))).toMatch(/^Error: Invalid usage: /);
    expect(oneErrorLine(r.entire(['explain', '--commit', 'HEAD', '--checkpoint', '42527c9c20c8']))).toMatch(/^Error: Invalid usage: /);
  });

  it('works when Entire is disabled', () => {
    r.write('.entire/settings.json', '{\n  "strategy": "manual-commit",\n  "enabled": false\n}\n');
    try {
      const doc = json(r, ['explain', '--json']);
      expect(doc.checkpoints).toHaveLength(6);
    } finally {
      r.git(['clean', '-qfdx', '.entire']);
    }
  });
});

describe('explain on checkpoints written by this tool', () => {
  it('an ambiguous prefix is an error naming the matches', async () => {
    const r = makeRepo();
    await writeCheckpoint(r, { checkpointId: 'abc111111111', sessionId: 's1' });
    await writeCheckpoint(r, { checkpointId: 'abc222222222', sessionId: 's2' });
    const line = oneErrorLine(r.entire(['explain', '--checkpoint', 'abc']));
    expect(line).toContain('ambiguous checkpoint prefix "abc" matches 2 checkpoints');
    expect(r.entire(['explain', '--checkpoint', 'abc1']).stdout).toContain('Checkpoint: abc111111111');
  });

  it('renders a Claude transcript readably and skips checkpoints of missing trailers in the list', async () => {
    const r = makeRepo();
    const transcript = readFileSync(join(FIXTURES, 'transcripts', 'claude-small.jsonl'), 'utf8');
    await writeCheckpoint(r, {
      checkpointId: 'aaaaaaaaaaaa',
      sessionId: '7c1e4f2a-9b3d-4e8a-a1f6-2d5c8e0b4f71',
      transcript,
      prompts: ['Add a GET /healthz endpoint'],
      filesTouched: ['src/server.ts', 'test/healthz.test.ts'],
      tokenUsage: { input_tokens: 10, cache_creation_tokens: 0, cache_read_tokens: 0, output_tokens: 5, api_call_count: 1 },
    });
    const sha = linkCommit(r, 'feat: healthz', ['aaaaaaaaaaaa', 'bbbbbbbbbbbb']);
    const res = r.entire(['explain', '--commit', sha]);
    expect(res.status, res.stderr).toBe(0);
    expect(res.stderr).toContain('bbbbbbbbbbbb'); // the dangling one is reported, not fatal
    const out = res.stdout;
    expect(out).toContain('Checkpoint: aaaaaaaaaaaa');
    expect(out).toContain('> Add a GET /healthz endpoint to the express server');
    expect(out).toContain('→ Read src/server.ts');
    expect(out).toContain('→ Edit src/server.ts');
    expect(out).toContain('→ Write test/healthz.test.ts');
    expect(out).toContain('→ Bash npx jest test/healthz.test.ts');
    expect(out).not.toContain('<ide_opened_file>');
    expect(out).not.toContain('file-history-snapshot');
    expect(out).not.toContain('The user wants a health endpoint'); // thinking is not shown

    const list = JSON.parse(r.entire(['explain', '--json']).stdout);
    expect(list.checkpoints.map((c: any) => c.checkpoint_id)).toEqual(['aaaaaaaaaaaa']);
    expect(list.checkpoints[0].files_touched).toEqual(['src/server.ts', 'test/healthz.test.ts']);
    expect(list.checkpoints[0].first_prompt).toBe('Add a GET /healthz endpoint');

    const detail = r.entire(['explain', '--checkpoint', 'aaaaaaaaaaaa']);
    expect(detail.stdout).toContain('Tokens: 15 (input 10, output 5');
    expect(detail.stdout).toContain('Files: (2)');
  });

  it('a commit whose only checkpoint is missing exits 1 with one line', () => {
    const r = makeRepo();
    const sha = linkCommit(r, 'dangling', ['cccccccccccc']);
    expect(oneErrorLine(r.entire(['explain', '--commit', sha]))).toContain('checkpoint cccccccccccc');
  });

  it('a repository without checkpoints: the list says so', () => {
    const r = makeRepo();
    const res = r.entire(['explain']);
    expect(res.status).toBe(0);
    expect(res.stdout).toContain('No Entire checkpoints in the last 50 commits of main.');
    expect(JSON.parse(r.entire(['explain', '--json']).stdout)).toEqual({ checkpoints: [] });
  });

  it('outside a repository: "Not a git repository.", exit 1', () => {
    const r = makeRepo();
    const res = r.entire(['explain'], { cwd: tempDir() });
    expect(res.status).toBe(1);
    expect(res.stderr).toBe('Not a git repository.\n');
  });
});
