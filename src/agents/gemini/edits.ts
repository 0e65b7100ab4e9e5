/**
 * Gemini CLI's edits (SPEC-3 §B.1), from a session of either form (JSONL with `$set` patches and
 * repeated ids, or the legacy document), walked as ./transcript.ts reconstructs it. Position is
 * the message's offset in its form's unit (JSONL line, document message index).
 *
 * A `gemini` message's `toolCalls[]` carry `{id, name, args, status, resultDisplay}`:
 * - `write_file {file_path, content}` → write, every line added;
 * - `replace {file_path, old_string, new_string}` (also `edit_file`) → edit, the strings' lines (`partial`);
 * - both replaced by `resultDisplay.fileDiff` (the unified diff the CLI applied, whole lines)
 *   when it is complete.
 * A call whose `status` is `error` or `cancelled` yields nothing. Each user prompt opens a turn.
 */
import type { EditsReader, EditsResult, ReadEditsOptions } from '../edits.js';
import { EditCollector, transcriptText, type RawEdit } from '../kit/collect.js';
import { splitLines } from '../kit/lines.js';
import { parseUnifiedDiff } from '../kit/unified-diff.js';
import { toolCalls, userPrompt } from './messages.js';
import { isObj } from '../kit/obj.js';
import { geminiProjectRoot, parseGeminiSession } from './transcript.js';

const TOOLS = ['write_file', 'replace', 'edit_file'] as const;
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function editOf(call: Record<string, unknown>): RawEdit[] | undefined {
  const name = str(call['name']);
  if (!(TOOLS as readonly string[]).includes(name)) return [];
  const args = call['args'];
  if (!isObj(args)) return undefined;
  const path = args['file_path'] ?? args['path'];
  if (typeof path !== 'string') return undefined;
  const base = { toolUseId: str(call['id']), tool: name, path };
  if (name === 'write_file') {
    if (typeof args['content'] !== 'string') return undefined;
    return [{ ...base, kind: 'write', added: splitLines(args['content']), removed: [] }];
  }
  const o = args['old_string'];
  const n = args['new_string'];
  if (typeof o !== 'string' || typeof n !== 'string') return undefined;
  return [{ ...base, kind: 'edit', added: splitLines(n), removed: splitLines(o), partial: true }];
}

function readGeminiEdits(transcript: Buffer | string, opts: ReadEditsOptions): EditsResult {
  const c = new EditCollector(opts);
  const text = transcriptText(transcript, opts, c);
  let session;
  try {
    session = parseGeminiSession(text);
  } catch {
    c.malformed();
    return c.result();
  }
  let turn = 0;
  let promptIndex = -1;
  let rooted = false;
  for (const { at, value: m } of session.messages) {
    if (m['type'] === 'user') {
      if (userPrompt(m, session.form) !== '') {
        turn++;
        promptIndex++;
      }
      continue;
    }
    if (m['type'] !== 'gemini') continue;
    for (const call of toolCalls(m)) {
      if (!isObj(call)) continue;
      const edits = editOf(call);
      if (edits === undefined) {
        if (c.wanted(at)) c.malformed();
        continue;
      }
      if (edits.length === 0) continue;
      if (!rooted) {
        // the project directory the session's `projectHash` names (where it was recorded)
        const root = geminiProjectRoot(session.meta, [str(edits[0]!.path)]);
        if (root !== undefined) c.paths.addRoot(root);
        rooted = true;
      }
      for (const e of edits) c.add(e, { turn, promptIndex, position: at });
      const id = str(call['id']);
      const status = str(call['status']);
      if (status === 'error' || status === 'cancelled') {
        c.fail(id);
        continue;
      }
      const display = call['resultDisplay'];
      if (isObj(display) && typeof display['fileDiff'] === 'string') {
        const diff = parseUnifiedDiff(display['fileDiff']);
        if (diff) c.applied(id, edits[0]!.path, undefined, diff.added, diff.removed);
      }
    }
  }
  return c.result();
}

export const geminiEditsReader: EditsReader = { tools: TOOLS, readEdits: readGeminiEdits };
