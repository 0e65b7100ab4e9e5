/**
 * `entire clean [--force] [--json]` (SPEC §8.6): find what no session needs
 * any more and, with `--force`, delete it. The default run only lists and
 * changes nothing (not even the state index cache).
 *
 * Orphans:
 *  - shadow-branch  `entire/<base>-<wt6>` named by no state base and no pending
 *                   entry (**Improvement:** never a branch a live session needs);
 *                   never `entire/checkpoints/v1`
 *  - session-state  prunable (SPEC §4.3), or of a worktree that no longer exists
 *                   with nothing pending
 *  - scratch-file   `.entire/tmp/*` older than a day whose session is not live;
 *                   leftover `*.tmp` files of dead writers in the sessions dir
 *  - intent         a commit intent older than a day whose git process is gone and
 *                   which no recovery needs
 *  - lock           a session lock whose holder is dead
 *  - temp-ref       `refs/entire-tmp/<pid>-…` left by a dead writer
 * Ref deletions are compare-and-swap (`updateRefs`).
 */
import { existsSync, lstatSync, readdirSync, statSync } from 'node:fs';
import { confinedDirOrNull } from '../trust/confined.js';
import { isScratchName, TMP_REL } from '../strategy/scratch.js';
import { join } from 'node:path';
import { isEntireError } from '../errors.js';
import { openRepo, type Repo } from '../git/repo.js';
import { listRefs, updateRefs } from '../git/refs.js';
import { TEMP_REF_PREFIX } from '../git/fastimport.js';
import { encodeJson } from '../go-json.js';
import { METADATA_REF, SHADOW_BRANCH_RE, shadowBranchName } from '../checkpoint/shadow.js';
import { allCheckpointIds } from '../checkpoint/trailers.js';
import { isCheckpointId } from '../checkpoint/id.js';
import { checkpointExists } from '../store/routing.js';
import { listStates, deleteState, loadState, readPendingSideFiles } from '../session/store.js';
import { withSessionLock, inspectLock, isPidAlive, LOCK_STALE_MS } from '../session/lock.js';
import { isPrunable, pruneSessions } from '../session/prune.js';
import { sessionsDir, tryUnlink } from '../session/paths.js';
import { hasPendingWork, isLiveState, type SessionState } from '../session/state.js';
import { intentPath, readIntent } from '../strategy/intent.js';
import { ShadowReferences, inThisWorktree, listSideFiles, type Io, type SideFileInfo } from './common.js';
import { firstParentHistory } from './explain.js';

export interface CleanOptions {
  force?: boolean;
  json?: boolean;
}

export type CleanKind = 'shadow-branch' | 'session-state' | 'scratch-file' | 'intent' | 'lock' | 'temp-ref';

export interface CleanItemJson {
  kind: CleanKind;
  name: string;
  reason: string;
}

interface CleanItem extends CleanItemJson {
  /** Delete it (re-checking under locks / by CAS); true when it was removed. */
  remove: () => Promise<boolean>;
}

export const DAY_MS = 24 * 60 * 60 * 1000;
/** A leftover atomic-write temp file of a dead process older than this is debris. */
const TEMP_FILE_GRACE_MS = 60_000;
const TAKEOVER_STALE_MS = 10_000;

function ageMs(path: string, now: number): number | null {
  try {
    return now - statSync(path).mtimeMs;
  } catch {
    return null;
  }
}

function days(ms: number): string {
  const d = Math.floor(ms / DAY_MS);
  return d === 1 ? '1 day' : `${d} days`;
}

/** A linked worktree whose admin dir and recorded path are both gone. */
function worktreeVanished(repo: Repo, s: SessionState): boolean {
  const id = s.worktree_id ?? '';
  if (id === '') return false; // the main worktree always exists (a moved one is adopted, §4.3)
  if (existsSync(join(repo.commonDir, 'worktrees', id))) return false;
  return !s.worktree_path || !existsSync(s.worktree_path);
}

interface Context {
  repo: Repo;
  now: number;
  states: SessionState[];
  corrupt: number;
  sideFiles: SideFileInfo[];
  /** Short names of existing `refs/heads/entire/*` branches → tip. */
  branches: Map<string, string>;
  /** The one locked pruning run of `--force` (SPEC §4.3), shared by the session-state items. */
  pruneRun?: Promise<string[]>;
}

