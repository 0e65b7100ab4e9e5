/**
 * SPEC §3.2 JSON walk with a token-level rewrite.
 *
 * A small validating JSON tokenizer walks the raw text once, keeping the byte
 * range of every string token and its key/value context; it never
 * re-serialises anything. Each scanned string value v whose redaction differs
 * is replaced in place by JSON.stringify(redactString(v)); every other byte of
 * the input is kept, so a line without findings comes back identical (the
 * very same string).
 *
 * Walk rules: object keys are never redacted; the values (whole subtrees) of
 * key `signature` and of keys whose lowercase form ends in `id` or `ids` are
 * skipped; an object whose `type` is a string starting with `image` or equal
 * to `base64` is skipped entirely (whatever the order of its keys). The string
 * value of a key that names a secret (`"password": "…"`, SPEC-2 §A.12) is
 * judged as `"key": "value"` in text would be, and redacted whole if a secret. A string value of
 * `encrypted_content` (opaque ciphertext) is stored as `""`.
 */
import { redactString, REDACTED, type Stats } from './engine.js';
import { isSecretKeyedValue, isSecretNamedKey } from './rules.js';

export type RedactFn = (s: string) => string;

/** Stats bucket of values redacted for their key (the rule that judges the same text form). */
const KEYED_RULE_ID = 'secret-assignment';

// Character codes.
const QUOTE = 34;
const BACKSLASH = 92;
const LBRACE = 123;
const RBRACE = 125;
const LBRACKET = 91;
const RBRACKET = 93;
const COMMA = 44;
const COLON = 58;

const HEX = new Uint8Array(128);
for (const ch of '0123456789abcdefABCDEF') HEX[ch.charCodeAt(0)] = 1;

function isWs(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

function skipWs(t: string, i: number): number {
  const n = t.length;
  while (i < n) {
    const c = t.charCodeAt(i);
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) break;
    i++;
  }
  return i;
}

let stringHadEscape = false;

/** End (exclusive, after the closing quote) of the string token at i, or -1. */
function scanString(t: string, i: number): number {
  const n = t.length;
  let j = i + 1;
  stringHadEscape = false;
  while (j < n) {
    const c = t.charCodeAt(j);
    if (c === QUOTE) return j + 1;
    if (c === BACKSLASH) {
      stringHadEscape = true;
      const e = t.charCodeAt(j + 1);
      if (e === 117 /* u */) {
        if (j + 5 >= n) return -1;
        for (let k = j + 2; k < j + 6; k++) {
          const h = t.charCodeAt(k);
          if (h >= 128 || HEX[h] !== 1) return -1;
        }
        j += 6;
      } else if (e === QUOTE || e === BACKSLASH || e === 47 || e === 98 || e === 102 || e === 110 || e === 114 || e === 116) {
        j += 2;
      } else {
        return -1;
      }
      continue;
    }
    if (c < 32) return -1;
    j++;
  }
  return -1;
}

const CONTROL = /[\x00-\x1f]/;
/** Values that will be scanned, on lines with this much left, are delimited and checked with native searches. */
const LONG_TOKEN = 32;

/**
 * Like scanString for a token that may be long: the closing quote is found
 * with indexOf (an odd run of backslashes before a quote escapes it), the
 * token is validated natively (JSON.parse when it has escapes, else a
 * control-character test). Returns the end or -1.
 */
function scanLongString(t: string, i: number): number {
  let j = i + 1;
  let end = -1;
  for (;;) {
    const q = t.indexOf('"', j);
    if (q < 0) return -1;
    let b = q - 1;
    while (t.charCodeAt(b) === BACKSLASH) b--;
    if (((q - 1 - b) & 1) === 0) {
      end = q + 1;
      break;
    }
    j = q + 1;
  }
  const raw = t.slice(i + 1, end - 1);
  stringHadEscape = raw.indexOf('\\') !== -1;
  if (stringHadEscape) {
    try {
      longDecoded = JSON.parse(t.slice(i, end)) as string;
    } catch {
      return -1;
    }
  } else {
    longDecoded = raw;
    if (CONTROL.test(longDecoded)) return -1;
  }
  return end;
}
let longDecoded = '';

