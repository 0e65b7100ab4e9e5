/**
 * SPEC-3 §A.4: the one routing store every reader goes through (explain,
 * resume, rewind, status, doctor, tasks, context, the dangling-trailer and
 * hook-less-commit checks, prepare-commit-msg's "is this id taken").
 *
 * - A ULID resolves in refs only.
 * - A hex id resolves in refs first (hex-named refs come from Go's migration:
 *   Go reads the ref), then on the v1 branch (local ∪ tracking copies).
 * - Listings union both backends and show each id once (the ref's copy).
 * - Commands that read one checkpoint may fetch it on demand when it is not
 *   local (`allowOnDemandFetch`): one ref per fetch, bounded, trying the
 *   checkpoint remote, then the upstream, then `origin`; the first transport
 *   failure of a command is remembered, and a checkpoint that could not be
 *   fetched is "not available", never "not found". Hooks never fetch (§A.7).
 */
import type { Repo } from '../git/repo.js';
import { EntireError } from '../errors.js';
import { runGit } from '../git/exec.js';
import { configGet, currentBranch } from '../git/repo.js';
import { listRemotes } from '../install/fetch-refspecs.js';
import { assertCheckpointId, checkpointRef, isUlidCheckpointId } from '../checkpoint/id.js';
import type { CheckpointBackend } from './checkpoint-store.js';
import { branchStore } from './branch-store.js';
import { refsStore } from './refs-store.js';
import { sessionContentOf, type CheckpointListItem, type CheckpointView, type ReadScope, type SessionContent } from './committed.js';
import { loadSettings } from '../settings/settings.js';
import { checkpointRemoteSetting, isRemoteName } from '../sync/checkpoint-remote.js';

export type { CheckpointView, CheckpointListItem, CommittedSessionView, SessionContent, ReadScope } from './committed.js';

/** The backends a given id may live in, in the order they are asked (SPEC-3 §A.4). */
export function backendsFor(id: string): CheckpointBackend[] {
  return isUlidCheckpointId(id) ? [refsStore] : [refsStore, branchStore];
}

/** Checkpoint `id` wherever it is stored (the ref wins over the branch), or null when no local store holds it. */
export async function readLocalCheckpoint(repo: Repo, id: string, scope: ReadScope = {}): Promise<CheckpointView | null> {
  assertCheckpointId(id);
  for (const b of backendsFor(id)) {
    const v = await b.read(repo, id, scope);
    if (v) return v;
  }
  return null;
}

/**
 * Checkpoint `id` as readers see it. Not local: fetched on demand when the
 * command allows it; a fetch that failed throws CHECKPOINT_UNAVAILABLE (never
 * "not found").
 */
export async function readCheckpoint(repo: Repo, id: string, scope: ReadScope = {}): Promise<CheckpointView | null> {
  const local = await readLocalCheckpoint(repo, id, scope);
  if (local || !onDemand || scope.localOnly) return local;
  const got = await fetchCheckpointRef(repo, id);
  if (got === 'fetched') return readLocalCheckpoint(repo, id, scope);
  if (got === 'unavailable') {
    throw new EntireError('CHECKPOINT_UNAVAILABLE', `checkpoint ${id} is not available: ${lastFailure ?? 'the remote could not be read'}`);
  }
  return null;
}

/** One session's content, by slot number or session id, from wherever the checkpoint is stored. */
export async function readSessionContent(repo: Repo, id: string, which: { slot?: number; sessionId?: string }, scope: ReadScope = {}): Promise<SessionContent> {
  const view = await readCheckpoint(repo, id, scope);
  if (!view) throw new EntireError('CHECKPOINT_NOT_FOUND', `checkpoint ${id} not found`);
  return sessionContentOf(repo, view, which);
}

/** Does any local store hold `id`? No fetch, and no process on the hooks' common path. */
export async function checkpointExists(repo: Repo, id: string): Promise<boolean> {
  for (const b of backendsFor(id)) if (await b.has(repo, id)) return true;
  return false;
}

/** Every local checkpoint of both backends, each id once (the ref's summary when both hold it), sorted by id. */
export async function listCheckpoints(repo: Repo): Promise<CheckpointListItem[]> {
  const [refs, branch] = await Promise.all([refsStore.list(repo), branchStore.list(repo)]);
  const byId = new Map<string, CheckpointListItem>();
  for (const c of [...refs, ...branch]) if (!byId.has(c.checkpointId)) byId.set(c.checkpointId, c);
  return [...byId.values()].sort((a, b) => (a.checkpointId < b.checkpointId ? -1 : a.checkpointId > b.checkpointId ? 1 : 0));
}

// ------------------------------------------------------------------ on-demand fetch

/** Per network operation (SPEC-3 §A.4: ≤ 5 s). */
export const FETCH_TIMEOUT_MS = 5000;

let onDemand = false;
/** The first transport failure of this command: later misses do not try the dead network again. */
let lastFailure: string | null = null;

/** Commands that read a named checkpoint call this; hooks never do (SPEC-3 §A.7). */
export function allowOnDemandFetch(on = true): void {
  onDemand = on;
  lastFailure = null;
}

/** The remotes to ask, in order: the checkpoint remote, the current branch's upstream, `origin` (configured ones only). */
async function fetchRemotes(repo: Repo): Promise<string[]> {
  const out: string[] = [];
  try {
    const s = checkpointRemoteSetting(loadSettings(repo.root).settings);
    if (s.kind === 'remote') out.push(s.name);
    if (s.kind === 'invalid') return []; // fail closed, as pushes do
  } catch {
    /* broken settings: status reports them */
  }
  const branch = currentBranch(repo);
  const upstream = branch ? await configGet(repo, `branch.${branch}.remote`).catch(() => null) : null;
  if (upstream) out.push(upstream);
  out.push('origin');
  const known = new Set(await listRemotes(repo));
  return [...new Set(out)].filter((r) => isRemoteName(r) && known.has(r));
}

/**
 * Fetch checkpoint `id`'s ref from the first remote that has it:
 * `git ls-remote <remote> <ref>`, then `git fetch --no-tags <remote> +<ref>:<ref>`.
 */
export async function fetchCheckpointRef(repo: Repo, id: string): Promise<'fetched' | 'absent' | 'unavailable'> {
  if (lastFailure !== null) return 'unavailable';
  const ref = checkpointRef(id);
  for (const remote of await fetchRemotes(repo)) {
    const ls = await runGit(['ls-remote', '--', remote, ref], { cwd: repo.root, allowFailure: true, timeoutMs: FETCH_TIMEOUT_MS });
    if (ls.code !== 0) {
      lastFailure = `git ls-remote ${remote} failed: ${ls.stderr.trim().split('\n')[0] || `exit ${ls.code}`}`;
      return 'unavailable';
    }
    const listed = ls.stdout.toString('utf8').split('\n').some((l) => l.endsWith(`\t${ref}`));
    if (!listed) continue;
    const f = await runGit(['fetch', '--no-tags', '--no-write-fetch-head', '--', remote, `+${ref}:${ref}`], {
      cwd: repo.root,
      allowFailure: true,
      timeoutMs: FETCH_TIMEOUT_MS,
    });
    if (f.code !== 0) {
      lastFailure = `git fetch ${remote} ${ref} failed: ${f.stderr.trim().split('\n')[0] || `exit ${f.code}`}`;
      return 'unavailable';
    }
    return 'fetched';
  }
  return 'absent';
}
