/**
 * OpenCode's edits (SPEC-3 §B.1), from an `opencode export` document (a session's, or a staged
 * child session's: pass `subagent`); position = message index, as ./transcript.ts counts it.
 * An assistant message's `tool` parts carry `{callID, tool, state: {status, input, metadata}}`:
 *
 * - `write {filePath, content}` → write, every line added;
 * - `edit {filePath, oldString, newString}` → edit, the strings' lines (`partial`), replaced by
 *   `state.metadata.diff` (the unified diff applied, whole lines) when it is complete;
 * - `multiedit {filePath, edits[]}` → one edit, all strings in order (same rule);
 * - `patch` / `apply_patch {patchText}` → kit/apply-patch.ts, paths relative to the session's
 *   `info.directory`.
 *
 * A part whose `state.status` is `error` yields nothing. Each user prompt opens a turn.
 */
import type { EditsReader, EditsResult, ReadEditsOptions } from '../edits.js';
import { str } from '../kit/entries.js';
import { isObj } from '../kit/obj.js';
import { EditCollector, transcriptText, type RawEdit } from '../kit/collect.js';
import { splitLines } from '../kit/lines.js';
import { parseUnifiedDiff } from '../kit/unified-diff.js';
import { patchEdits } from '../kit/apply-patch.js';
import { parseOpenCodeExport, userPromptOf } from './transcript.js';

const TOOLS = ['write', 'edit', 'multiedit', 'patch', 'apply_patch'] as const;

function editsOf(tool: string, input: unknown, id: string, cwd: string | undefined): RawEdit[] | undefined {
  if (!(TOOLS as readonly string[]).includes(tool)) return [];
  if (!isObj(input)) return undefined;
  if (tool === 'patch' || tool === 'apply_patch') {
    const patch = input['patchText'] ?? input['patch'] ?? input['input'];
    const out = typeof patch === 'string' ? patchEdits(patch, id, tool, cwd) : [];
    return out.length > 0 ? out : undefined;
  }
  const path = input['filePath'];
  if (typeof path !== 'string') return undefined;
  const base = { toolUseId: id, tool, path, ...(cwd !== undefined ? { cwd } : {}) };
  if (tool === 'write') {
    if (typeof input['content'] !== 'string') return undefined;
    return [{ ...base, kind: 'write', added: splitLines(input['content']), removed: [] }];
  }
  const pairs = tool === 'multiedit' ? input['edits'] : [input];
  if (!Array.isArray(pairs)) return undefined;
  const added: string[] = [];
  const removed: string[] = [];
  for (const e of pairs) {
    if (!isObj(e) || typeof e['oldString'] !== 'string' || typeof e['newString'] !== 'string') return undefined;
    removed.push(...splitLines(e['oldString']));
    added.push(...splitLines(e['newString']));
  }
  return [{ ...base, kind: 'edit', added, removed, partial: true }];
}

function readOpenCodeEdits(transcript: Buffer | string, opts: ReadEditsOptions): EditsResult {
  const c = new EditCollector(opts);
  const doc = parseOpenCodeExport(transcriptText(transcript, opts, c));
  if (doc === null) return c.result();
  const dir = str(doc.info['directory']);
  const cwd = dir !== '' ? dir : undefined;
  if (cwd !== undefined) c.paths.addRoot(cwd);
  let turn = 0;
  let promptIndex = -1;
  doc.messages.forEach((m, at) => {
    const role = m.info['role'];
    if (role === 'user') {
      if (userPromptOf(m.parts) !== '') {
        turn++;
        promptIndex++;
      }
      return;
    }
    if (role !== 'assistant') return;
    for (const part of m.parts) {
      if (part['type'] !== 'tool') continue;
      const state = isObj(part['state']) ? part['state'] : {};
      const id = str(part['callID']) || str(part['id']);
      const edits = editsOf(str(part['tool']), state['input'], id, cwd);
      if (edits === undefined) {
        if (c.wanted(at)) c.malformed();
        continue;
      }
      for (const e of edits) c.add(e, { turn, promptIndex, position: at });
      if (edits.length === 0) continue;
      if (state['status'] === 'error') {
        c.fail(id);
        continue;
      }
      const meta = isObj(state['metadata']) ? state['metadata'] : {};
      const diff = typeof meta['diff'] === 'string' && edits.length === 1 ? parseUnifiedDiff(meta['diff']) : undefined;
      if (diff) c.applied(id, edits[0]!.path, cwd, diff.added, diff.removed);
    }
  });
  return c.result();
}

export const openCodeEditsReader: EditsReader = { tools: TOOLS, readEdits: readOpenCodeEdits };
