/**
 * Rules marked `anchored` run their regex (sticky) only where the scan saw a
 * keyword, so every match must start at one: checked against the plain global
 * regex on each rule's examples, alone and inside text.
 *
 * The `assignment` prefilter (src/redact/types.ts, engine.ts assignmentFollows)
 * is a necessary condition: wherever an `assignment` rule's regex matches,
 * the glue check must pass, or the engine would skip a secret. Checked on
 * generated `<name> <glue> <value>` texts at every position, with every
 * whitespace, quote and operator form the regexes accept or nearly accept.
 */
import { describe, it, expect } from 'vitest';
import { assignmentFollows, compiledRules, ruleSecrets } from '../../src/redact/engine.js';
import { redactString } from '../../src/redact/index.js';
import { RULE_EXAMPLES } from './rule-examples.js';

const rules = compiledRules().filter((r) => r.assignment === true);

/** Small deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PRE = ['', ' ', 'export ', '--', '"', '\\"', '\n', '\\n', ';', 'const ', '{', 'x', 'ENV '];
const KEY = ['password', 'PASSWORD', 'Passwd', 'pwd', 'passphrase', 'secret', 'Secrets', 'token', 'TOKEN', 'tokens', 'api_key', 'apiKey',
  'API-KEY', 'private_key', 'PrivateKey', 'key', 'credential', 'credentials', 'creds', 'accessToken', 'DB_PASSWORD', 'max_tokens'];
const NAME = ['', '', '_x', '.y', '-z', 'Name', '_URL', 'Count', 'a'.repeat(24), 'b'.repeat(39), 'c'.repeat(52), '1'];
const QUOTE = ['', '', '"', "'", '\\"', "\\'", '`', '\\'];
const WS = ['', '', ' ', '  ', '   ', '    ', '\t', '\n', '\r\n', '\u00a0', '\u3000', ' \u00a0', '\u2028', '\ufeff'];
const OP = [':', '=', ':=', '=>', '==', '::', ' ', '', '=:'];
const VAL = ['hunter2hunter2', 'S3cr3tP@ssw0rd!', 'aB3dE5fG7hJ9kL1mN3pQ5', 'process.env.API_KEY', '12345678901', '"xY7#kP2$mQ9@"',
  'Abc123/+=Def456', '\\"q1w2e3r4t5y6\\"', 'Server=db;Password=Pa55word9;'];
const POST = ['', ';', ',', ' ', '"', '\\n', ')', '\n', '(', 'é'];

function texts(count: number): string[] {
  const r = rng(7);
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    let s = '';
    const parts = 1 + Math.floor(r() * 2);
    for (let k = 0; k < parts; k++) {
      s += pick(PRE) + pick(KEY) + pick(NAME) + pick(QUOTE) + pick(WS) + pick(OP) + pick(WS) + pick(QUOTE) + pick(VAL) + pick(QUOTE) + pick(POST);
    }
    out.push(s);
  }
  return out;
}

describe('anchored rules', () => {
  const anchored = compiledRules().filter((r) => r.anchored === true && r.regex !== undefined);

  it.each(anchored.map((r) => [r.id, r] as const))('%s: every match starts at a keyword', (id, rule) => {
    const ex = RULE_EXAMPLES[id]!;
    const re = new RegExp(rule.regex!, 'g' + (rule.flags ?? ''));
    for (const text of [ex.pos, ex.neg, `x ${ex.pos} y ${ex.pos}`, `${ex.neg}\n${ex.pos};${ex.neg}`]) {
      const lower = text.toLowerCase();
      for (const m of text.matchAll(re)) {
        if (m[0].length === 0) continue;
        expect(rule.keywords.some((w) => lower.startsWith(w, m.index)), `${id} matches ${JSON.stringify(m[0])} in ${JSON.stringify(text)}`).toBe(true);
      }
    }
  });
});

describe('assignment prefilter', () => {
  it('covers the generic rules and secret-assignment', () => {
    expect(rules.map((r) => r.id).sort()).toEqual(['connection-string-password', 'generic-api-key', 'generic-password', 'secret-assignment']);
  });

  it('passes wherever an assignment rule matches (asked at every position, in order, as the scan does)', () => {
    const all = texts(4000);
    let matches = 0;
    for (const rule of rules) {
      const re = new RegExp(rule.regex!, 'y' + (rule.flags ?? ''));
      for (const s of all) {
        const lower = s.toLowerCase();
        for (let p = 0; p < s.length; p++) {
          // the scan asks at keyword starts, skipping the keyword's own characters
          const kw = rule.keywords.find((w) => lower.startsWith(w, p));
          const ok = kw === undefined ? assignmentFollows(s, p) : assignmentFollows(s, p, kw.length);
          re.lastIndex = p;
          const m = re.exec(s);
          if (m === null || m[0].length === 0) continue;
          matches++;
          if (!ok) expect.fail(`${rule.id} matches ${JSON.stringify(s)} at ${p}, the prefilter says no`);
        }
      }
    }
    expect(matches).toBeGreaterThan(1000);
  });

  it('leaves ruleSecrets unchanged where no keyword is followed by an operator', () => {
    for (const rule of rules) {
      expect(ruleSecrets(rule, 'const passwordHash = await tokenStore.secretKey(apiKey);')).toEqual([]);
      expect(ruleSecrets(rule, 'the token, the secret and the password are in the vault')).toEqual([]);
    }
  });

  it('redacts assignments whose glue uses every accepted form', () => {
    for (const ws of ['', ' ', '   ', '\t', '\n', '\u00a0']) {
      for (const q of ['', '"', "'", '\\"']) {
        const text = `DB_PASSWORD${q}${ws}=${ws}K8v#q2Lm9xZr`;
        expect(redactString(text), JSON.stringify(text)).not.toContain('K8v#q2Lm9xZr');
      }
    }
  });
});
