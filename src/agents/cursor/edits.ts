/**
 * Cursor's edits (SPEC-3 §B.1, experimental like the adapter): its transcripts are Claude-shaped
 * JSONL keyed by `role`, whose assistant `tool_use` blocks name the edit tools `Write
 * {path, contents|content}` (write: every line added), `StrReplace {path, old_string,
 * new_string}` (edit: the strings' lines, `partial`) and `Delete {path}` (delete). No real Cursor
 * transcript holding an edit has been captured yet: these input shapes follow the adapter's
 * reading of `Write`/`StrReplace` paths (docs/agents.md), not a capture. Cursor writes no tool
 * results with the applied diff, so `StrReplace` lines stay the strings.
 */
import type { EditsReader } from '../edits.js';
import type { RawEdit } from '../kit/collect.js';
import { readToolUseEdits } from '../kit/tool-use-jsonl.js';
import { splitLines } from '../kit/lines.js';
import { cleanCursorPrompt } from './text.js';
import { isObj, type Obj } from '../kit/obj.js';

const TOOLS = ['Write', 'StrReplace', 'Delete'] as const;

function pathOf(input: Obj): unknown {
  return input['path'] ?? input['file_path'];
}

function editsOf(name: string, input: unknown, id: string): RawEdit[] | undefined {
  if (!(TOOLS as readonly string[]).includes(name)) return [];
  if (!isObj(input) || typeof pathOf(input) !== 'string') return undefined;
  const base = { toolUseId: id, tool: name, path: pathOf(input) };
  if (name === 'Delete') return [{ ...base, kind: 'delete', added: [], removed: [] }];
  if (name === 'Write') {
    const content = input['contents'] ?? input['content'];
    if (typeof content !== 'string') return undefined;
    return [{ ...base, kind: 'write', added: splitLines(content), removed: [] }];
  }
  const o = input['old_string'];
  const n = input['new_string'];
  if (typeof o !== 'string' || typeof n !== 'string') return undefined;
  return [{ ...base, kind: 'edit', added: splitLines(n), removed: splitLines(o), partial: true }];
}

export const cursorEditsReader: EditsReader = {
  tools: TOOLS,
  readEdits: (transcript, opts) => readToolUseEdits(transcript, opts, { roleKey: 'role', cleanPrompt: cleanCursorPrompt, editsOf }),
};
