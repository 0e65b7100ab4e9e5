/**
 * Linear time on adversarial input: every rule is fed about 1 MB of
 * near-miss text per shape. No timing assertion: the test timeout is the
 * guard (a catastrophic regex would take minutes).
 */
import { describe, it, expect } from 'vitest';
import { compiledRules, ruleSecrets } from '../../src/redact/engine.js';
import { redactString, redactJsonl } from '../../src/redact/index.js';
import { RULE_EXAMPLES } from './rule-examples.js';
import { nearMisses, GENERIC_ADVERSARIAL } from './near-miss.js';

const SIZE = 1 << 20;
const generic = GENERIC_ADVERSARIAL(SIZE);

describe('every rule completes on 1 MB of near-miss text', () => {
  it.each(compiledRules().map((r) => [r.id, r] as const))('%s', (id, rule) => {
    const inputs = [...nearMisses(rule.keywords, RULE_EXAMPLES[id]!, SIZE), ...generic];
    for (const input of inputs) {
      expect(Array.isArray(ruleSecrets(rule, input))).toBe(true);
    }
  });
});

describe('the whole engine completes on adversarial input', () => {
  it.each(generic.map((g) => [JSON.stringify(g.slice(0, 12)), g] as const))('redactString on %s…', (_name, input) => {
    expect(typeof redactString(input)).toBe('string');
  });

  it('one 1 MB JSONL line of nested arrays and one of escapes', () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    expect(redactJsonl(deep)).toBe(deep);
    const esc = JSON.stringify({ content: '\\"\n'.repeat(300_000) });
    expect(redactJsonl(esc)).toBe(esc);
  });
});
