/**
 * Gemini CLI's session as normalized context events (SPEC-2 §F.4). Its JSONL records patch
 * earlier ones (`$set`, repeated ids), so the session is parsed whole, then walked in order.
 * A `gemini` message carries its tool calls with their results and status.
 */
import type { ContextEvent, ContextTodo, ContextToolKind, TranscriptText } from '../types.js';
import { str } from '../kit/entries.js';
import { isObj } from '../kit/obj.js';
import { parseGeminiSession } from './transcript.js';
import { GEMINI_EDIT_TOOLS, editedPath, geminiContentText, toolCalls, userPrompt } from './messages.js';

function kindOf(name: string): ContextToolKind {
  if (GEMINI_EDIT_TOOLS.has(name)) return 'edit';
  switch (name) {
    case 'run_shell_command':
      return 'shell';
    case 'write_todos':
      return 'todo';
    case 'ask_user':
      return 'question';
    case 'exit_plan_mode':
      return 'plan';
    default:
      return 'other';
  }
}

function todosOf(args: Record<string, unknown>): ContextTodo[] {
  const list = Array.isArray(args['todos']) ? args['todos'] : [];
  const out: ContextTodo[] = [];
  for (const t of list) {
    if (!isObj(t)) continue;
    const s = str(t['status']);
    const status = s === 'in_progress' || s === 'completed' ? s : 'pending';
    out.push({ text: str(t['description']) || str(t['content']), status });
  }
  return out;
}

/** What a call's result says: its output, else its error. */
function resultOf(call: Record<string, unknown>): { error: boolean; text: string } {
  const parts = Array.isArray(call['result']) ? call['result'] : [];
  let text = '';
  let error = false;
  for (const p of parts) {
    const fr = isObj(p) ? p['functionResponse'] : undefined;
    const resp = isObj(fr) ? fr['response'] : undefined;
    if (!isObj(resp)) continue;
    if (typeof resp['error'] === 'string') {
      error = true;
      text = resp['error'];
    } else if (typeof resp['output'] === 'string') {
      text = resp['output'];
    }
  }
  // a shell command that ran but failed reports its exit code in the output
  const exit = /Exit Code: (\d+)/.exec(text);
  if (exit && exit[1] !== '0') error = true;
  return { error, text: text.length > 4096 ? text.slice(0, 4096) : text };
}

function* callEvents(call: unknown): Generator<ContextEvent> {
  if (!isObj(call)) return;
  const name = str(call['name']);
  const id = str(call['id']);
  const args = isObj(call['args']) ? call['args'] : {};
  const kind = kindOf(name);
  const ev: Extract<ContextEvent, { type: 'tool' }> = { type: 'tool', id, kind, name };
  if (kind === 'edit') {
    const p = editedPath(call);
    if (p) ev.paths = [p];
    if (typeof args['old_string'] === 'string' && typeof args['new_string'] === 'string') ev.edit = { old: args['old_string'], new: args['new_string'] };
  } else if (kind === 'shell') {
    ev.command = str(args['command']);
  } else if (kind === 'todo') {
    ev.todos = todosOf(args);
  } else if (kind === 'question' || kind === 'plan') {
    ev.text = str(args['question']) || str(args['plan']);
  }
  yield ev;
  const status = str(call['status']);
  if (status === 'cancelled') {
    yield { type: 'result', id, status: 'rejected', text: '' };
    return;
  }
  if (status === '' && !Array.isArray(call['result'])) return;
  const r = resultOf(call);
  yield { type: 'result', id, status: status === 'error' || r.error ? 'error' : 'ok', text: r.text };
}

export function* geminiContextEvents(transcript: TranscriptText): Generator<ContextEvent> {
  let session;
  try {
    session = parseGeminiSession(transcript.whole(), transcript.format === 'json' ? 'document' : 'jsonl');
  } catch {
    return;
  }
  for (const { value: m } of session.messages) {
    if (m['type'] === 'user') {
      const t = userPrompt(m, session.form);
      if (t) yield { type: 'prompt', text: t };
    } else if (m['type'] === 'gemini') {
      const t = geminiContentText(m['content']).trim();
      if (t) yield { type: 'assistant', text: t };
      for (const c of toolCalls(m)) yield* callEvents(c);
    } else if (m['type'] === 'info' && /cancel|interrupt/i.test(geminiContentText(m['content']))) {
      yield { type: 'interrupt' };
    }
  }
}
