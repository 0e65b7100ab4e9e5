/** `entire redact [--jsonl] [--json] [--stats] [FILE]` (SPEC §8.10). */
import { describe, it, expect, afterAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { redactJsonl, redactJsonDocument } from '../../src/redact/index.js';
import { CLI, FIXTURES, tempDir, testEnv, cleanupAll } from '../helpers/repo.js';

afterAll(cleanupAll);

function run(args: string[], input = ''): { status: number | null; stdout: string; stderr: string } {
  const home = tempDir();
  const r = spawnSync(process.execPath, [CLI, 'redact', ...args], { input, encoding: 'utf8', env: testEnv(home), cwd: home, maxBuffer: 64 << 20 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const secretsFile = join(FIXTURES, 'transcripts', 'claude-secrets.jsonl');

describe('entire redact', () => {
  it('--jsonl FILE writes exactly what would be stored (§11.36)', () => {
    const r = run(['--jsonl', secretsFile]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(redactJsonl(readFileSync(secretsFile, 'utf8')));
    for (const s of ['AKIAFAKE2TESTKEY7ZQX', 'ghp_FaKe7T0kEnF0rTeStS9xQ2mZ7vR1bN8kL3pJ', 'FakePw-hK9vQ2mZ7xR4tB8nW3yL6pJ5sD1', 'BEGIN OPENSSH PRIVATE KEY']) {
      expect(r.stdout).not.toContain(s);
    }
    expect(r.stdout).toContain('kid_9Xq2Lw7Rz4Tn8Vb3Mc6Hd1Jf5Gs0Pk');
  });

  it('plain text mode redacts keys of JSON too (no walk)', () => {
    const r = run([], '{"ghp_FaKe7T0kEnF0rTeStS9xQ2mZ7vR1bN8kL3pJ":1}\n');
    expect(r.stdout).toBe('{"REDACTED":1}\n');
  });

  it('--json walks one document (Gemini)', () => {
    const f = join(FIXTURES, 'transcripts', 'gemini-small.json');
    const r = run(['--json', f]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe(redactJsonDocument(readFileSync(f, 'utf8')));
  });

  it('--stats prints per-rule counts to standard error, output unchanged', () => {
    const plain = run(['--jsonl', secretsFile]);
    const r = run(['--jsonl', '--stats', secretsFile]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe(plain.stdout);
    const rows = Object.fromEntries(r.stderr.trim().split('\n').map((l) => l.split('\t') as [string, string]));
    expect(Number(rows['github-pat'])).toBeGreaterThan(0);
    expect(Number(rows['private-key'])).toBeGreaterThan(0);
    expect(Number(rows['total'])).toBeGreaterThan(0);
    for (const v of Object.values(rows)) expect(v).toMatch(/^\d+$/);
  });

  it('empty input gives empty output; binary-free text without secrets is unchanged', () => {
    expect(run([], '').stdout).toBe('');
    const text = 'hello\nworld\n';
    expect(run([], text).stdout).toBe(text);
  });

  it('an unreadable file: one error line, exit 1', () => {
    const dir = tempDir();
    const r = run([join(dir, 'missing.jsonl')]);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^Error: cannot read .*missing\.jsonl/);
    const d = run([dir]);
    expect(d.status).toBe(1);
  });

  it('--jsonl with --json is a usage error', () => {
    const dir = tempDir();
    const f = join(dir, 'x.txt');
    writeFileSync(f, 'x');
    const r = run(['--jsonl', '--json', f]);
    expect(r.status).toBe(1);
  });
});
