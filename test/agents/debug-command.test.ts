import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, cleanupAll, FIXTURES, tempDir, testEnv } from '../helpers/repo.js';
import { AGENT_KEYS } from '../../src/agents/registry.js';

afterAll(cleanupAll);

const DIR = join(FIXTURES, 'transcripts');

function entire(args: string[]) {
  const home = tempDir();
  const r = spawnSync(process.execPath, [CLI, ...args], { env: testEnv(home), cwd: home, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('entire debug transcript (SPEC §7, §11 item 36)', () => {
  it('claude-small.jsonl: the §7.1 values as one JSON document', () => {
    const r = entire(['debug', 'transcript', join(DIR, 'claude-small.jsonl'), '--agent', 'claude-code']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.endsWith('}\n')).toBe(true);
    const doc = JSON.parse(r.stdout);
    expect(Object.keys(doc)).toEqual(['position', 'last_identifier', 'modified_files', 'prompts', 'token_usage', 'model']);
    expect(doc).toEqual({
      position: 20,
      last_identifier: 'f340c3c2-f210-401b-a7db-092d82f42784',
      modified_files: ['src/server.ts', 'test/healthz.test.ts'],
      prompts: [
        'Add a GET /healthz endpoint to the express server that returns {"status":"ok"}, and add a small test for it.',
        'Also include the build sha from the BUILD_SHA env var in the healthz response.',
      ],
      token_usage: { input_tokens: 36, cache_creation_tokens: 5045, cache_read_tokens: 116409, output_tokens: 868, api_call_count: 7 },
      model: 'claude-sonnet-4-5-20250929',
    });
  });

  it('--from 14 analyses turn 2 only', () => {
    const r = entire(['debug', 'transcript', join(DIR, 'claude-small.jsonl'), '--agent', 'claude-code', '--from', '14']);
    expect(r.status, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.position).toBe(20);
    expect(doc.modified_files).toEqual(['src/server.ts']);
    expect(doc.token_usage).toEqual({ input_tokens: 12, cache_creation_tokens: 1518, cache_read_tokens: 36054, output_tokens: 195, api_call_count: 2 });
  });

  it('claude-midturn-commit.jsonl', () => {
    const doc = JSON.parse(entire(['debug', 'transcript', join(DIR, 'claude-midturn-commit.jsonl'), '--agent', 'claude-code']).stdout);
    expect(doc.position).toBe(18);
    expect(doc.modified_files).toEqual(['src/middleware/rateLimit.ts', 'src/server.ts', 'README.md']);
    expect(doc.token_usage.output_tokens).toBe(1150);
  });

  it.each([
    ['gemini-small.json', 8],
    ['gemini-small-v2.json', 9],
  ])('%s: position %i and the §7.2 values (root from projectHash)', (file, position) => {
    const r = entire(['debug', 'transcript', join(DIR, file), '--agent', 'gemini']);
    expect(r.status, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.position).toBe(position);
    expect(doc.last_identifier).toBe('4a9d2f7b-6e1c-43a8-b5f2-8d0e7c3a1b69');
    expect(doc.modified_files).toEqual(['src/server.ts', 'test/version.test.ts', 'README.md']);
    expect(doc.prompts).toHaveLength(2);
    expect(doc.token_usage).toEqual({ input_tokens: 61637, cache_creation_tokens: 0, cache_read_tokens: 48790, output_tokens: 425, api_call_count: 6 });
  });

  it('detects a Gemini document without --agent; --root overrides the derived root', () => {
    const doc = JSON.parse(entire(['debug', 'transcript', join(DIR, 'gemini-small.json')]).stdout);
    expect(doc.position).toBe(8);
    const rooted = JSON.parse(
      entire(['debug', 'transcript', join(DIR, 'claude-small.jsonl'), '--agent', 'claude-code', '--root', '/home/dev/projects/acme-api/src']).stdout,
    );
    expect(rooted.modified_files).toEqual(['server.ts']);
  });

  it('errors: unknown agent, bad --from, missing file (exit 1, one clear line)', () => {
    const unknown = entire(['debug', 'transcript', join(DIR, 'claude-small.jsonl'), '--agent', 'bogus']);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain(`Unknown agent "bogus" (known agents: ${AGENT_KEYS.join(', ')}).`);
    const badFrom = entire(['debug', 'transcript', join(DIR, 'claude-small.jsonl'), '--from', '-3']);
    expect(badFrom.status).toBe(1);
    expect(badFrom.stderr).toContain('--from');
    const missing = entire(['debug', 'transcript', join(tempDir(), 'nope.jsonl'), '--agent', 'claude-code']);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('cannot read transcript');
    const bad = join(tempDir(), 'bad.json');
    writeFileSync(bad, '{"messages": [');
    expect(entire(['debug', 'transcript', bad, '--agent', 'gemini']).status).toBe(1);
  });

  it('is hidden from --help', () => {
    const r = entire(['--help']);
    expect(r.stdout).toContain('version');
    expect(r.stdout).not.toMatch(/^\s+debug\b/m);
  });
});
