/**
 * What `entire explain` shows of a transcript (SPEC §8.9), as entries: user
 * prompts, assistant text and one line per tool use (`Edit src/server.ts`).
 * Each agent turns its own format into entries (its `transcriptEntries`);
 * the helpers here are shared by the JSONL agents.
 */
import { cleanPrompt } from './text.js';
import { isObj } from './obj.js';

export type EntryKind = 'user' | 'assistant' | 'tool';

export interface TranscriptEntry {
  kind: EntryKind;
  text: string;
}

export const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Input keys naming what a tool acted on, in preference order. */
const TOOL_TARGET_KEYS = [
  'file_path',
  'notebook_path',
  'absolute_path',
  'path',
  'command',
  'pattern',
  'url',
  'query',
  'description',
  'prompt',
] as const;

function oneLine(s: string, max = 100): string {
  const collapsed = s.replace(/\s+/g, ' ').trim();
  const cps = Array.from(collapsed);
  return cps.length > max ? cps.slice(0, max - 1).join('') + '…' : collapsed;
}

function relativeTo(path: string, cwd: string): string {
  if (cwd && path.startsWith(cwd.endsWith('/') ? cwd : cwd + '/')) return path.slice(cwd.length).replace(/^\/+/, '');
  return path;
}

/** `Edit src/server.ts`, `Bash npm test`, `TodoWrite (3 items)`. */
export function toolLine(name: string, input: unknown, cwd = ''): string {
  const n = name || 'tool';
  if (!isObj(input)) return n;
  for (const k of TOOL_TARGET_KEYS) {
    const v = input[k];
    if (typeof v === 'string' && v.trim() !== '') {
      const shown = k === 'file_path' || k === 'notebook_path' || k === 'absolute_path' || k === 'path' ? relativeTo(v, cwd) : v;
      return `${n} ${oneLine(shown)}`;
    }
  }
  if (Array.isArray(input['todos'])) return `${n} (${input['todos'].length} items)`;
  return n;
}

// ------------------------------------------------------------------ JSONL conversations

function userEntries(message: unknown, clean: (s: string) => string): TranscriptEntry[] {
  const content = isObj(message) ? message['content'] : message;
  if (typeof content === 'string') {
    const t = clean(content);
    return t ? [{ kind: 'user', text: t }] : [];
  }
  if (!Array.isArray(content)) return [];
  const parts: string[] = [];
  for (const block of content) {
    // tool_result blocks are the tool's output, not something the user said
    if (isObj(block) && block['type'] === 'text') parts.push(str(block['text']));
    else if (typeof block === 'string') parts.push(block);
  }
  const t = clean(parts.join('\n\n'));
  return t ? [{ kind: 'user', text: t }] : [];
}

function assistantEntries(message: unknown, cwd: string): TranscriptEntry[] {
  const content = isObj(message) ? message['content'] : message;
  if (typeof content === 'string') return content.trim() ? [{ kind: 'assistant', text: content.trim() }] : [];
  if (!Array.isArray(content)) return [];
  const out: TranscriptEntry[] = [];
  for (const block of content) {
    if (!isObj(block)) continue;
    const type = block['type'];
    if (type === 'text') {
      const t = str(block['text']).trim();
      if (t) out.push({ kind: 'assistant', text: t });
    } else if (type === 'tool_use') {
      out.push({ kind: 'tool', text: toolLine(str(block['name']), block['input'], cwd) });
    }
    // thinking / redacted_thinking / images: not shown
  }
  return out;
}

/**
 * The conversation of a JSONL transcript whose lines name their speaker in
 * `type` (or, with no `type`, in `role`), from line `from` on; `cleanUser`
 * removes the agent's wrappers from what the user typed.
 */
export function jsonlEntries(text: string, from: number, cleanUser: (s: string) => string = cleanPrompt): TranscriptEntry[] {
  const lines = text.split('\n');
  const out: TranscriptEntry[] = [];
  for (let i = Math.max(0, from); i < lines.length; i++) {
    const line = lines[i]!;
    if (line.length < 2 || (line.indexOf('"user"') === -1 && line.indexOf('"assistant"') === -1)) continue;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      continue;
    }
    if (!isObj(v)) continue;
    // meta lines (caveats), subagent sidechains and compaction summaries are not the conversation
    if (v['isMeta'] === true || v['isSidechain'] === true || v['isCompactSummary'] === true) continue;
    const role = typeof v['type'] === 'string' ? v['type'] : v['role'];
    const cwd = str(v['cwd']);
    if (role === 'user') out.push(...userEntries(v['message'], cleanUser));
    else if (role === 'assistant') out.push(...assistantEntries(v['message'], cwd));
  }
  return out;
}

