/**
 * Edits of a JSONL transcript in the Messages-API shape: assistant lines hold `tool_use` blocks
 * `{id, name, input}`, user lines hold the prompts and the `tool_result` blocks
 * `{tool_use_id, is_error?}`; an agent whose user line also carries what the tool applied
 * (whole lines) hands it over through `appliedOf`.
 *
 * A turn starts at each user line with text that is not a tool result (a prompt, or a turn the
 * agent opened itself, such as a background task's completion); the prompt index advances only
 * on prompts, judged as the adapter's analysis judges them.
 */
import type { EditsResult, ReadEditsOptions } from '../edits.js';
import { EditCollector, transcriptText, type RawEdit } from './collect.js';
import { jsonlRecords } from './jsonl-lines.js';
import { isObj, type Obj } from './obj.js';

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export interface ToolUseDialect {
  /** Top-level key naming the speaker. */
  roleKey: 'type' | 'role';
  /** What a user text is as a prompt (`""`: none). */
  cleanPrompt(text: string): string;
  /** A user line the agent wrote itself (never a prompt; it may still open a turn). */
  isSystemUserLine?(line: Obj): boolean;
  /** The file changes a `tool_use` makes (none: not an edit tool); `undefined`: an edit tool with unusable input. */
  editsOf(name: string, input: unknown, id: string): RawEdit[] | undefined;
  /** What the call's result line says it applied to a file (whole lines), when the agent records that. */
  appliedOf?(line: Obj): { path: unknown; added: string[]; removed: string[] } | undefined;
}

// user lines (prompts, results) and assistant lines with a tool call: other assistant lines are never parsed
const NEEDLES = ['"user"', '"tool_use"'];

function userText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const texts: string[] = [];
  for (const b of content) if (isObj(b) && b['type'] === 'text' && typeof b['text'] === 'string') texts.push(b['text']);
  return texts.length > 0 ? texts.join('\n\n') : undefined;
}

export function readToolUseEdits(transcript: Buffer | string, opts: ReadEditsOptions, d: ToolUseDialect): EditsResult {
  const c = new EditCollector(opts);
  const text = transcriptText(transcript, opts, c);
  let turn = 0;
  let promptIndex = -1;
  let rooted = false;
  for (const { index, value: v } of jsonlRecords(text, NEEDLES, c)) {
    const role = typeof v[d.roleKey] === 'string' ? v[d.roleKey] : v['role'];
    const message = isObj(v['message']) ? v['message'] : undefined;
    if (!message) continue;
    const cwd = str(v['cwd']) || undefined;
    if (cwd !== undefined && !rooted) {
      c.paths.addRoot(cwd); // the session's directory, where it was recorded
      rooted = true;
    }
    if (role === 'user') {
      const content = message['content'];
      const raw = userText(content);
      if (raw !== undefined && v['isMeta'] !== true) {
        const system = d.isSystemUserLine?.(v) === true;
        const prompt = system ? '' : d.cleanPrompt(raw);
        if (prompt !== '') {
          turn++;
          promptIndex++;
        } else if (system) {
          turn++;
        }
      }
      if (Array.isArray(content)) {
        const results = content.filter((b): b is Obj => isObj(b) && b['type'] === 'tool_result');
        for (const b of results) {
          const id = str(b['tool_use_id']);
          if (b['is_error'] === true) c.fail(id);
          // what the line says was applied belongs to its one result (never guessed among several)
          else if (d.appliedOf && results.length === 1 && c.has(id)) {
            const applied = d.appliedOf(v);
            if (applied) c.applied(id, applied.path, cwd, applied.added, applied.removed);
          }
        }
      }
      continue;
    }
    if (role !== 'assistant' || !Array.isArray(message['content'])) continue;
    for (const b of message['content']) {
      if (!isObj(b) || b['type'] !== 'tool_use') continue;
      const name = str(b['name']);
      const id = str(b['id']);
      const edits = d.editsOf(name, b['input'], id);
      if (edits === undefined) {
        if (c.wanted(index)) c.malformed();
        continue;
      }
      for (const e of edits) c.add({ ...e, cwd: e.cwd ?? cwd }, { turn, promptIndex, position: index });
    }
  }
  return c.result();
}