function decodeString(t: string, start: number, end: number, hadEscape: boolean): string {
  return hadEscape ? (JSON.parse(t.slice(start, end)) as string) : t.slice(start + 1, end - 1);
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** End of the number token at i, or -1. */
function scanNumber(t: string, i: number): number {
  let j = i;
  if (t.charCodeAt(j) === 45 /* - */) j++;
  const c0 = t.charCodeAt(j);
  if (c0 === 48) j++;
  else if (c0 >= 49 && c0 <= 57) {
    j++;
    while (isDigit(t.charCodeAt(j))) j++;
  } else return -1;
  if (t.charCodeAt(j) === 46 /* . */) {
    j++;
    if (!isDigit(t.charCodeAt(j))) return -1;
    while (isDigit(t.charCodeAt(j))) j++;
  }
  const e = t.charCodeAt(j);
  if (e === 101 || e === 69) {
    j++;
    const s = t.charCodeAt(j);
    if (s === 43 || s === 45) j++;
    if (!isDigit(t.charCodeAt(j))) return -1;
    while (isDigit(t.charCodeAt(j))) j++;
  }
  return j;
}

/**
 * A string value of this key is stored empty, in place: OpenAI Responses' `encrypted_content`
 * (reasoning sealed for the API, SPEC-2 §C.1) is ciphertext no reader can use, and often large.
 */
const BLANKED_KEY = 'encrypted_content';

/** Per key: 1 = its value is kept (isSkippedKey), 2 = it names a secret (isSecretNamedKey), 4 = stored empty. */
const keyFlagCache = new Map<string, number>();

function keyFlags(key: string): number {
  let v = keyFlagCache.get(key);
  if (v === undefined) {
    const lower = key.toLowerCase();
    v =
      (key === 'signature' || lower.endsWith('id') || lower.endsWith('ids') ? 1 : 0) |
      (isSecretNamedKey(key) ? 2 : 0) |
      (key === BLANKED_KEY ? 4 : 0);
    if (keyFlagCache.size > 10_000) keyFlagCache.clear();
    keyFlagCache.set(key, v);
  }
  return v;
}

/** Values of these keys are kept: `signature`, and keys ending in `id`/`ids` (any case). */
export function isSkippedKey(key: string): boolean {
  return (keyFlags(key) & 1) !== 0;
}

function isSkippedType(type: string): boolean {
  return type.startsWith('image') || type === 'base64';
}

const enum State {
  Value,
  AfterValue,
}

/**
 * Walks `t` as exactly one JSON value (surrounding whitespace allowed).
 * Returns the rewritten text (`t` itself when nothing changed), or null when
 * `t` is not valid JSON.
 */
export function walkJson(t: string, redact: RedactFn, stats?: Stats): string | null {
  const n = t.length;
  // parallel stacks of open containers
  const isObj: boolean[] = [];
  const skipped: boolean[] = [];
  const editsAtOpen: number[] = [];
  const typeSkip: boolean[] = [];
  // edits: [start, end) of a string token and its replacement
  const editStart: number[] = [];
  const editEnd: number[] = [];
  const editText: string[] = [];

  let i = skipWs(t, 0);
  let state = State.Value;
  let curSkip = false; // skip the value about to be parsed
  let curIsType = false; // the value about to be parsed is under key "type"
  let curKey: string | null = null; // the key of the value about to be parsed, when it names a secret
  let curBlank = false; // the value about to be parsed is opaque ciphertext, stored empty

  for (;;) {
    if (state === State.Value) {
      if (i >= n) return null;
      const c = t.charCodeAt(i);
      if (c === QUOTE) {
        // long values that will be scanned: native delimiting, validation and decoding
        const long = !curSkip && !curIsType && t.length - i > LONG_TOKEN;
        const end = long ? scanLongString(t, i) : scanString(t, i);
        if (end < 0) return null;
        const hadEscape = stringHadEscape;
        if (curIsType) {
          const v = decodeString(t, i, end, hadEscape);
          if (isSkippedType(v)) typeSkip[typeSkip.length - 1] = true;
        }
        if (curBlank && end - i > 2) {
          editStart.push(i);
          editEnd.push(end);
          editText.push('""');
        } else if (!curSkip && end - i > 7) {
          const v = long ? longDecoded : decodeString(t, i, end, hadEscape);
          let r: string;
          if (curKey !== null && isSecretKeyedValue(curKey, v)) {
            r = REDACTED;
            if (stats !== undefined) stats[KEYED_RULE_ID] = (stats[KEYED_RULE_ID] ?? 0) + 1;
          } else {
            r = redact(v);
          }
          if (r !== v) {
            editStart.push(i);
            editEnd.push(end);
            editText.push(JSON.stringify(r));
          }
        }
        i = end;
        state = State.AfterValue;
      } else if (c === LBRACE || c === LBRACKET) {
        const obj = c === LBRACE;
        isObj.push(obj);
        skipped.push(curSkip);
        editsAtOpen.push(editStart.length);
        typeSkip.push(false);
        i = skipWs(t, i + 1);
        const close = obj ? RBRACE : RBRACKET;
        if (t.charCodeAt(i) === close) {
          i++;
          isObj.pop();
          skipped.pop();
          editsAtOpen.pop();
          typeSkip.pop();
          state = State.AfterValue;
        } else if (obj) {
          const k = readKey(t, i);
          if (k < 0) return null;
          i = k;
          curSkip = curSkip || keySkip;
          curIsType = keyIsType;
          curKey = keySecret;
          curBlank = keyBlank;
        } else {
          // first array element: keeps curSkip, not under a key
          curIsType = false;
          curKey = null;
          curBlank = false;
        }
        continue;
      } else {
        let end: number;
        if (c === 116) end = t.startsWith('true', i) ? i + 4 : -1;
        else if (c === 102) end = t.startsWith('false', i) ? i + 5 : -1;
        else if (c === 110) end = t.startsWith('null', i) ? i + 4 : -1;
        else end = scanNumber(t, i);
        if (end < 0) return null;
        i = end;
        state = State.AfterValue;
      }
    } else {
      i = skipWs(t, i);
      const depth = isObj.length;
      if (depth === 0) {
        if (i !== n) return null;
        break;
      }
      const c = t.charCodeAt(i);
      const obj = isObj[depth - 1]!;
      if (c === COMMA) {
        i = skipWs(t, i + 1);
        const parentSkip = skipped[depth - 1]!;
        if (obj) {
          const k = readKey(t, i);
          if (k < 0) return null;
          i = k;
          curSkip = parentSkip || keySkip;
          curIsType = keyIsType;
          curKey = keySecret;
          curBlank = keyBlank;
        } else {
          curSkip = parentSkip;
          curIsType = false;
          curKey = null;
          curBlank = false;
        }
        state = State.Value;
      } else if (c === (obj ? RBRACE : RBRACKET)) {
        i++;
        isObj.pop();
        skipped.pop();
        const at = editsAtOpen.pop()!;
        if (typeSkip.pop() === true && editStart.length > at) {
          editStart.length = at;
          editEnd.length = at;
          editText.length = at;
        }
      } else {
        return null;
      }
    }
  }

  if (editStart.length === 0) return t;
  let out = '';
  let pos = 0;
  for (let k = 0; k < editStart.length; k++) {
    out += t.slice(pos, editStart[k]) + editText[k]!;
    pos = editEnd[k]!;
  }
  return out + t.slice(pos);
}

// Results of readKey (the walker is synchronous, so module state is safe).
let keySkip = false;
let keyIsType = false;
let keySecret: string | null = null;
let keyBlank = false;

/** Parses `"key" :` at i (after whitespace); returns the index after the colon and its whitespace, or -1. */
function readKey(t: string, i: number): number {
  if (t.charCodeAt(i) !== QUOTE) return -1;
  const end = scanString(t, i);
  if (end < 0) return -1;
  const key = decodeString(t, i, end, stringHadEscape);
  const flags = keyFlags(key);
  keySkip = (flags & 1) !== 0;
  keyIsType = key === 'type';
  keySecret = (flags & 2) !== 0 ? key : null;
  keyBlank = (flags & 4) !== 0;
  let j = skipWs(t, end);
  if (t.charCodeAt(j) !== COLON) return -1;
  return skipWs(t, j + 1);
}

function isBlank(line: string): boolean {
  for (let i = 0; i < line.length; i++) if (!isWs(line.charCodeAt(i))) return false;
  return true;
}

/** One JSONL line (no newline): blank → kept; invalid JSON → text redaction; else the walk. */
export function redactJsonLineWith(line: string, redact: RedactFn, stats?: Stats): string {
  if (isBlank(line)) return line;
  const walked = walkJson(line, redact, stats);
  return walked === null ? redact(line) : walked;
}

/** Whole JSONL text, line by line; `\n` separators (and any `\r`) kept byte-exact. */
export function redactJsonlWith(text: string, redact: RedactFn, stats?: Stats): string {
  const parts: string[] = [];
  let copied = 0;
  let pos = 0;
  const n = text.length;
  while (pos <= n) {
    let nl = text.indexOf('\n', pos);
    if (nl === -1) nl = n;
    const line = text.slice(pos, nl);
    const red = redactJsonLineWith(line, redact, stats);
    if (red !== line) {
      parts.push(text.slice(copied, pos), red);
      copied = nl;
    }
    pos = nl + 1;
  }
  if (copied === 0) return text;
  parts.push(text.slice(copied));
  return parts.join('');
}

/** One JSON document (a document-format transcript) walked as one value; invalid JSON → text redaction. */
export function redactJsonDocumentWith(text: string, redact: RedactFn, stats?: Stats): string {
  const walked = walkJson(text, redact, stats);
  return walked === null ? redact(text) : walked;
}

export function redactJsonLine(line: string): string {
  return redactJsonLineWith(line, redactString);
}

export function redactJsonl(text: string): string {
  return redactJsonlWith(text, redactString);
}

export function redactJsonDocument(text: string): string {
  return redactJsonDocumentWith(text, redactString);
}
