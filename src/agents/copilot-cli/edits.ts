/**
 * Copilot CLI's edits (SPEC-3 §B.1), from `events.jsonl` (position = line index). A
 * `tool.execution_start` names the call (`toolCallId`, `toolName`, `arguments`):
 *
 * - `create {path, file_text}` → write, every line added;
 * - `edit {path, old_str, new_str}` → edit, the strings' lines (`partial`);
 * - `str_replace_editor {command: create|str_replace|insert, path, …}` (older CLIs) likewise;
 * - `apply_patch` (its `arguments` a patch string, or `{input|patch}`) → kit/apply-patch.ts;
 *
 * and its `tool.execution_complete` drops it (`success: false`) or brings the applied diff
 * (`result.detailedContent`, a git diff: whole lines) when that diff is complete. A subagent's
 * calls sit in the same file, marked `parentToolCallId` (the `task` call that ran it) and
 * `agentId`: they are kept, with `subagent` set to the agent id (else the task call's id).
 * Turns and the prompt index follow the user's `user.message` records (not a subagent's).
 */
import type { EditsReader, EditsResult, ReadEditsOptions } from '../edits.js';
import { str } from '../kit/entries.js';
import { isObj } from '../kit/obj.js';
import { EditCollector, transcriptText, type RawEdit } from '../kit/collect.js';
import { jsonlRecords } from '../kit/jsonl-lines.js';
import { splitLines } from '../kit/lines.js';
import { parseUnifiedDiff } from '../kit/unified-diff.js';
import { patchEdits } from '../kit/apply-patch.js';
import { userMessagePrompt } from './prompts.js';

const TOOLS = ['create', 'edit', 'str_replace_editor', 'apply_patch'] as const;
const NEEDLES = ['"user.message"', '"tool.execution_', '"session.start"'];

function patchText(args: unknown): string | undefined {
  if (typeof args === 'string') return args;
  if (!isObj(args)) return undefined;
  for (const k of ['input', 'patch', 'patchText']) if (typeof args[k] === 'string') return args[k];
  return undefined;
}

function editsOf(name: string, args: unknown, id: string): RawEdit[] | undefined {
  if (!(TOOLS as readonly string[]).includes(name)) return [];
  if (name === 'apply_patch') {
    const patch = patchText(args);
    const out = patch === undefined ? [] : patchEdits(patch, id, name, undefined);
    return out.length > 0 ? out : undefined;
  }
  if (!isObj(args) || typeof args['path'] !== 'string') return undefined;
  const base = { toolUseId: id, tool: name, path: args['path'] };
  const command = name === 'str_replace_editor' ? str(args['command']) : name === 'create' ? 'create' : 'str_replace';
  if (command === 'create') {
    if (typeof args['file_text'] !== 'string') return undefined;
    return [{ ...base, kind: 'write', added: splitLines(args['file_text']), removed: [] }];
  }
  if (command === 'insert') {
    if (typeof args['new_str'] !== 'string') return undefined;
    return [{ ...base, kind: 'edit', added: splitLines(args['new_str']), removed: [], partial: true }];
  }
  if (command !== 'str_replace') return name === 'str_replace_editor' ? [] : undefined; // view, undo_edit
  const o = args['old_str'];
  const n = args['new_str'];
  if (typeof o !== 'string' || typeof n !== 'string') return undefined;
  return [{ ...base, kind: 'edit', added: splitLines(n), removed: splitLines(o), partial: true }];
}

function readCopilotEdits(transcript: Buffer | string, opts: ReadEditsOptions): EditsResult {
  const c = new EditCollector(opts);
  const text = transcriptText(transcript, opts, c);
  let turn = 0;
  let promptIndex = -1;
  let cwd: string | undefined;
  for (const { index, value: v } of jsonlRecords(text, NEEDLES, c)) {
    const data = v['data'];
    if (!isObj(data)) continue;
    switch (v['type']) {
      case 'session.start': {
        const ctx = isObj(data['context']) ? data['context'] : {};
        const root = str(ctx['gitRoot']) || str(ctx['cwd']);
        if (root !== '') c.paths.addRoot(root);
        cwd = str(ctx['cwd']) || cwd;
        continue;
      }
      case 'user.message':
        // a subagent's lines carry its `agentId`: its prompt is its task, not the user's
        if (typeof v['agentId'] !== 'string' && userMessagePrompt(data) !== '') {
          turn++;
          promptIndex++;
        }
        continue;
      case 'tool.execution_start': {
        const id = str(data['toolCallId']);
        const edits = editsOf(str(data['toolName']), data['arguments'], id);
        if (edits === undefined) {
          if (c.wanted(index)) c.malformed();
          continue;
        }
        const sub = str(v['agentId']) || str(data['parentToolCallId']);
        for (const e of edits) c.add({ ...e, ...(cwd !== undefined ? { cwd } : {}), ...(sub !== '' ? { subagent: sub } : {}) }, { turn, promptIndex, position: index });
        continue;
      }
      case 'tool.execution_complete': {
        const id = str(data['toolCallId']);
        if (!c.has(id)) continue;
        if (data['success'] === false) {
          c.fail(id);
          continue;
        }
        const result = isObj(data['result']) ? data['result'] : {};
        const diff = typeof result['detailedContent'] === 'string' ? parseUnifiedDiff(result['detailedContent']) : undefined;
        const edits = Array.isArray(data['fileEdits']) ? data['fileEdits'] : [];
        const path = edits.length === 1 && isObj(edits[0]) ? edits[0]['path'] : undefined;
        if (diff) c.applied(id, path, cwd, diff.added, diff.removed);
        continue;
      }
    }
  }
  return c.result();
}

export const copilotEditsReader: EditsReader = { tools: TOOLS, readEdits: readCopilotEdits };
