/**
 * An OpenCode export (`{info, messages: [{info, parts}]}`) as normalized context events
 * (SPEC-2 §F.4). One JSON document: read whole, folded fresh each time.
 *
 * - user messages → prompt (their own text parts, ./transcript.ts); a `compaction` part marks
 *   the compaction request, and the assistant message flagged `summary` after it is the summary;
 * - assistant `text` parts → assistant text; `tool` parts → the call and, once
 *   `state.status` is `completed` or `error`, its result: bash's `metadata.exit` ≠ 0 is an
 *   error, `state.error` saying the user rejected permission → rejected (with its feedback);
 * - `write`/`edit`/`multiedit` (`filePath`), `patch`/`apply_patch` (`metadata.files`) → edit;
 *   `bash` → shell; `todowrite` → todos; `task` → task; `question` → question;
 * - an assistant message ended by `MessageAbortedError` → interrupt.
 */
import type { ContextEvent, ContextTodo, ContextToolKind, TranscriptText } from '../types.js';
import { str } from '../kit/entries.js';
import { isObj } from '../kit/obj.js';
import { parseOpenCodeExport, userPromptOf } from './transcript.js';

type Obj = Record<string, unknown>;
type ToolEvent = Extract<ContextEvent, { type: 'tool' }>;

const MAX_OUTPUT = 4096;
const REJECTED_RE = /user (?:has )?rejected permission|user dismissed/i;

function kindOf(name: string): ContextToolKind {
  switch (name) {
    case 'write':
    case 'edit':
    case 'multiedit':
    case 'patch':
    case 'apply_patch':
      return 'edit';
    case 'bash':
      return 'shell';
    case 'todowrite':
      return 'todo';
    case 'task':
      return 'task';
    case 'question':
      return 'question';
    case 'plan_exit':
      return 'plan';
    default:
      return 'other';
  }
}

function todosOf(input: Obj): ContextTodo[] {
  const out: ContextTodo[] = [];
  for (const t of Array.isArray(input['todos']) ? input['todos'] : []) {
    if (!isObj(t)) continue;
    const s = str(t['status']);
    out.push({ text: str(t['content']), status: s === 'in_progress' || s === 'completed' ? s : 'pending' });
  }
  return out;
}

function editPaths(input: Obj, meta: Obj): string[] {
  const own = str(input['filePath']);
  if (own) return [own];
  const files = Array.isArray(meta['files']) ? meta['files'] : [];
  return files.map((f) => (isObj(f) ? str(f['filePath']) || str(f['movePath']) : str(f))).filter((p) => p !== '');
}

function* toolPart(part: Obj): Generator<ContextEvent> {
  const name = str(part['tool']);
  const id = str(part['callID']) || str(part['id']);
  const state = isObj(part['state']) ? part['state'] : {};
  const input = isObj(state['input']) ? state['input'] : {};
  const meta = isObj(state['metadata']) ? state['metadata'] : {};
  const kind = kindOf(name);
  const ev: ToolEvent = { type: 'tool', id, kind, name };
  if (kind === 'edit') {
    const paths = editPaths(input, meta);
    if (paths.length > 0) ev.paths = paths;
    if (typeof input['oldString'] === 'string' && typeof input['newString'] === 'string') ev.edit = { old: input['oldString'], new: input['newString'] };
  } else if (kind === 'shell') {
    ev.command = str(input['command']);
  } else if (kind === 'todo') {
    ev.todos = todosOf(input);
  } else if (kind === 'task') {
    ev.text = str(input['description']) || str(input['prompt']);
  } else if (kind === 'question') {
    const qs = Array.isArray(input['questions']) ? input['questions'] : [];
    ev.text = qs.map((q) => (isObj(q) ? str(q['question']) : '')).filter((q) => q !== '').join(' / ') || str(input['question']);
  } else if (kind === 'plan') {
    ev.text = str(input['plan']);
  }
  yield ev;
  const status = str(state['status']);
  if (status === 'error') {
    const error = str(state['error']);
    if (REJECTED_RE.test(error)) {
      const said = /feedback:\s*([\s\S]*)$/i.exec(error);
      yield { type: 'result', id, status: 'rejected', text: said ? said[1]!.trim() : '' };
      return;
    }
    yield { type: 'result', id, status: 'error', text: error.slice(0, MAX_OUTPUT) };
  } else if (status === 'completed') {
    const exit = meta['exit'];
    const failed = typeof exit === 'number' && exit !== 0;
    const text = str(state['output']);
    yield { type: 'result', id, status: failed ? 'error' : 'ok', text: text.slice(0, MAX_OUTPUT) };
  }
}

function partsText(parts: readonly Obj[]): string {
  return parts
    .filter((p) => p['type'] === 'text' && p['synthetic'] !== true)
    .map((p) => str(p['text']))
    .join('\n\n');
}

export function* openCodeContextEvents(transcript: TranscriptText): Generator<ContextEvent> {
  const doc = parseOpenCodeExport(transcript.whole());
  if (!doc) return;
  for (const { info, parts } of doc.messages) {
    if (info['role'] === 'user') {
      if (parts.some((p) => p['type'] === 'compaction')) continue;
      const t = userPromptOf(parts);
      if (t) yield { type: 'prompt', text: t };
      continue;
    }
    if (info['role'] !== 'assistant') continue;
    if (info['summary'] === true) {
      const t = partsText(parts);
      if (t.trim()) yield { type: 'compaction', text: t };
      continue;
    }
    for (const part of parts) {
      if (part['type'] === 'text' && part['synthetic'] !== true) {
        const t = str(part['text']).trim();
        if (t) yield { type: 'assistant', text: t };
      } else if (part['type'] === 'tool') {
        yield* toolPart(part);
      }
    }
    const error = info['error'];
    if (isObj(error) && error['name'] === 'MessageAbortedError') yield { type: 'interrupt' };
  }
}
