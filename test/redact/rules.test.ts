/** Every pattern rule: a positive and a negative example; the rule count; keyword prefilter. */
import { describe, it, expect } from 'vitest';
import { RULE_COUNT, FAMILIES, redactString } from '../../src/redact/index.js';
import { ENGINE_ID } from '../../src/redact/engine-id.js';
import { RULES } from '../../src/redact/rules.js';
import { compiledRules, ruleSecrets } from '../../src/redact/engine.js';
import { RULE_EXAMPLES } from './rule-examples.js';

describe('rule set', () => {
  it('has the pinned number of rules, each with a unique id and an example', () => {
    expect(RULE_COUNT).toBe(171);
    // the incremental caches' engine id follows the rules (src/redact/engine-id.ts)
    expect(ENGINE_ID).toBe(`redact-v2-${RULE_COUNT}`);
    expect(RULES.length).toBe(RULE_COUNT);
    expect(new Set(RULES.map((r) => r.id)).size).toBe(RULE_COUNT);
    expect(Object.keys(RULE_EXAMPLES).sort()).toEqual(RULES.map((r) => r.id).sort());
  });

  it('covers at least 60 credential families, the SPEC §3.1 required ones among them', () => {
    expect(FAMILIES.length).toBeGreaterThanOrEqual(60);
    for (const f of ['aws', 'github', 'gitlab', 'slack', 'stripe', 'anthropic', 'openai', 'google', 'private-key', 'jwt', 'npm', 'generic']) {
      expect(FAMILIES).toContain(f);
    }
  });

  it('every rule has lowercase ASCII keywords and a regex or a matcher', () => {
    for (const r of RULES) {
      expect(r.keywords.length, r.id).toBeGreaterThan(0);
      for (const k of r.keywords) expect(k, r.id).toMatch(/^[\x20-\x7e]+$/), expect(k, r.id).toBe(k.toLowerCase());
      expect(r.regex !== undefined || r.find !== undefined, r.id).toBe(true);
    }
  });

  it('regexes use bounded quantifiers only (no *, +, {n,})', () => {
    for (const r of RULES) {
      if (r.regex === undefined) continue;
      // strip escaped characters and character classes, then look for unbounded quantifiers
      const bare = r.regex.replace(/\\./g, 'x').replace(/\[[^\]]*\]/g, 'x');
      expect(bare, r.id).not.toMatch(/[*+]|\{\d+,\}/);
    }
  });
});

describe.each(compiledRules().map((r) => [r.id, r] as const))('rule %s', (id, rule) => {
  const ex = RULE_EXAMPLES[id]!;
  it('finds the secret in its positive example, and redaction removes it', () => {
    expect(ruleSecrets(rule, ex.pos)).toContain(ex.secret);
    expect(redactString(ex.pos)).not.toContain(ex.secret);
  });
  it('reports nothing in its negative example', () => {
    expect(ruleSecrets(rule, ex.neg)).toEqual([]);
  });
  it('its keywords occur in every positive match (the prefilter never hides a match)', () => {
    const lower = ex.pos.toLowerCase();
    expect(rule.keywords.some((k) => lower.includes(k))).toBe(true);
  });
});
