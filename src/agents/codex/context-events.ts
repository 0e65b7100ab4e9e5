/**
 * A Codex rollout as normalized context events (SPEC-2 §F.4). Line-local: each line's events
 * depend on that line alone, so the fold may resume at any line end.
 *
 * - prompt: `event_msg` `item_completed` `UserMessage` (what the user typed; the user
 *   `response_item`s repeat it beside Codex's injected context);
 * - assistant text: assistant `response_item` messages (`AgentMessage` items repeat them);
 * - tool calls: `function_call` / `custom_tool_call` / `local_shell_call` response items:
 *   `exec_command`/`shell` → shell, `apply_patch` → edit (its `*** … File:` headers),
 *   `update_plan` → todos, `request_user_input` → question, `spawn_agent` → task;
 * - results: `function_call_output` / `custom_tool_call_output`: the exit code the output
 *   reports (`Process exited with code N`, `Exit code: N`, legacy JSON `metadata.exit_code`),
 *   `rejected by user` → rejected;
 * - `event_msg` `turn_aborted` → interrupt; a `compacted` line → compaction.
 */
import type { ContextEvent, ContextTodo, ContextToolKind, TranscriptText } from '../types.js';
import { str } from '../kit/entries.js';
import { isObj } from '../kit/obj.js';
import { cleanPrompt } from '../kit/text.js';
import { parsedLines } from '../kit/context-lines.js';
import { applyPatchText, itemText, messageText, patchPaths } from './rollout.js';

type Obj = Record<string, unknown>;
type ToolEvent = Extract<ContextEvent, { type: 'tool' }>;

const NEEDLES = ['"UserMessage"', '"response_item"', '"turn_aborted"', '"compacted"'];
const MAX_OUTPUT = 4096;

function kindOf(name: string): ContextToolKind {
  switch (name) {
    case 'apply_patch':
      return 'edit';
    case 'exec_command':
    case 'shell':
    case 'shell_command':
    case 'local_shell':
    case 'container.exec':
      return 'shell';
    case 'update_plan':
      return 'todo';
    case 'request_user_input':
      return 'question';
    case 'spawn_agent':
      return 'task';
    default:
      return 'other';
  }
}

function parseArgs(raw: unknown): Obj {
  if (isObj(raw)) return raw;
  if (typeof raw !== 'string') return {};
  try {
    const v: unknown = JSON.parse(raw);
    return isObj(v) ? v : {};
  } catch {
    return {};
  }
}

/** `cmd` (exec_command) or `command` (a string, or argv: `bash -lc <script>` is its script). */
function commandOf(args: Obj): string {
  const cmd = args['cmd'] ?? args['command'];
  if (typeof cmd === 'string') return cmd;
  if (!Array.isArray(cmd) || !cmd.every((x) => typeof x === 'string')) return '';
  const argv = cmd as string[];
  if (argv.length === 3 && /(^|\/)(ba|z|da)?sh$/.test(argv[0]!) && /^-l?c$/.test(argv[1]!)) return argv[2]!;
  return argv.join(' ');
}

function todosOf(args: Obj): ContextTodo[] {
  const list = Array.isArray(args['plan']) ? args['plan'] : [];
  const out: ContextTodo[] = [];
  for (const t of list) {
    if (!isObj(t)) continue;
    const s = str(t['status']);
    out.push({ text: str(t['step']), status: s === 'in_progress' || s === 'completed' ? s : 'pending' });
  }
  return out;
}

