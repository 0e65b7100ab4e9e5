/**
 * SPEC-3 §A.5: the `checkpoints` settings block,
 * `{"checkpoints":{"primary":{"type":"git-branch"|"git-refs"}}}`. Read here
 * and validated here only; `status` and `doctor` report a broken block (one
 * line), hooks fall back to the branch. Which backend writes is decided by
 * the writer (not this module); readers route every id (store/routing.ts)
 * whatever the setting says.
 */
import type { EntireSettings } from './settings.js';

export type PrimaryBackend = 'git-branch' | 'git-refs';

export type CheckpointsSetting = { kind: 'unset' } | { kind: 'set'; primary: PrimaryBackend } | { kind: 'invalid'; problem: string };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function shown(v: unknown): string {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 60 ? text.slice(0, 60) + '…' : text;
}

/** The merged settings' `checkpoints` block, validated (unknown extra keys are kept and ignored). */
export function checkpointsSetting(settings: EntireSettings): CheckpointsSetting {
  const raw = settings.checkpoints;
  if (raw === undefined || raw === null) return { kind: 'unset' };
  if (!isObject(raw)) return { kind: 'invalid', problem: `"checkpoints" must be an object, not ${shown(raw)}` };
  const primary = raw['primary'];
  if (primary === undefined || primary === null) return { kind: 'unset' };
  if (!isObject(primary)) return { kind: 'invalid', problem: `"checkpoints.primary" must be an object, not ${shown(primary)}` };
  const type = primary['type'];
  if (type === 'git-branch' || type === 'git-refs') return { kind: 'set', primary: type };
  return { kind: 'invalid', problem: `"checkpoints.primary.type" must be "git-branch" or "git-refs", not ${shown(type)}` };
}

/** The line status and doctor print for a broken block, or null. */
export function checkpointsSettingError(settings: EntireSettings): string | null {
  const s = checkpointsSetting(settings);
  return s.kind === 'invalid' ? `[entire] Error: invalid settings: ${s.problem} (hooks write checkpoints to entire/checkpoints/v1)` : null;
}
