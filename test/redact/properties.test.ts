/** fast-check properties of redactString and the JSONL walk. */
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { redactString, redactJsonl, redactJsonLine, redactJsonDocument, mayNeedRedaction } from '../../src/redact/index.js';

const S = 'sk-ant-api03-xK9mZ2vL8nQ5rT1wY4bC7dF0gH3jE6pA';
const secretish = fc.constantFrom(S, 'AKIAYRWQG5EJLPZLBYNP', 'ghp_FaKe7T0kEnF0rTeStS9xQ2mZ7vR1bN8kL3pJ', 'password=Zx81Qw72Er63Ty54', 'abcdefghijklmnopqrstuvw', 'REDACTED', 'key=', '-----BEGIN RSA PRIVATE KEY-----');
const mixed = fc.array(fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), secretish, fc.constantFrom(' ', '\n', '"', '\\', '=', '/', '-')), { maxLength: 12 }).map((xs) => xs.join(''));

describe('redactString', () => {
  it('never throws and is idempotent', () => {
    fc.assert(
      fc.property(mixed, (s) => {
        const once = redactString(s);
        expect(redactString(once)).toBe(once);
      }),
      { numRuns: 2000 },
    );
  });

  it('returns its input whenever the prefilter sees nothing', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        if (!mayNeedRedaction(s)) expect(redactString(s)).toBe(s);
      }),
      { numRuns: 2000 },
    );
  });

  it('never leaves a planted secret', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (a, b) => {
        expect(redactString(`${a} ${S} ${b}`)).not.toContain(S);
      }),
      { numRuns: 500 },
    );
  });
});

describe('JSONL walk', () => {
  it('never changes a line without a finding, and every output line of a JSON line still parses', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const line = JSON.stringify(v);
        const out = redactJsonLine(line);
        const parsed = JSON.parse(out) as unknown;
        let finding = false;
        const visit = (x: unknown): void => {
          if (typeof x === 'string') finding ||= redactString(x) !== x;
          else if (Array.isArray(x)) x.forEach(visit);
          else if (x !== null && typeof x === 'object') Object.values(x).forEach(visit);
        };
        visit(v);
        if (!finding) expect(out).toBe(line);
        expect(parsed).toBeDefined();
      }),
      { numRuns: 1000 },
    );
  });

  it('lines with planted secrets: secret gone, still valid JSON, idempotent', () => {
    fc.assert(
      // keys the walk rightly leaves alone (ids, signatures, the type and content set here) are not generated
      fc.property(fc.dictionary(fc.string().filter((k) => !/ids?$/i.test(k) && !['signature', 'type', 'content'].includes(k)), fc.oneof(fc.string(), secretish.map((s) => `x ${s} y`))), (obj) => {
        const line = JSON.stringify({ type: 'text', content: `see ${S}`, ...obj });
        const out = redactJsonLine(line);
        expect(out).not.toContain(S);
        JSON.parse(out);
        expect(redactJsonLine(out)).toBe(out);
      }),
      { numRuns: 500 },
    );
  });

  it('never throws on arbitrary text and keeps the line count', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(mixed, fc.jsonValue().map((v) => JSON.stringify(v))), { maxLength: 8 }), (lines) => {
        const text = lines.join('\n');
        const out = redactJsonl(text);
        expect(out.split('\n').length).toBe(text.split('\n').length);
        expect(redactJsonl(out)).toBe(out);
        expect(typeof redactJsonDocument(text)).toBe('string');
      }),
      { numRuns: 1000 },
    );
  });
});
