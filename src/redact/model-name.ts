/**
 * SPEC-2 §A.2 for the model name a session used (issue 16): the one validator
 * for a value that comes from an agent's transcript, its hook stdin, a state
 * file or a teammate's checkpoint metadata. A valid name is 1–200 characters,
 * printable (no C0/C1 control, DEL, format/bidi, line/paragraph separator,
 * private-use, unassigned or lone-surrogate character, no whitespace but the
 * plain space) and neither starts nor ends with a space. Anything else is
 * dropped, never repaired: a model name is a label, not worth guessing at. It lives
 * beside the redaction engine because a name the engine would change is no name (issue 25).
 */

import { redactString } from './engine.js';

export const MAX_MODEL_CHARS = 200;

/**
 * Issue 25: a token pasted where a model goes (`ghp_…` as a rollout's `turn_context.model`) would
 * be stored in state files and checkpoint metadata and pushed: a name the redaction engine
 * would change is no model name (dropped like any other invalid one). Every secret its rules
 * and entropy detector find (test/redact/rule-examples.ts) has a run of 12 letters and digits,
 * or of 24 with `-`/`_`, or an `=`, `:` or `@` (assignments, URLs with credentials): only such
 * names pay for the engine's scan, once per name and process.
 */
const MAY_HOLD_SECRET = /[=:@]|[A-Za-z0-9]{12}|[A-Za-z0-9_-]{24}/;
let lastScanned: [string, boolean] | null = null;

function holdsSecret(s: string): boolean {
  if (!MAY_HOLD_SECRET.test(s)) return false;
  if (lastScanned?.[0] !== s) lastScanned = [s, redactString(s) !== s];
  return lastScanned[1];
}

// compiled on the first name with a non-ASCII character
let nonAsciiBad: RegExp | undefined;

/** True when `s` may be stored and shown as a model name. */
export function isModelName(s: unknown): s is string {
  if (typeof s !== 'string' || s.length === 0 || s.length > MAX_MODEL_CHARS) return false;
  if (s.charCodeAt(0) === 32 || s.charCodeAt(s.length - 1) === 32) return false;
  let ascii = true;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return false;
    if (c >= 0x80) ascii = false;
  }
  if (!ascii) {
    nonAsciiBad ??= /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}]|[^\P{Zs} ]/u;
    if (nonAsciiBad.test(s)) return false;
  }
  return !holdsSecret(s);
}

/** `v` when it is a valid model name, else undefined (the readers' and writers' one filter). */
export function modelName(v: unknown): string | undefined {
  return isModelName(v) ? v : undefined;
}

/**
 * The model a checkpoint records: its transcript range's, else the session's last known one
 * (transcript or hook stdin, kept in the session state); the first valid of the two.
 */
export function checkpointModel(rangeModel: unknown, sessionModel: unknown): string | undefined {
  return modelName(rangeModel) ?? modelName(sessionModel);
}
