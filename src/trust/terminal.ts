/**
 * SPEC-2 §A.8: what reaches a terminal. Every line a command or hook prints
 * passes one of these at the output choke point (`commands/common.ts` Io,
 * `cli/output.ts`, `stderr.ts`), so a prompt, subject, path or id from
 * someone else's data can never move the cursor, retitle the window, hide
 * text or reorder it.
 *
 * - text: C0 controls (except `\n` in multi-line text) and DEL print as
 *   `\xNN`; C1, U+2028/2029, format/bidi characters and lone surrogates as
 *   `\u{NNNN}`; invalid UTF-8 (byte input) as `\xNN`;
 * - JSON documents: the same characters as `\uNNNN`, so the output stays
 *   the same JSON value;
 * - commands: arguments outside `[A-Za-z0-9_@%+=:,./-]` are single-quoted.
 */

/** Characters of the BMP a terminal must not receive raw (besides C0 and DEL). */
function isUnsafeWide(c: number): boolean {
  return (
    (c >= 0x80 && c <= 0x9f) || // C1
    c === 0xad || // soft hyphen (format)
    c === 0x061c ||
    (c >= 0x200b && c <= 0x200f) ||
    (c >= 0x2028 && c <= 0x202e) ||
    (c >= 0x2060 && c <= 0x206f) ||
    c === 0xfeff ||
    (c >= 0xfff9 && c <= 0xfffb) ||
    (c >= 0xd800 && c <= 0xdfff) // only reached for lone surrogates
  );
}

function hex2(c: number): string {
  return c.toString(16).padStart(2, '0');
}

function needsWork(s: string, keepNewline: boolean): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20) {
      if (c === 10 && keepNewline) continue;
      return true;
    }
    if (c >= 0x7f && (c === 0x7f || isUnsafeWide(c))) return true;
  }
  return false;
}

/**
 * `s` made safe for a terminal. `multiline` keeps `\n` (default); a one-line
 * field (an id, a path, a subject) escapes it too.
 */
export function termSafe(s: string, multiline = true): string {
  if (!needsWork(s, multiline)) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20) {
      out += c === 10 && multiline ? '\n' : `\\x${hex2(c)}`;
    } else if (c === 0x7f) {
      out += '\\x7f';
    } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(i + 1) <= 0xdfff) {
      const cp = s.codePointAt(i)!;
      out += isUnsafeAstral(cp) ? `\\u{${cp.toString(16).toUpperCase()}}` : s.slice(i, i + 2);
      i++;
    } else if (c >= 0x80 && isUnsafeWide(c)) {
      out += `\\u{${c.toString(16).toUpperCase().padStart(4, '0')}}`;
    } else {
      out += s[i];
    }
  }
  return out;
}

/** Tag characters and other astral format characters (U+E0001, U+E0020–E007F, U+1D173–1D17A …). */
function isUnsafeAstral(cp: number): boolean {
  return (cp >= 0xe0000 && cp <= 0xe007f) || (cp >= 0x1d173 && cp <= 0x1d17a) || (cp >= 0x13430 && cp <= 0x1343f) || (cp >= 0x1bca0 && cp <= 0x1bca3);
}

/**
 * A JSON document (one `JSON.stringify` result, or JSONL) made safe for a
 * terminal while staying the same JSON: raw DEL, C1, format/bidi characters
 * and lone surrogates become `\uNNNN` escapes (legal only inside strings,
 * which is the only place valid JSON has them). `\n` and `\t` stay (JSON
 * whitespace); other raw C0 (invalid JSON anyway) are escaped the same way.
 */
export function jsonTermSafe(json: string): string {
  let dirty = false;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if ((c < 0x20 && c !== 10 && c !== 9) || c === 0x7f || (c >= 0x80 && isUnsafeWide(c)) || (c >= 0xd800 && c <= 0xdfff)) {
      dirty = true;
      break;
    }
  }
  if (!dirty) return json;
  let out = '';
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < json.length && json.charCodeAt(i + 1) >= 0xdc00 && json.charCodeAt(i + 1) <= 0xdfff) {
      const cp = json.codePointAt(i)!;
      out += isUnsafeAstral(cp) ? `\\u${c.toString(16).padStart(4, '0')}\\u${json.charCodeAt(i + 1).toString(16).padStart(4, '0')}` : json.slice(i, i + 2);
      i++;
    } else if ((c < 0x20 && c !== 10 && c !== 9) || c === 0x7f || (c >= 0x80 && isUnsafeWide(c))) {
      out += `\\u${c.toString(16).padStart(4, '0')}`;
    } else {
      out += json[i];
    }
  }
  return out;
}

/**
 * Bytes (a stored transcript) for a terminal: valid UTF-8 decoded and made
 * JSON-safe as above, every byte of an invalid sequence printed as `\xNN`.
 */
export function bytesTermSafe(buf: Buffer): string {
  let out = '';
  let start = 0;
  let i = 0;
  const flush = (end: number) => {
    if (end > start) out += jsonTermSafe(buf.toString('utf8', start, end));
  };
  while (i < buf.length) {
    const b = buf[i]!;
    let len = 0;
    if (b < 0x80) len = 1;
    else if (b >= 0xc2 && b <= 0xdf) len = 2;
    else if (b >= 0xe0 && b <= 0xef) len = 3;
    else if (b >= 0xf0 && b <= 0xf4) len = 4;
    let ok = len > 0 && i + len <= buf.length;
    for (let k = 1; ok && k < len; k++) if ((buf[i + k]! & 0xc0) !== 0x80) ok = false;
    if (ok && len === 3) {
      const b1 = buf[i + 1]!;
      if ((b === 0xe0 && b1 < 0xa0) || (b === 0xed && b1 >= 0xa0)) ok = false; // overlong, surrogate
    } else if (ok && len === 4) {
      const b1 = buf[i + 1]!;
      if ((b === 0xf0 && b1 < 0x90) || (b === 0xf4 && b1 >= 0x90)) ok = false;
    }
    if (ok) {
      i += len;
      continue;
    }
    flush(i);
    out += `\\x${hex2(b)}`;
    i++;
    start = i;
  }
  flush(buf.length);
  return out;
}

const SAFE_ARG = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** POSIX shell quoting for one argument of a command we print. */
export function shellQuote(arg: string): string {
  if (SAFE_ARG.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** A command line from argv, each argument quoted as needed. */
export function shellCommand(argv: readonly string[]): string {
  return argv.map(shellQuote).join(' ');
}
