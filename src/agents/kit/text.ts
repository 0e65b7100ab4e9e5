/**
 * Prompt cleaning (SPEC §7.1): agents wrap the user's words in IDE context
 * and system elements that are not part of the prompt.
 */

/**
 * `<ide_…>` (any name starting `ide_`), and the named system elements, each
 * removed with its content, non-greedy and across lines.
 */
const STRIP_RE = new RegExp(
  [
    String.raw`<(ide_[A-Za-z0-9_-]*)(?:\s[^>]*)?>[\s\S]*?</\1\s*>`,
    ...[
      'local-command-caveat',
      'system-reminder',
      'command-name',
      'command-message',
      'command-args',
      'local-command-stdout',
    ].map((t) => String.raw`<${t}(?:\s[^>]*)?>[\s\S]*?</${t}\s*>`),
  ].join('|'),
  'g',
);

/** Remove IDE/system elements and trim; `""` means "not a prompt". */
export function cleanPrompt(text: string): string {
  if (text.indexOf('<') === -1) return text.trim();
  return text.replace(STRIP_RE, '').trim();
}
