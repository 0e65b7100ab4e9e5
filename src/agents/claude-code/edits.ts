/**
 * Claude Code's edits (SPEC-3 §B.1), from a session transcript or a subagent's
 * `agent-<id>.jsonl` (same format; pass `subagent`):
 *
 * - `Write {file_path, content}` → write, every line of the content added; when the result's
 *   `toolUseResult.structuredPatch` shows it replaced an existing file, the applied diff instead;
 * - `Edit {file_path, old_string, new_string}` → edit, the strings' lines (`partial`), replaced by
 *   the applied `structuredPatch` (whole lines) when the result carries it;
 * - `MultiEdit {file_path, edits[]}` → one edit, all old/new strings in order (same rule);
 * - `NotebookEdit {notebook_path, new_source, edit_mode}` → edit of the cell's source lines
 *   (`partial`: the `.ipynb` holds them JSON-encoded, so its lines never equal them);
 * - `mcp__acp__Write` / `mcp__acp__Edit` (the ACP bridge) as Write / Edit.
 *
 * A call whose `tool_result` is `is_error` (failed, or the user rejected it) yields nothing.
 */
import type { EditsReader } from '../edits.js';
import type { RawEdit } from '../kit/collect.js';
import { readToolUseEdits } from '../kit/tool-use-jsonl.js';
import { hunkListLines } from '../kit/unified-diff.js';
import { splitLines } from '../kit/lines.js';
import { cleanClaudePrompt, isSystemUserLine } from './prompts.js';
import { isObj, type Obj } from '../kit/obj.js';

const TOOLS = ['Write', 'Edit', 'MultiEdit', 'NotebookEdit', 'mcp__acp__Write', 'mcp__acp__Edit'] as const;

function editsOf(name: string, input: unknown, id: string): RawEdit[] | undefined {
  if (!(TOOLS as readonly string[]).includes(name)) return [];
  if (!isObj(input)) return undefined;
  const base = { toolUseId: id, tool: name };
  switch (name) {
    case 'Write':
    case 'mcp__acp__Write': {
      const content = input['content'];
      if (typeof input['file_path'] !== 'string' || typeof content !== 'string') return undefined;
      return [{ ...base, path: input['file_path'], kind: 'write', added: splitLines(content), removed: [] }];
    }
    case 'Edit':
    case 'mcp__acp__Edit': {
      const o = input['old_string'];
      const n = input['new_string'];
      if (typeof input['file_path'] !== 'string' || typeof o !== 'string' || typeof n !== 'string') return undefined;
      return [{ ...base, path: input['file_path'], kind: 'edit', added: splitLines(n), removed: splitLines(o), partial: true }];
    }
    case 'MultiEdit': {
      const list = input['edits'];
      if (typeof input['file_path'] !== 'string' || !Array.isArray(list)) return undefined;
      const added: string[] = [];
      const removed: string[] = [];
      for (const e of list) {
        if (!isObj(e) || typeof e['old_string'] !== 'string' || typeof e['new_string'] !== 'string') return undefined;
        removed.push(...splitLines(e['old_string']));
        added.push(...splitLines(e['new_string']));
      }
      return [{ ...base, path: input['file_path'], kind: 'edit', added, removed, partial: true }];
    }
    default: {
      // NotebookEdit
      const src = input['new_source'];
      const mode = input['edit_mode'];
      if (typeof input['notebook_path'] !== 'string') return undefined;
      if (mode === 'delete') return [{ ...base, path: input['notebook_path'], kind: 'edit', added: [], removed: [], partial: true }];
      if (typeof src !== 'string') return undefined;
      return [{ ...base, path: input['notebook_path'], kind: 'edit', added: splitLines(src), removed: [], partial: true }];
    }
  }
}

/** The result line's `toolUseResult`: the diff applied (`structuredPatch`), or a created file's whole `content`. */
function appliedOf(line: Obj): { path: unknown; added: string[]; removed: string[] } | undefined {
  const r = line['toolUseResult'];
  if (!isObj(r)) return undefined;
  const patch = hunkListLines(r['structuredPatch']);
  if (patch) return { path: r['filePath'], ...patch };
  // a Write that rewrote a file with the same bytes changed no line
  if (r['type'] === 'update' && Array.isArray(r['structuredPatch']) && r['structuredPatch'].length === 0) return { path: r['filePath'], added: [], removed: [] };
  if (r['type'] === 'create' && typeof r['content'] === 'string') return { path: r['filePath'], added: splitLines(r['content']), removed: [] };
  return undefined;
}

export const claudeEditsReader: EditsReader = {
  tools: TOOLS,
  readEdits: (transcript, opts) =>
    readToolUseEdits(transcript, opts, { roleKey: 'type', cleanPrompt: cleanClaudePrompt, isSystemUserLine, editsOf, appliedOf }),
};
