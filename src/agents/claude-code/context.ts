/** Claude Code's transcript as normalized context events (SPEC-2 §F.4): its tool names. */
import type { ContextEvent, ContextToolKind, TranscriptText } from '../types.js';
import { jsonlContextEvents, type ContextDialect } from '../kit/context-jsonl.js';
import { cleanClaudePrompt, isSystemUserLine } from './prompts.js';

function kindOf(name: string): ContextToolKind {
  switch (name) {
    case 'Edit':
    case 'MultiEdit':
    case 'Write':
    case 'NotebookEdit':
      return 'edit';
    case 'Bash':
      return 'shell';
    case 'TodoWrite':
      return 'todo';
    case 'Task':
    case 'Agent':
      return 'task';
    case 'AskUserQuestion':
      return 'question';
    case 'ExitPlanMode':
      return 'plan';
    default:
      return 'other';
  }
}

const CLAUDE_CONTEXT: ContextDialect = {
  roleKey: 'type',
  cleanPrompt: cleanClaudePrompt,
  isSystemLine: isSystemUserLine,
  kindOf,
  pathKeys: ['file_path', 'notebook_path'],
};

export function claudeContextEvents(transcript: TranscriptText): Iterable<ContextEvent> {
  return jsonlContextEvents(transcript, CLAUDE_CONTEXT);
}
