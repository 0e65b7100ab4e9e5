/** SPEC §2.3: `prompt.txt` and `context.md` built from a session's prompts. */

export const PROMPT_SEPARATOR = '\n\n---\n\n';
const CONTEXT_PROMPT_MAX_BYTES = 500;

export function encodePromptFile(prompts: readonly string[]): string {
  return prompts.join(PROMPT_SEPARATOR);
}

export function decodePromptFile(text: string): string[] {
  if (text === '') return [];
  return text.split(PROMPT_SEPARATOR);
}

/** Cut to at most `maxBytes` UTF-8 bytes at a code-point boundary. */
export function truncateUtf8(s: string, maxBytes: number): string {
  if (Buffer.byteLength(s, 'utf8') <= maxBytes) return s;
  let bytes = 0;
  let out = '';
  for (const ch of s) {
    const b = Buffer.byteLength(ch, 'utf8');
    if (bytes + b > maxBytes) break;
    bytes += b;
    out += ch;
  }
  return out;
}

/**
 * `context.md`: v1's prompt list, or with `layers` (SPEC-2 §F.4) the Execution Register and
 * the Cognitive Cache before it; from `## User Prompts` on the bytes are v1's either way.
 */
export function encodeContextFile(prompts: readonly string[], layers?: { l1: string; l2: string } | null): string {
  if (prompts.length === 0 && !layers) return '';
  let s = '# Session Context\n\n';
  if (layers) s += layers.l1 + '\n\n' + (layers.l2 ? layers.l2 + '\n\n' : '');
  s += '## User Prompts\n\n';
  prompts.forEach((p, i) => {
    const shown = Buffer.byteLength(p, 'utf8') > CONTEXT_PROMPT_MAX_BYTES ? truncateUtf8(p, CONTEXT_PROMPT_MAX_BYTES) + '...' : p;
    s += `### Prompt ${i + 1}\n\n${shown}\n\n`;
  });
  return s;
}

/** Collapse whitespace and cut to `max` code points + `...` (first_prompt, TTY prompt). */
export function collapsePrompt(p: string, max: number): string {
  const collapsed = p.replace(/\s+/g, ' ').trim();
  const cps = Array.from(collapsed);
  return cps.length > max ? cps.slice(0, max).join('') + '...' : collapsed;
}