async function gather(repo: Repo): Promise<{ ctx: Context; items: CleanItem[]; notes: string[] }> {
  const now = Date.now();
  const { states: loaded, corrupt } = listStates(repo.commonDir);
  const states = loaded.map((l) => l.state);
  const sideFiles = listSideFiles(repo.commonDir);
  const branches = new Map<string, string>();
  for (const r of await listRefs(repo, 'refs/heads/entire/')) branches.set(r.ref.slice('refs/heads/'.length), r.oid);
  const ctx: Context = { repo, now, states, corrupt: corrupt.length, sideFiles, branches };
  const items: CleanItem[] = [];
  const notes: string[] = [];
  const withSide = new Set(sideFiles.map((f) => f.sessionId));

  // --- session states
  const doomed = new Set<string>();
  for (const s of states) {
    if (withSide.has(s.session_id)) continue;
    const branch = s.base_commit ? shadowBranchName(s.base_commit, s.worktree_id ?? '') : '';
    if (isPrunable(s, now, branch !== '' && branches.has(branch))) {
      doomed.add(s.session_id);
      items.push({
        kind: 'session-state',
        name: s.session_id,
        reason: `ended ${s.ended_at ? days(now - Date.parse(s.ended_at)) + ' ago' : 'long ago'}, nothing pending`,
        remove: () => removePrunable(ctx, s.session_id),
      });
    } else if (!hasPendingWork(s) && worktreeVanished(repo, s)) {
      doomed.add(s.session_id);
      items.push({
        kind: 'session-state',
        name: s.session_id,
        reason: `its worktree ${s.worktree_path ?? s.worktree_id ?? ''} no longer exists, nothing pending`.replace('  ', ' '),
        remove: () => removeVanished(ctx, s.session_id),
      });
    }
  }

  // --- shadow branches
  if (ctx.corrupt > 0 || sideFiles.some((f) => !f.readable)) {
    notes.push('[entire] Skipping shadow branches: some session state is unreadable (run `entire doctor`).');
  } else {
    const refs = new ShadowReferences(
      states.filter((s) => !doomed.has(s.session_id)),
      sideFiles,
    );
    for (const [name, tip] of branches) {
      if (`refs/heads/${name}` === METADATA_REF || !SHADOW_BRANCH_RE.test(name)) continue;
      if (refs.has(name)) continue;
      items.push({ kind: 'shadow-branch', name, reason: 'no session or pending checkpoint references it', remove: () => removeBranch(ctx, name, tip) });
    }
  }

  // --- scratch files in this worktree's .entire/tmp
  const live = new Set(states.filter((s) => isLiveState(s)).map((s) => s.session_id));
  const liveHere = states.some((s) => isLiveState(s) && inThisWorktree(s, repo));
  // only a real .entire/tmp (a cloned repository may commit it as a symlink), only our names
  let tmp: string | null = null;
  try {
    tmp = confinedDirOrNull(repo.root, TMP_REL, { create: false });
  } catch {
    notes.push('[entire] Skipping .entire/tmp: it is a symbolic link or not a directory (run `entire doctor`).');
  }
  for (const name of tmp ? safeList(tmp) : []) {
    if (!isScratchName(name)) continue;
    const path = join(tmp!, name);
    const age = ageMs(path, now);
    if (age === null || age <= DAY_MS || !isFile(path)) continue;
    const m = /^pre-prompt-(.+)\.json$/.exec(name);
    if (m ? live.has(m[1]!) || withSide.has(m[1]!) : liveHere) continue;
    items.push({
      kind: 'scratch-file',
      name: `.entire/tmp/${name}`,
      reason: `${days(age)} old, no live session uses it`,
      remove: async () => removeFileIfOld(path, DAY_MS),
    });
  }
  // leftover atomic-write temp files in the sessions dir (`<name>.<pid>.<rand>.tmp`)
  const sdir = sessionsDir(repo.commonDir);
  for (const name of safeList(sdir)) {
    const m = /\.(\d+)\.[0-9a-f]+\.tmp$/.exec(name);
    if (!m) continue;
    const path = join(sdir, name);
    const age = ageMs(path, now);
    if (age === null || age <= TEMP_FILE_GRACE_MS || isPidAlive(Number(m[1]))) continue;
    items.push({
      kind: 'scratch-file',
      name: `entire-sessions/${name}`,
      reason: `temporary file left by process ${m[1]}, which is no longer running`,
      remove: async () => removeFileIfOld(path, TEMP_FILE_GRACE_MS),
    });
  }

  // --- the commit intent of this worktree
  const intentItem = await staleIntent(ctx);
  if (intentItem) items.push(intentItem);

  // --- locks
  for (const name of safeList(sdir)) {
    const path = join(sdir, name);
    if (name.endsWith('.lock')) {
      let info;
      try {
        info = inspectLock(path, LOCK_STALE_MS, now);
      } catch {
        continue;
      }
      if (!info) continue;
      const dead = info.pid !== null && !isPidAlive(info.pid);
      const garbled = info.pid === null && now - info.createdMs > LOCK_STALE_MS;
      if (!dead && !garbled) continue;
      items.push({
        kind: 'lock',
        name: `entire-sessions/${name}`,
        reason: dead ? `held by process ${info.pid}, which is no longer running` : 'unreadable lock older than 30 s',
        remove: async () => removeStaleLock(path, info.ino),
      });
    } else if (name.endsWith('.lock.takeover')) {
      const age = ageMs(path, now);
      if (age === null || age <= TAKEOVER_STALE_MS) continue;
      items.push({ kind: 'lock', name: `entire-sessions/${name}`, reason: 'takeover guard left by a crashed process', remove: async () => removeFileIfOld(path, TAKEOVER_STALE_MS) });
    }
  }

  // --- temp refs of dead writers
  for (const r of await listRefs(repo, TEMP_REF_PREFIX)) {
    const rest = r.ref.slice(TEMP_REF_PREFIX.length);
    const pid = Number(/^(\d+)-/.exec(rest)?.[1] ?? NaN);
    if (Number.isInteger(pid) && pid > 0 && isPidAlive(pid)) continue;
    items.push({
      kind: 'temp-ref',
      name: r.ref,
      reason: Number.isInteger(pid) && pid > 0 ? `left by process ${pid}, which is no longer running` : 'temporary ref of no running process',
      remove: async () => (await updateRefs(repo, [{ ref: r.ref, newOid: null, oldOid: r.oid }], 'entire clean')) === 'ok',
    });
  }
  return { ctx, items, notes };
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

function isFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

async function staleIntent(ctx: Context): Promise<CleanItem | null> {
  const path = intentPath(ctx.repo.gitDir);
  const age = ageMs(path, ctx.now);
  if (age === null || age <= DAY_MS) return null;
  const intent = readIntent(ctx.repo.gitDir);
  if (intent?.git_pid !== undefined && isPidAlive(intent.git_pid)) return null;
  // a commit near HEAD carrying its ID without a checkpoint still needs it for recovery (§6.5 step 6)
  if (intent && isCheckpointId(intent.id)) {
    const recent = await firstParentHistory(ctx.repo, 11);
    const carried = recent.some((r) => allCheckpointIds(r.message).includes(intent.id!));
    if (carried && !(await checkpointExists(ctx.repo, intent.id))) return null;
  }
  const rel = path.startsWith(ctx.repo.commonDir) ? path.slice(ctx.repo.commonDir.length + 1) : path;
  return { kind: 'intent', name: rel, reason: `${days(age)} old, its commit finished and nothing needs it`, remove: async () => removeFileIfOld(path, DAY_MS) };
}

/** Remove a file still older than `minAgeMs`; one already gone counts as removed. */
function removeFileIfOld(path: string, minAgeMs: number): boolean {
  const age = ageMs(path, Date.now());
  if (age === null) return true; // e.g. a pre-prompt file pruned with its state
  if (age <= minAgeMs) return false;
  tryUnlink(path);
  return !existsSync(path);
}

function removeStaleLock(path: string, ino: number): boolean {
  const info = inspectLock(path);
  if (!info) return true; // gone already
  if (info.ino !== ino) return false; // replaced by a new lock meanwhile
  if (info.pid !== null && isPidAlive(info.pid)) return false;
  tryUnlink(path);
  return !existsSync(path);
}

async function removePrunable(ctx: Context, sid: string): Promise<boolean> {
  ctx.pruneRun ??= pruneSessions(ctx.repo.commonDir, Date.now(), {
    force: true,
    isShadowBranchPresent: (name) => ctx.branches.has(name),
  }).then((r) => r.pruned);
  return (await ctx.pruneRun).includes(sid);
}

async function removeVanished(ctx: Context, sid: string): Promise<boolean> {
  try {
    return await withSessionLock(
      ctx.repo.commonDir,
      sid,
      () => {
        const l = loadState(ctx.repo.commonDir, sid);
        if (!l || hasPendingWork(l.state) || !worktreeVanished(ctx.repo, l.state)) return false;
        if (readPendingSideFiles(ctx.repo.commonDir, sid).files.length > 0) return false;
        return deleteState(ctx.repo.commonDir, sid);
      },
      { waitMs: 1000 },
    );
  } catch (e) {
    if (isEntireError(e, 'LOCK_TIMEOUT') || isEntireError(e, 'CORRUPT_STATE')) return false;
    throw e;
  }
}

async function removeBranch(ctx: Context, name: string, tip: string): Promise<boolean> {
  // re-check against what is on disk now: a session may have started meanwhile
  const { states, corrupt } = listStates(ctx.repo.commonDir);
  const side = listSideFiles(ctx.repo.commonDir);
  if (corrupt.length > 0 || side.some((f) => !f.readable)) return false;
  if (new ShadowReferences(states.map((l) => l.state), side).has(name)) return false;
  return (await updateRefs(ctx.repo, [{ ref: `refs/heads/${name}`, newOid: null, oldOid: tip }], 'entire clean')) === 'ok';
}

const KIND_LABEL: Record<CleanKind, string> = {
  'shadow-branch': 'shadow branch',
  'session-state': 'session state',
  'scratch-file': 'scratch file',
  intent: 'commit intent',
  lock: 'stale lock',
  'temp-ref': 'temporary ref',
};

/** Returns the exit code: 1 when something found could not be deleted with --force. */
export async function runClean(cwd: string, opts: CleanOptions, io: Io): Promise<number> {
  const repo = await openRepo(cwd);
  try {
    return await clean(repo, opts, io);
  } finally {
    repo.objects.close();
  }
}

async function clean(repo: Repo, opts: CleanOptions, io: Io): Promise<number> {
  const { items, notes } = await gather(repo);
  for (const n of notes) io.err(n);
  const json = (deleted: number): void => io.raw(encodeJson({ items: items.map(({ kind, name, reason }) => ({ kind, name, reason })), deleted }));

  if (!opts.json) {
    if (items.length === 0) {
      io.out('No orphaned items to clean up.');
      return 0;
    }
    io.out(`Found ${items.length} orphaned item(s):`);
    for (const it of items) io.out(`  ${KIND_LABEL[it.kind]} ${it.name} (${it.reason})`);
  }
  if (!opts.force) {
    if (opts.json) json(0);
    else io.out('Run with --force to delete these items.');
    return 0;
  }

  // states first, so the branches they named are judged on what is left
  const order: CleanKind[] = ['session-state', 'shadow-branch', 'scratch-file', 'intent', 'lock', 'temp-ref'];
  let deleted = 0;
  let failed = 0;
  for (const kind of order) {
    for (const it of items.filter((i) => i.kind === kind)) {
      let ok = false;
      try {
        ok = await it.remove();
      } catch (e) {
        io.err(`[entire] Warning: could not delete ${KIND_LABEL[it.kind]} ${it.name}: ${e instanceof Error ? e.message : String(e)}`);
        failed++;
        continue;
      }
      if (ok) deleted++;
      else {
        failed++;
        io.err(`[entire] Warning: kept ${KIND_LABEL[it.kind]} ${it.name}: it changed or is in use now`);
      }
    }
  }
  if (opts.json) json(deleted);
  else io.out(`Deleted ${deleted} item(s).`);
  return failed > 0 ? 1 : 0;
}
