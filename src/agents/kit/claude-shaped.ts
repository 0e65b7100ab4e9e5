/**
 * Edits of a Claude-shaped JSONL transcript (Claude Code, Cursor): assistant lines hold
 * `tool_use` blocks `{id, name, input}`, user lines hold the prompts and the `tool_result`
 * blocks `{tool_use_id, is_error?}`; Claude Code's user line also carries `toolUseResult` with
 * the diff the tool applied (`structuredPatch`, whole lines) or the created file's `content`.
 *
 * A turn starts at each user line with text that is not a tool result (a prompt, or a turn the
 * agent opened itself, such as a background task's completion); the prompt index advances only
 * on prompts, judged as the adapter's analysis judges them.
 */
import type { EditsResult, ReadEditsOptions } from '../edits.js';
import { EditCollector, transcriptText, type RawEdit } from './collect.js';
import { jsonlRecords } from './jsonl-lines.js';
import { structuredPatchLines } from './unified-diff.js';
import { splitLines } from './lines.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export interface ClaudeShapedDialect {
  /** Top-level key naming the speaker. */
  roleKey: 'type' | 'role';
  /** What a user text is as a prompt (`""`: none). */
  cleanPrompt(text: string): string;
  /** A user line the agent wrote itself (never a prompt; it may still open a turn). */
  isSystemUserLine?(line: Obj): boolean;
  /** The file changes a `tool_use` makes (none: not an edit tool); `undefined`: an edit tool with unusable input. */
  editsOf(name: string, input: unknown, id: string): RawEdit[] | undefined;
  readonly tools: readonly string[];
}

const NEEDLES = ['"user"', '"assistant"'];

function userText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const texts: string[] = [];
  for (const b of content) if (isObj(b) && b['type'] === 'text' && typeof b['text'] === 'string') texts.push(b['text']);
  return texts.length > 0 ? texts.join('\n\n') : undefined;
}

export function readClaudeShapedEdits(transcript: Buffer | string, opts: ReadEditsOptions, d: ClaudeShapedDialect): EditsResult {
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
        for (const b of content) {
          if (!isObj(b) || b['type'] !== 'tool_result') continue;
          const id = str(b['tool_use_id']);
          if (b['is_error'] === true) c.fail(id);
          else results(c, id, v['toolUseResult'], cwd);
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

/** Claude Code's `toolUseResult`: the applied diff (whole lines), or a created file's whole content. */
function results(c: EditCollector, id: string, r: unknown, cwd: string | undefined): void {
  if (!isObj(r) || !c.has(id)) return;
  const path = r['filePath'];
  const patch = structuredPatchLines(r['structuredPatch']);
  if (patch) c.applied(id, path, cwd, patch.added, patch.removed);
  else if (r['type'] === 'create' && typeof r['content'] === 'string') c.applied(id, path, cwd, splitLines(r['content']), []);
}
