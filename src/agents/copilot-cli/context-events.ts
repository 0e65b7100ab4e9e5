/**
 * A Copilot CLI `events.jsonl` as normalized context events (SPEC-2 §F.4). Line-local: each
 * record's events depend on that record alone, so the fold may resume at any line end.
 *
 * - `user.message` → prompt (./prompts.ts); `assistant.message` `content` → assistant text;
 * - `tool.execution_start` → the call (`toolName`, `arguments`): `create`/`edit` → edit
 *   (`path`), `bash`/`shell`/`powershell` → shell (`command`), `update_todo`/`todo_write` →
 *   todos (a list, or a markdown checklist), `ask_user` → question, `task` → task;
 * - `tool.execution_complete` → its result: `success` and `shellExecution.exitCode`, the
 *   output `result.content` or `error.message`; an error saying the user denied or rejected
 *   it → rejected;
 * - `abort` → interrupt; `session.compaction_complete` → compaction (its summary).
 */
import type { ContextEvent, ContextTodo, ContextToolKind, TranscriptText } from '../types.js';
import { str } from '../kit/entries.js';
import { isObj } from '../kit/obj.js';
import { parsedLines } from '../kit/context-lines.js';
import { EDIT_TOOLS } from './events.js';
import { userMessagePrompt } from './prompts.js';

type Obj = Record<string, unknown>;
type ToolEvent = Extract<ContextEvent, { type: 'tool' }>;

const NEEDLES = ['"user.message"', '"assistant.message"', '"tool.execution_', '"abort"', '"session.compaction_complete"'];
const MAX_OUTPUT = 4096;

function kindOf(name: string): ContextToolKind {
  if (EDIT_TOOLS.has(name)) return 'edit';
  switch (name) {
    case 'bash':
    case 'shell':
    case 'powershell':
      return 'shell';
    case 'update_todo':
    case 'todo_write':
    case 'write_todos':
      return 'todo';
    case 'ask_user':
      return 'question';
    case 'task':
      return 'task';
    default:
      return 'other';
  }
}

const CHECK_RE = /^\s*[-*]\s+\[([ xX~-])\]\s+(.+)$/;

/** A todo list: `todos: [{content|title|description, status}]`, or a markdown checklist string. */
function todosOf(args: Obj): ContextTodo[] {
  const raw = args['todos'] ?? args['items'];
  const out: ContextTodo[] = [];
  if (typeof raw === 'string') {
    for (const line of raw.split('\n')) {
      const m = CHECK_RE.exec(line);
      if (m) out.push({ text: m[2]!.trim(), status: m[1] === 'x' || m[1] === 'X' ? 'completed' : m[1] === '~' || m[1] === '-' ? 'in_progress' : 'pending' });
    }
    return out;
  }
  if (!Array.isArray(raw)) return out;
  for (const t of raw) {
    if (!isObj(t)) continue;
    const s = str(t['status']);
    out.push({ text: str(t['content']) || str(t['title']) || str(t['description']), status: s === 'in_progress' || s === 'completed' || s === 'done' ? (s === 'done' ? 'completed' : s) : 'pending' });
  }
  return out;
}

function toolEvent(data: Obj): ToolEvent {
  const name = str(data['toolName']);
  const args = isObj(data['arguments']) ? data['arguments'] : {};
  const kind = kindOf(name);
  const ev: ToolEvent = { type: 'tool', id: str(data['toolCallId']), kind, name };
  if (kind === 'edit') {
    const p = str(args['path']);
    if (p) ev.paths = [p];
    if (typeof args['old_str'] === 'string' && typeof args['new_str'] === 'string') ev.edit = { old: args['old_str'], new: args['new_str'] };
  } else if (kind === 'shell') {
    ev.command = str(args['command']);
  } else if (kind === 'todo') {
    ev.todos = todosOf(args);
  } else if (kind === 'question') {
    ev.text = str(args['question']);
  } else if (kind === 'task') {
    ev.text = str(args['description']) || str(args['prompt']);
  }
  return ev;
}

function resultEvent(data: Obj): ContextEvent {
  const id = str(data['toolCallId']);
  const result = isObj(data['result']) ? data['result'] : {};
  const error = isObj(data['error']) ? data['error'] : {};
  const errorText = str(error['message']) || str(data['error']);
  const shell = isObj(data['shellExecution']) ? data['shellExecution'] : {};
  const exit = shell['exitCode'];
  if (data['success'] === false && /\b(denied|rejected|declined)\b/i.test(errorText) && /\buser\b/i.test(errorText)) {
    const said = /feedback:\s*([\s\S]*)$/i.exec(errorText);
    return { type: 'result', id, status: 'rejected', text: said ? said[1]!.trim() : '' };
  }
  const failed = data['success'] === false || (typeof exit === 'number' && exit !== 0);
  const text = (failed && errorText) || str(result['content']) || errorText;
  return { type: 'result', id, status: failed ? 'error' : 'ok', text: text.length > MAX_OUTPUT ? text.slice(0, MAX_OUTPUT) : text };
}

function* recordEvents(type: string, data: Obj): Generator<ContextEvent> {
  switch (type) {
    case 'user.message': {
      const t = userMessagePrompt(data);
      if (t) yield { type: 'prompt', text: t };
      return;
    }
    case 'assistant.message': {
      const t = str(data['content']).trim();
      if (t) yield { type: 'assistant', text: t };
      return;
    }
    case 'tool.execution_start':
      yield toolEvent(data);
      return;
    case 'tool.execution_complete':
      yield resultEvent(data);
      return;
    case 'abort':
      yield { type: 'interrupt' };
      return;
    case 'session.compaction_complete': {
      const t = str(data['summaryContent']) || str(data['summary']);
      if (t.trim()) yield { type: 'compaction', text: t };
      return;
    }
  }
}

export function* copilotContextEvents(transcript: TranscriptText): Generator<ContextEvent> {
  for (const v of parsedLines(transcript, NEEDLES)) if (isObj(v['data'])) yield* recordEvents(str(v['type']), v['data']);
}
