/**
 * The redaction engine's version, stored in every incremental cache cursor:
 * a cursor written by another version is redone from scratch. A constant
 * here (not computed from the rules) so a hook with nothing new to redact
 * does not load the rules at all; test/redact/rules.test.ts fails until it
 * is bumped with the rule count, and must be bumped by hand when a rule
 * changes what it matches.
 */
export const ENGINE_ID = 'redact-v2-171';
