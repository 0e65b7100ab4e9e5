/** SPEC §3.2 JSONL walk details and the claude-secrets.jsonl statement of §3.4. */
import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { redactJsonl, redactJsonLine, redactJsonDocument, redactTranscript, redactWithStats } from '../../src/redact/index.js';
import { FIXTURES } from '../helpers/repo.js';

const S = 'sk-ant-api03-xK9mZ2vL8nQ5rT1wY4bC7dF0gH3jE6pA';

describe('claude-secrets.jsonl (SPEC §3.4)', () => {
  const text = readFileSync(join(FIXTURES, 'transcripts', 'claude-secrets.jsonl'), 'utf8');
  const out = redactJsonl(text);
  const SECRETS = [
    'AKIAFAKE2TESTKEY7ZQX',
    'fAkE9sEcReT/tEsTkEy+Q2mZ7vR1bN8kL3pJ5wX4yD6h',
    'ghp_FaKe7T0kEnF0rTeStS9xQ2mZ7vR1bN8kL3pJ',
    'FakePw-hK9vQ2mZ7xR4tB8nW3yL6pJ5sD1',
    'BEGIN OPENSSH PRIVATE KEY',
  ];

  it('no secret remains', () => {
    for (const s of SECRETS) expect(text).toContain(s);
    for (const s of SECRETS) expect(out).not.toContain(s);
  });

  it('keeps the line-3 signature, key_id, every uuid/id value and the key names', () => {
    const inLines = text.split('\n');
    const sig = (JSON.parse(inLines[2]!) as { message: { content: Array<{ signature: string }> } }).message.content[0]!.signature;
    expect(out).toContain(sig);
    expect(out).toContain('"key_id":"kid_9Xq2Lw7Rz4Tn8Vb3Mc6Hd1Jf5Gs0Pk"');
    expect(out).toContain('"AWS_SECRET_ACCESS_KEY":"REDACTED"');
    expect(out).toContain('"GITHUB_TOKEN":"REDACTED"');
    for (const m of text.matchAll(/"(uuid|id|parentUuid|sessionId|requestId|tool_use_id|messageId)":"([^"]+)"/g)) {
      expect(out).toContain(`"${m[1]}":"${m[2]}"`);
    }
  });

  it('same line count; every non-blank line parses', () => {
    const lines = out.split('\n');
    expect(lines.length).toBe(text.split('\n').length);
    for (const l of lines) if (l.trim() !== '') JSON.parse(l);
  });

  it('lines without findings are byte-identical', () => {
    const a = text.split('\n');
    const b = out.split('\n');
    expect(b[0]).toBe(a[0]);
    expect(b[2]).toBe(a[2]); // thinking + signature
    expect(b[14]).toBe(a[14]); // progress line
  });

  it('--stats style counting sees each rule family involved', () => {
    const { output, stats } = redactWithStats(text, 'jsonl');
    expect(output).toBe(out);
    expect(stats['aws-access-key-id']).toBeGreaterThan(0);
    expect(stats['github-pat']).toBeGreaterThan(0);
    expect(stats['private-key']).toBeGreaterThan(0);
    expect(stats['entropy']).toBeGreaterThan(0);
  });
});

describe('walk rules', () => {
  it('keys are never redacted, even when they look like secrets', () => {
    const line = `{"${S}":"plain","b":{"${S}":["${S}"]}}`;
    expect(redactJsonLine(line)).toBe(`{"${S}":"plain","b":{"${S}":["REDACTED"]}}`);
  });

  it('skips values of signature and of keys ending in id/ids (any case), whole subtrees; scans identify/signatures', () => {
    const kept = { signature: S, uuid: S, sessionId: S, tool_use_id: S, ID: S, toolIds: [S], parent_ids: { a: S } };
    const line = JSON.stringify(kept);
    expect(redactJsonLine(line)).toBe(line);
    const scanned = JSON.stringify({ identify: S, signatures: S, Signature: S, idx: S });
    expect(redactJsonLine(scanned)).toBe('{"identify":"REDACTED","signatures":"REDACTED","Signature":"REDACTED","idx":"REDACTED"}');
  });

  it('skips objects typed image* or base64 wherever the type key sits; not other objects', () => {
    const a = `{"source":{"data":"${S}","type":"base64"},"type":"image"}`;
    expect(redactJsonLine(a)).toBe(a);
    const b = `{"data":"${S}","type":"image/png"}`;
    expect(redactJsonLine(b)).toBe(b);
    const c = `{"data":"${S}","type":"images_are_not_base64"}`;
    expect(redactJsonLine(c)).toBe(c);
    const d = `[{"data":"${S}","type":"text"},{"type":"image","data":"${S}"}]`;
    expect(redactJsonLine(d)).toBe(`[{"data":"REDACTED","type":"text"},{"type":"image","data":"${S}"}]`);
    const e = `{"type":["image"],"data":"${S}"}`;
    expect(redactJsonLine(e)).toBe('{"type":["image"],"data":"REDACTED"}');
  });

  it('rewrites only the token: escapes elsewhere, whitespace and key order are kept byte-exact', () => {
    const line = `{ "a" : "caf\\u00e9 \\/ ok" ,\t"b":"${S}\\n" , "c": [1, 2.5e-3, true, null] }\r`;
    expect(redactJsonLine(line)).toBe(`{ "a" : "caf\\u00e9 \\/ ok" ,\t"b":"REDACTED\\n" , "c": [1, 2.5e-3, true, null] }\r`);
  });

  it('finds secrets hidden behind escapes (\\u003c, \\/) and writes the JSON encoding without HTML escaping', () => {
    expect(redactJsonLine(`{"a":"<b>\\u003c${S}"}`)).toBe('{"a":"<b><REDACTED"}');
    expect(redactJsonLine('{"u":"https:\\/\\/hooks.slack.com\\/services\\/T00000000\\/B00000000\\/XXXXXXXXXXXXXXXXXXXXXXXX"}')).not.toContain('XXXXXXXXXXXXXXXXXXXXXXXX');
  });

  it('blank lines, CRLF separators and a missing final newline are kept', () => {
    const text = `{"a":"${S}"}\r\n\n  \n{"b":1}`;
    expect(redactJsonl(text)).toBe(`{"a":"REDACTED"}\r\n\n  \n{"b":1}`);
  });

  it('invalid JSON lines are redacted as text (keys included)', () => {
    for (const bad of [`{"${S}": 1`, `{"a":"${S}"} trailing`, `{"a":"x\u0001${S}"}`, `{"a":01, "b":"${S}"}`, `'${S}'`]) {
      expect(redactJsonLine(bad)).not.toContain(S);
    }
  });

  it('top-level scalars and a Gemini one-document transcript', () => {
    expect(redactJsonLine(`"${S}"`)).toBe('"REDACTED"');
    expect(redactJsonLine('42')).toBe('42');
    const doc = JSON.stringify({ sessionId: S, messages: [{ id: S, type: 'user', content: `token ${S}` }] }, null, 2);
    const out = redactJsonDocument(doc);
    expect(out).toBe(doc.replace(`"token ${S}"`, '"token REDACTED"'));
    expect(redactTranscript(doc, 'json')).toBe(out);
    expect(redactJsonDocument(`{ not json ${S}`)).toBe('{ not json REDACTED');
  });

  it('the Gemini fixtures come back unchanged (no secrets in them)', () => {
    for (const f of ['gemini-small.json', 'gemini-small-v2.json']) {
      const text = readFileSync(join(FIXTURES, 'transcripts', f), 'utf8');
      expect(redactJsonDocument(text)).toBe(text);
    }
  });
});
