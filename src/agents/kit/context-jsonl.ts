/**
 * Normalized context events (SPEC-2 §F.4) of JSONL conversations in the Messages API shape: lines naming
 * their speaker in `type` or `role`, assistant `tool_use` blocks answered by user `tool_result`
 * blocks. Lines are independent, so the transcript is read window by window, and only lines
 * that can be a user or assistant turn are parsed. Each agent supplies its dialect.
 */
import type { ContextEvent, ContextTodo, ContextToolKind, TranscriptText } from '../types.js';
import { str } from './entries.js';
import { isObj } from './obj.js';
import { parsedLines } from './context-lines.js';

export interface ContextDialect {
  /** Where a line names its speaker. */
  roleKey: 'type' | 'role';
  /** The user's words without the agent's wrappers; `''`: not a prompt. */
  cleanPrompt(text: string): string;
  /** Lines the agent marks as not typed by the user. */
  isSystemLine?(line: Record<string, unknown>): boolean;
  /** What a tool of this name does. */
  kindOf(name: string): ContextToolKind;
  /** Input keys naming the file an edit tool writes, in preference order. */
  pathKeys: readonly string[];
}

const REJECTED = "The user doesn't want to proceed with this tool use";
/** An answered question tool: `User has answered your questions: "<q>"="<a>", …`. */
const ANSWERS_RE = /^User has answered your questions?:/;
const INTERRUPT_RE = /^\[Request interrupted by user[^\]]*\]/;

function todosOf(input: Record<string, unknown>): ContextTodo[] {
  const list = Array.isArray(input['todos']) ? input['todos'] : [];
  const out: ContextTodo[] = [];
  for (const t of list) {
    if (!isObj(t)) continue;
    const status = t['status'] === 'in_progress' || t['status'] === 'completed' ? t['status'] : 'pending';
    out.push({ text: str(t['content']) || str(t['activeForm']), status });
  }
  return out;
}

function toolEvent(block: Record<string, unknown>, d: ContextDialect): ContextEvent {
  const name = str(block['name']);
  const input = isObj(block['input']) ? block['input'] : {};
  const kind = d.kindOf(name);
  const ev: Extract<ContextEvent, { type: 'tool' }> = { type: 'tool', id: str(block['id']), kind, name };
  if (kind === 'edit') {
    const p = d.pathKeys.map((k) => str(input[k])).find((x) => x !== '');
    if (p) ev.paths = [p];
    if (typeof input['old_string'] === 'string' && typeof input['new_string'] === 'string') {
      ev.edit = { old: input['old_string'], new: input['new_string'] };
    }
  } else if (kind === 'shell') {
    ev.command = str(input['command']);
  } else if (kind === 'todo') {
    ev.todos = todosOf(input);
  } else if (kind === 'question') {
    const qs = Array.isArray(input['questions']) ? input['questions'] : [];
    ev.text = qs.map((q) => (isObj(q) ? str(q['question']) : '')).filter((q) => q !== '').join(' / ') || str(input['question']);
  } else if (kind === 'plan') {
    ev.text = str(input['plan']);
  } else if (kind === 'task') {
    ev.text = str(input['description']) || str(input['prompt']);
  }
  return ev;
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((b) => (isObj(b) && b['type'] === 'text' ? str(b['text']) : '')).filter((t) => t !== '').join('\n');
}

function resultEvent(block: Record<string, unknown>): ContextEvent {
  const id = str(block['tool_use_id']);
  const text = resultText(block['content']);
  if (text.startsWith(REJECTED)) {
    const said = /the user said:\s*([\s\S]*)$/i.exec(text);
    return { type: 'result', id, status: 'rejected', text: said ? said[1]!.trim() : '' };
  }
  const answers = ANSWERS_RE.test(text) ? [...text.matchAll(/"(?:[^"\\]|\\.)*"="((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!) : [];
  if (answers.length > 0) return { type: 'result', id, status: 'ok', text: answers.join('; ') };
  return { type: 'result', id, status: block['is_error'] === true ? 'error' : 'ok', text: text.length > 4096 ? text.slice(0, 4096) : text };
}

function* userLine(v: Record<string, unknown>, d: ContextDialect): Generator<ContextEvent> {
  if (v['isCompactSummary'] === true) {
    const m = v['message'];
    yield { type: 'compaction', text: resultText(isObj(m) ? m['content'] : m) };
    return;
  }
  if (d.isSystemLine?.(v)) return;
  const message = v['message'];
  const content = isObj(message) ? message['content'] : message;
  if (typeof content === 'string') {
    if (INTERRUPT_RE.test(content.trim())) {
      yield { type: 'interrupt' };
      return;
    }
    const t = d.cleanPrompt(content);
    if (t) yield { type: 'prompt', text: t };
    return;
  }
  if (!Array.isArray(content)) return;
  const texts: string[] = [];
  let results = 0;
  for (const block of content) {
    if (!isObj(block)) continue;
    if (block['type'] === 'tool_result') {
      results++;
      yield resultEvent(block);
    } else if (block['type'] === 'text') {
      texts.push(str(block['text']));
    }
  }
  for (const raw of texts) {
    if (INTERRUPT_RE.test(raw.trim())) {
      yield { type: 'interrupt' };
      continue;
    }
    const t = d.cleanPrompt(raw);
    if (!t) continue;
    // text beside a tool result was sent mid-turn; alone it is a prompt
    yield results > 0 ? { type: 'user-note', text: t } : { type: 'prompt', text: t };
  }
}

function* assistantLine(v: Record<string, unknown>, d: ContextDialect): Generator<ContextEvent> {
  const message = v['message'];
  const content = isObj(message) ? message['content'] : message;
  if (typeof content === 'string') {
    if (content.trim()) yield { type: 'assistant', text: content };
    return;
  }
  if (!Array.isArray(content)) return;
  for (const block of content) {
    if (!isObj(block)) continue;
    if (block['type'] === 'text') {
      const t = str(block['text']);
      if (t.trim()) yield { type: 'assistant', text: t };
    } else if (block['type'] === 'tool_use') {
      yield toolEvent(block, d);
    }
  }
}

export function* jsonlContextEvents(transcript: TranscriptText, d: ContextDialect): Generator<ContextEvent> {
  for (const v of parsedLines(transcript, ['"user"', '"assistant"'])) {
    // subagent sidechains are another conversation
    if (v['isSidechain'] === true) continue;
    const role = typeof v[d.roleKey] === 'string' ? v[d.roleKey] : v['role'];
    if (role === 'user') yield* userLine(v, d);
    else if (role === 'assistant') yield* assistantLine(v, d);
  }
}