function toolEvent(p: Obj): ToolEvent | null {
  const id = str(p['call_id']) || str(p['id']);
  if (p['type'] === 'local_shell_call') {
    const action = isObj(p['action']) ? p['action'] : {};
    return { type: 'tool', id, kind: 'shell', name: 'local_shell', command: commandOf(action) };
  }
  const name = str(p['name']);
  const kind = kindOf(name);
  const ev: ToolEvent = { type: 'tool', id, kind, name };
  const patch = applyPatchText(p);
  if (patch !== undefined) {
    ev.kind = 'edit';
    ev.paths = patchPaths(patch);
    return ev;
  }
  const args = parseArgs(p['type'] === 'custom_tool_call' ? p['input'] : p['arguments']);
  if (kind === 'shell') ev.command = commandOf(args);
  else if (kind === 'todo') ev.todos = todosOf(args);
  else if (kind === 'question') ev.text = str(args['question']) || (Array.isArray(args['questions']) ? args['questions'].map((q) => (isObj(q) ? str(q['question']) : str(q))).filter((q) => q !== '').join(' / ') : '');
  else if (kind === 'task') ev.text = str(args['message']) || str(args['prompt']) || str(args['description']);
  return ev;
}

const EXIT_RE = /^(?:Process exited with code|Exit code:)\s*(-?\d+)\s*$/m;

/** What an output says: its text (after Codex's `Output:` header) and whether it failed. */
function outputOf(raw: unknown): { text: string; failed: boolean | null } {
  if (isObj(raw)) {
    const text = str(raw['content']) || str(raw['output']);
    const ok = raw['success'];
    return { text, failed: typeof ok === 'boolean' ? !ok : null };
  }
  let text = str(raw);
  // older rollouts: the output is JSON `{output, metadata: {exit_code}}`
  if (text.startsWith('{')) {
    const v = parseArgs(text);
    const meta = isObj(v['metadata']) ? v['metadata'] : {};
    if (typeof v['output'] === 'string') return { text: v['output'], failed: typeof meta['exit_code'] === 'number' ? meta['exit_code'] !== 0 : null };
  }
  const exit = EXIT_RE.exec(text);
  const body = /^Output:\n/m.exec(text);
  if (body) text = text.slice(body.index + body[0].length);
  return { text, failed: exit ? exit[1] !== '0' : null };
}

function resultEvent(p: Obj): ContextEvent {
  const id = str(p['call_id']);
  const { text, failed } = outputOf(p['output']);
  if (/\brejected by (?:the )?user\b/i.test(text) && text.length < 400) return { type: 'result', id, status: 'rejected', text: '' };
  const error = failed ?? /^(?:apply_patch verification failed|error:|failed to)/i.test(text.trim());
  return { type: 'result', id, status: error ? 'error' : 'ok', text: text.length > MAX_OUTPUT ? text.slice(0, MAX_OUTPUT) : text };
}

function* lineEvents(v: Obj): Generator<ContextEvent> {
  const p = v['payload'];
  if (!isObj(p)) return;
  switch (v['type']) {
    case 'event_msg': {
      if (p['type'] === 'turn_aborted') {
        yield { type: 'interrupt' };
      } else if (p['type'] === 'item_completed' && isObj(p['item']) && p['item']['type'] === 'UserMessage') {
        const t = cleanPrompt(itemText(p['item']));
        if (t) yield { type: 'prompt', text: t };
      }
      return;
    }
    case 'compacted': {
      const t = str(p['message']);
      if (t.trim()) yield { type: 'compaction', text: t };
      return;
    }
    case 'response_item':
      break;
    default:
      return;
  }
  switch (p['type']) {
    case 'message':
      if (p['role'] === 'assistant') {
        const t = messageText(p).trim();
        if (t) yield { type: 'assistant', text: t };
      }
      return;
    case 'function_call':
    case 'custom_tool_call':
    case 'local_shell_call': {
      const ev = toolEvent(p);
      if (ev) yield ev;
      return;
    }
    case 'function_call_output':
    case 'custom_tool_call_output':
      yield resultEvent(p);
      return;
  }
}

export function* codexContextEvents(transcript: TranscriptText): Generator<ContextEvent> {
  for (const v of parsedLines(transcript, NEEDLES)) yield* lineEvents(v);
}
