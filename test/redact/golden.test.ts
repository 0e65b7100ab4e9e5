/** SPEC §3.4 examples (normative), through the API and through `entire redact`. */
import { describe, it, expect, afterAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import { redactString, redactJsonLine, redactJsonl } from '../../src/redact/index.js';
import { CLI, tempDir, testEnv, cleanupAll } from '../helpers/repo.js';

afterAll(cleanupAll);

const S = 'sk-ant-api03-xK9mZ2vL8nQ5rT1wY4bC7dF0gH3jE6pA';
const G = 'ghp_FaKe7T0kEnF0rTeStS9xQ2mZ7vR1bN8kL3pJ';
const SHA_UUID = '71dc43aa0b9f3c2e8d1a4b5c6d7e8f9a0b1c2d3e c4d8e2a1-6f3b-47c9-9e05-b8a1d3f6e2c7 password: hunter2';
const PEM = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACBGQUtFLUtFWS1GT1ItVEVTVFMtT05MWS1ETy1OT1QtVVNFAAAAmFAKEK\n-----END OPENSSH PRIVATE KEY-----';

export const TEXT_CASES: Array<[string, string]> = [
  [`my key is ${S} ok`, 'my key is REDACTED ok'],
  ['key=AKIAYRWQG5EJLPZLBYNP', 'key=REDACTED'],
  ['key=AKIAYRWQG5EJLPZLBYNP AKIAYRWQG5EJLPZLBYNP', 'key=REDACTED REDACTED'],
  ['key=AKIAYRWQG5EJLPZLBYNPAKIAYRWQG5EJLPZLBYNP', 'key=REDACTED'],
  [`export GITHUB_TOKEN=${G}`, 'export REDACTED'],
  [`Set API_KEY=${S}`, 'Set REDACTED'],
  [`DB_PASSWORD=${S}`, 'REDACTED'],
  ['api_key = "Zx81Qw72Er63Ty54"', 'api_key = "REDACTED"'],
  ['abcdefghijklmnopqrstuvw', 'REDACTED'],
  ['abcdefghijklmnopqrstuv', 'abcdefghijklmnopqrstuv'],
  [SHA_UUID, SHA_UUID],
  [PEM, 'REDACTED'],
];

export const JSONL_CASES: Array<[string, string]> = [
  [`{"type":"text","content":"key=${S}"}`, '{"type":"text","content":"REDACTED"}'],
  [`["${S}","normal text"]`, '["REDACTED","normal text"]'],
  [`{"type":"text", "invalid ${S} json`, '{"type":"text", "invalid REDACTED json'],
  [`{"session_id":"${S}","signature":"${S}"}`, `{"session_id":"${S}","signature":"${S}"}`],
  [`{"type":"image","source":{"type":"base64","data":"${S}"}}`, `{"type":"image","source":{"type":"base64","data":"${S}"}}`],
  [
    `{"s":{"GITHUB_TOKEN":"${G}"},"key_id":"kid_9Xq2Lw7Rz4Tn8Vb3Mc6Hd1Jf5Gs0Pk"}`,
    '{"s":{"GITHUB_TOKEN":"REDACTED"},"key_id":"kid_9Xq2Lw7Rz4Tn8Vb3Mc6Hd1Jf5Gs0Pk"}',
  ],
  [`{"content":"x\\u003c${S}"}`, '{"content":"x<REDACTED"}'],
];

describe('SPEC §3.4 through the API', () => {
  it.each(TEXT_CASES)('redactString(%j)', (input, output) => {
    expect(redactString(input)).toBe(output);
    expect(redactString(output)).toBe(output);
  });

  it.each(JSONL_CASES)('redactJsonLine(%j)', (input, output) => {
    expect(redactJsonLine(input)).toBe(output);
    expect(redactJsonl(input + '\n')).toBe(output + '\n');
  });

  it('the PEM example also goes inside a JSON string with \\n escapes', () => {
    const line = JSON.stringify({ type: 'text', content: `here:\n${PEM}\ndone` });
    expect(redactJsonLine(line)).toBe('{"type":"text","content":"here:\\nREDACTED\\ndone"}');
    // and as raw text holding the escaped form
    expect(redactString(line)).not.toContain('BEGIN OPENSSH');
  });

  it('a replacement that forms a new high-entropy run is redacted again (repeat until stable)', () => {
    expect(redactString('bcdfghjkmnpqrsuvwxyz-AKIAYRWQG5EJLPZLBYNP')).toBe('REDACTED');
  });
});

function cli(args: string[], input: string): { status: number | null; stdout: string; stderr: string } {
  const home = tempDir();
  const r = spawnSync(process.execPath, [CLI, 'redact', ...args], { input, encoding: 'utf8', env: testEnv(home), cwd: home });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('SPEC §3.4 through `entire redact` (§11.36)', () => {
  it('text mode, standard input, every text row', () => {
    for (const [input, output] of TEXT_CASES) {
      const r = cli([], input);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toBe(output);
    }
  });

  it('--jsonl mode: every JSONL row in one file, lines and separators kept', () => {
    const input = JSONL_CASES.map((c) => c[0]).join('\n') + '\n\n';
    const r = cli(['--jsonl'], input);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe(JSONL_CASES.map((c) => c[1]).join('\n') + '\n\n');
  });
});
