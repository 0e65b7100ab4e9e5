/**
 * Text → lines, the one way every edits reader and the line matcher split text (SPEC-3 §B.1):
 * on `\n`, a `\r` before it dropped, no empty last line for a terminated text, none for `""`.
 */

/** `"a\nb\n"` → `["a", "b"]`; `"a\r\nb"` → `["a", "b"]`; `""` → `[]`; `"\n"` → `[""]`. */
export function splitLines(text: string): string[] {
  if (text === '') return [];
  const out = text.split('\n');
  if (out[out.length - 1] === '') out.pop();
  for (let i = 0; i < out.length; i++) {
    const l = out[i]!;
    if (l.endsWith('\r')) out[i] = l.slice(0, -1);
  }
  return out;
}

/** The number of lines `splitLines(text)` would return, without building them. */
export function countTextLines(text: string): number {
  if (text === '') return 0;
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return text.endsWith('\n') ? n : n + 1;
}
