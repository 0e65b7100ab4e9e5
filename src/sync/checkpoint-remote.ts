/**
 * SPEC-2 §E.5 `strategy_options.checkpoint_remote`: the one remote that
 * receives (and is read for) checkpoint data. The setting lives in the work
 * tree, which is untrusted (SPEC-2 §A.1), so it may only *name* a remote the
 * user configured in git (trusted config): a committed setting can never
 * point transcripts at a URL of its own choosing.
 */
import type { EntireSettings } from '../settings/settings.js';

/** git remote names we accept: what `git remote add` makes of ordinary names, never an option or a path. */
const REMOTE_NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,99}$/;

export function isRemoteName(v: unknown): v is string {
  return typeof v === 'string' && REMOTE_NAME.test(v) && !v.includes('..') && !v.endsWith('.lock') && !v.endsWith('.');
}

/** The remote `enable --checkpoint-remote <url>` adds when no configured remote has that URL. */
export const DEFAULT_CHECKPOINT_REMOTE = 'entire-checkpoints';

export type CheckpointRemoteSetting =
  /** not set: checkpoints travel with the code, to whichever remote is pushed */
  | { kind: 'unset' }
  | { kind: 'remote'; name: string }
  /** set but not a remote name: fail closed (nothing pushed anywhere) */
  | { kind: 'invalid'; raw: string };

export function checkpointRemoteSetting(settings: EntireSettings): CheckpointRemoteSetting {
  const raw = settings.strategy_options?.['checkpoint_remote'];
  if (raw === undefined || raw === null || raw === '') return { kind: 'unset' };
  if (isRemoteName(raw)) return { kind: 'remote', name: raw };
  return { kind: 'invalid', raw: typeof raw === 'string' ? raw : JSON.stringify(raw) ?? String(raw) };
}

/** Is `remote` as git's pre-push names it (a name or a URL) a URL rather than a configured remote? */
export function isUrlLike(remote: string): boolean {
  return /[:/\\]/.test(remote) || !isRemoteName(remote);
}
