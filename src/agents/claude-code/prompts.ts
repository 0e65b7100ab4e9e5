/**
 * What counts as a prompt in Claude Code (SPEC §7.1, SPEC-2 §B.3). A
 * background subagent's completion comes back as a user turn whose text is
 * one `<task-notification>` element: a completion, never a prompt.
 */
import { cleanPrompt } from '../kit/text.js';

const NOTIFICATION_RE = /^\s*<task-notification>([\s\S]*)<\/task-notification>\s*$/;

/** The ids a `<task-notification>` prompt names, or null when the text is not one. */
export function taskNotification(text: string): { taskId: string; toolUseId: string } | null {
  const m = NOTIFICATION_RE.exec(text);
  if (!m) return null;
  const body = m[1]!;
  const field = (name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(body)?.[1]?.trim() ?? '';
  return { taskId: field('task-id'), toolUseId: field('tool-use-id') };
}

/** The common cleaning, and nothing for a completion. */
export function cleanClaudePrompt(text: string): string {
  return NOTIFICATION_RE.test(text) ? '' : cleanPrompt(text);
}

/** Transcript lines Claude marks as not typed by the user (meta lines, system-made turns). */
export function isSystemUserLine(line: Record<string, unknown>): boolean {
  if (line['isMeta'] === true) return true;
  if (line['promptSource'] === 'system' || line['turnOrigin'] === 'task_notification') return true;
  const origin = line['origin'];
  return origin !== null && typeof origin === 'object' && (origin as { kind?: unknown }).kind === 'task-notification';
}
