/** Cursor's transcript as normalized context events (SPEC-2 §F.4): Claude-shaped JSONL with `role`. */
import type { ContextEvent, ContextToolKind, TranscriptText } from '../types.js';
import { jsonlContextEvents, type ContextDialect } from '../kit/context-jsonl.js';
import { cleanCursorPrompt } from './text.js';

function kindOf(name: string): ContextToolKind {
  switch (name) {
    case 'Write':
    case 'StrReplace':
    case 'Edit':
    case 'MultiEdit':
    case 'Delete':
      return 'edit';
    case 'Shell':
    case 'Bash':
    case 'run_terminal_cmd':
      return 'shell';
    case 'TodoWrite':
    case 'todo_write':
      return 'todo';
    case 'Task':
      return 'task';
    default:
      return 'other';
  }
}

const CURSOR_CONTEXT: ContextDialect = {
  roleKey: 'role',
  cleanPrompt: cleanCursorPrompt,
  kindOf,
  pathKeys: ['path', 'file_path'],
};

export function cursorContextEvents(transcript: TranscriptText): Iterable<ContextEvent> {
  return jsonlContextEvents(transcript, CURSOR_CONTEXT);
}
