/**
 * Adversarial near-miss inputs for the linear-time test: about `size`
 * characters each, built from a rule's keywords and positive example so that
 * its regex starts (and fails) as often as possible.
 */
import type { RuleExample } from './rule-examples.js';

function fill(unit: string, size: number): string {
  if (unit.length === 0) return '';
  return unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
}

export const GENERIC_ADVERSARIAL = (size: number): string[] => [
  fill('a', size),
  fill('A1', size),
  fill('0', size),
  fill('-', size),
  fill(' ', size),
  fill('=', size),
  fill('key=', size),
  fill('eyJ', size),
  fill('eyJa.', size),
  fill('a:b@', size),
  fill('://a:', size),
  fill('-----BEGIN RSA PRIVATE KEY-----\n', size),
  fill('\\n', size),
];

/** Inputs aimed at one rule. */
export function nearMisses(keywords: string[], example: RuleExample, size: number): string[] {
  const out: string[] = [];
  const secret = example.secret;
  const pos = example.pos;
  // the example minus its last character, repeated with and without separators
  out.push(fill(secret.slice(0, -1), size));
  out.push(fill(secret.slice(0, -1) + ' ', size));
  out.push(fill(pos.slice(0, -1), size));
  // a prefix of the secret, repeated (starts everywhere, never completes)
  out.push(fill(secret.slice(0, Math.max(1, Math.floor(secret.length / 2))), size));
  for (const kw of keywords.slice(0, 4)) {
    out.push(fill(kw, size));
    out.push(fill(kw + '_', size));
    out.push(fill(kw + ' = ', size));
    out.push(fill(kw + secret.slice(0, 12), size));
  }
  return out;
}
