/**
 * SPEC §2.6: the JSON encoding the Go tool writes, so files we store are
 * byte-identical to what Go's encoding/json + MarshalIndent would produce.
 */

const GO_ESCAPES: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};
const GO_ESCAPE_RE = /[<>&\u2028\u2029]/g;

function goEscape(json: string): string {
  // most documents have none of them: native scans, no regular expression to compile
  if (json.indexOf('<') < 0 && json.indexOf('>') < 0 && json.indexOf('&') < 0 && json.indexOf('\u2028') < 0 && json.indexOf('\u2029') < 0) return json;
  // `<>&` and U+2028/9 only ever occur inside string literals in JSON text,
  // so a textual replace over the serialised document is exact.
  return json.replace(GO_ESCAPE_RE, (c) => GO_ESCAPES[c] ?? c);
}

/** Indented document: `JSON.stringify(v, null, 2)` + newline, Go-escaped. */
export function encodeJson(value: unknown): string {
  return goEscape(JSON.stringify(value, null, 2)) + '\n';
}

/** Single-line form, for log lines and the hook stdout message. */
export function encodeJsonLine(value: unknown): string {
  return goEscape(JSON.stringify(value));
}

/** Remove keys whose value is "empty" in Go's omitempty sense. */
export function omitEmpty<T extends Record<string, unknown>>(obj: T, keys: readonly (keyof T)[]): T {
  const out = { ...obj };
  for (const k of keys) {
    const v = out[k];
    if (
      v === undefined ||
      v === null ||
      v === '' ||
      v === false ||
      v === 0 ||
      (Array.isArray(v) && v.length === 0) ||
      (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0)
    ) {
      delete out[k];
    }
  }
  return out;
}
