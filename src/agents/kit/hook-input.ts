/**
 * Helpers every agent's hook-stdin parser uses (SPEC §7): JSON object or a
 * clear INVALID_INPUT, validation with zod/mini (small, tree-shakeable; only
 * the fields we use are checked and unknown fields are allowed, since agents
 * add fields between versions), the session-id check of SPEC-2 §A.2, and
 * setters that leave absent/empty fields out of the event.
 */
import * as z from 'zod/mini';
import { EntireError } from '../../errors.js';
import { sessionIdProblem } from '../../trust/ids.js';
import { isModelName } from '../../redact/model-name.js';
import type { HookEvent, HookEventKind } from '../types.js';

export const optStr = () => z.optional(z.nullable(z.string()));

/** A schema built on first use: a hook process needs one of them. */
export function lazySchema<T>(build: () => T): () => T {
  let built: T | undefined;
  return () => (built ??= build());
}

export function invalid(message: string, detail?: Record<string, unknown>): EntireError {
  return new EntireError('INVALID_INPUT', message, detail ? { detail } : undefined);
}

export function nonEmpty(v: string | null | undefined): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

export function parseJsonObject(label: string, stdinText: string): unknown {
  if (stdinText.trim() === '') throw invalid(`${label}: empty hook input on stdin (expected a JSON object)`);
  let v: unknown;
  try {
    v = JSON.parse(stdinText);
  } catch {
    throw invalid(`${label}: hook input on stdin is not valid JSON`);
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    throw invalid(`${label}: hook input on stdin must be a JSON object`);
  }
  return v;
}

export function validated<T>(label: string, schema: z.ZodMiniType<T>, value: unknown): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issues = r.error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`).join('; ');
  throw invalid(`${label}: invalid hook input (${issues})`);
}

export function requireSessionId(label: string, sid: string | undefined, field: string): string {
  if (sid === undefined) throw invalid(`${label}: hook input has no ${field}`);
  const problem = sessionIdProblem(sid);
  if (problem !== null) throw invalid(`${label}: invalid ${field} ${JSON.stringify(sid.slice(0, 80))} (${problem})`, { field });
  return sid;
}

export function str(obj: Record<string, unknown> | undefined, key: string): string | undefined {
  const v = obj?.[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

export function setIf<K extends keyof HookEvent>(ev: HookEvent, key: K, value: string | null | undefined): void {
  if (typeof value === 'string' && value !== '') (ev as unknown as Record<string, unknown>)[key] = value;
}

/** A payload's model name: any JSON value is accepted by the schema, only a valid name reaches the event. */
export const optModel = () => z.optional(z.unknown());

/** Set `model` when `value` is a valid model name (SPEC-2 §A.2); another string is refused (logged), other types ignored. */
export function setModel(ev: HookEvent, value: unknown): void {
  if (value === undefined || value === null || value === '') return;
  if (isModelName(value)) ev.model = value;
  else if (typeof value === 'string') (ev.refused ??= []).push(`model ${JSON.stringify(value.slice(0, 80))} is not a valid model name`);
}

export function setCommon(ev: HookEvent, transcriptPath: string | null | undefined, cwd: string | null | undefined): void {
  setIf(ev, 'transcriptPath', transcriptPath);
  setIf(ev, 'cwd', cwd);
}

export function setPrompt(ev: HookEvent, prompt: string | null | undefined, clean: (s: string) => string): void {
  if (typeof prompt !== 'string') return;
  ev.rawPrompt = prompt;
  ev.prompt = clean(prompt);
}

/**
 * The start every agent's parser shares: the verb's event kind (INVALID_USAGE
 * for an unknown verb), and for anything but a no-op the stdin as a JSON
 * object checked against the agent's schema. No-op verbs do not look at stdin.
 */
export function beginHookInput<T>(
  agent: string,
  verbs: Readonly<Record<string, HookEventKind>>,
  verb: string,
  stdinText: string,
  schema: () => z.ZodMiniType<T>,
): { kind: HookEventKind; label: string; input: T } | { noop: HookEvent } {
  const kind = Object.prototype.hasOwnProperty.call(verbs, verb) ? verbs[verb] : undefined;
  if (kind === undefined) {
    throw new EntireError('INVALID_USAGE', `unknown hook "${verb}" for agent ${agent}`, { detail: { agent, verb } });
  }
  if (kind === 'noop') return { noop: { kind, agent, verb, sessionId: '' } };
  const label = `hooks ${agent} ${verb}`;
  return { kind, label, input: validated(label, schema(), parseJsonObject(label, stdinText)) };
}
