/**
 * SPEC §8.4 `entire doctor [--force] [--json]`: find what is stuck (sessions,
 * pending work, dangling trailers, hooks, leftovers) and, with `--force` (or
 * a TTY confirmation), repair it. Without either it only reports and changes
 * nothing. Repairs never mint a checkpoint that no commit references: a
 * missing checkpoint is written only from a recorded pending condensation of
 * a commit that still carries its ID.
 */
import { chmodSync, existsSync, readFileSync, renameSync, statSync } from 'node:fs';
import { basename, isAbsolute, join, relative } from 'node:path';
import { openRepo, headCommit, currentBranch, type Repo } from '../git/repo.js';
import { runGit } from '../git/exec.js';
import { listRefs, readRef, updateRefs } from '../git/refs.js';
import { loadSettings, isEnabled, type LoadedSettings } from '../settings/settings.js';
import { createLogger, logDirFor } from '../log.js';
import type { HookContext } from '../strategy/context.js';
import { listStates, updateState, readPendingSideFiles, findStaleSessionFiles, type LoadedState } from '../session/store.js';
import { forgetState, updateLiveMarker } from '../session/index.js';
import { inspectLock } from '../session/lock.js';
import { safeUnlink } from '../session/paths.js';
import { hasPendingWork, type PendingCondensation, type SessionState } from '../session/state.js';
import { transition, applyBookkeeping, IDLE_WARN_MS } from '../session/phase.js';
import { checkpointExists } from '../store/committed.js';
import { metadataTipForRead } from '../store/branch.js';
import { readCommit } from '../store/tree.js';
import { allCheckpointIds } from '../checkpoint/trailers.js';
import { SHADOW_BRANCH_RE, parseShadowBranch, worktreeHash } from '../checkpoint/shadow.js';
import { GIT_HOOKS, hookStates, isHuskyDir, isOurHook } from '../install/git-hooks.js';
import { readIntent, intentPath } from '../strategy/intent.js';
import { intentStaleness } from '../strategy/commit-message.js';
import { prePromptName, removeScratch } from '../strategy/scratch.js';
import { confinedDirSafe } from '../trust/confined.js';
import { inThisWorktree, processIo, type Io } from './common.js';
import { describeError } from '../errors.js';
import { encodeJson } from '../checkpoint/json.js';

export type FindingKind =
  | 'hooks'
  | 'pending-finalization'
  | 'pending-condensation'
  | 'stale-active'
  | 'ended-with-pending-work'
  | 'dangling-trailer'
  | 'orphan-shadow-branch'
  | 'stale-lock'
  | 'stale-intent'
  | 'corrupt-state'
  | 'unsafe-entire-dir';

export type FindingStatus = 'found' | 'fixed' | 'failed';

export interface Finding {
  kind: FindingKind;
  /** What the line names: a checkpoint id, session id, commit, branch or file. */
  subject: string;
  session_id?: string;
  checkpoint_id?: string;
  commit?: string;
  status: FindingStatus;
  detail: string;
}

/** `ok: null`: nothing could be done after all; the finding stays `found`. */
type RepairOutcome = { ok: true; detail?: string } | { ok: false; detail: string } | { ok: null; detail?: string };

interface Planned {
  finding: Finding;
  /** Absent: nothing doctor can do (reported only). */
  repair?: () => Promise<RepairOutcome>;
  /** The repair only applies if earlier repairs create what it needs (e.g. a recovered intent). */
  opportunistic?: boolean;
}

export interface DoctorOptions {
  force?: boolean;
  json?: boolean;
}

export interface DoctorReport {
  findings: Finding[];
  found: number;
  fixed: number;
  failed: number;
}

/** HEAD's first-parent history scanned for dangling trailers (SPEC §8.4). */
export const DANGLING_SCAN_COMMITS = 100;

// ------------------------------------------------------------------ helpers

/** First-parent commits from `rev` (newest first): sha and full message. */
export async function firstParentCommits(repo: Repo, rev: string, max: number): Promise<{ sha: string; message: string }[]> {
  const r = await runGit(['log', '--first-parent', `-n${max}`, '-z', '--format=%H%n%B', rev, '--'], { cwd: repo.root, allowFailure: true });
  if (r.code !== 0) return [];
  const out: { sha: string; message: string }[] = [];
  for (const rec of r.stdout.toString('utf8').split('\0')) {
    const nl = rec.indexOf('\n');
    const sha = (nl < 0 ? rec : rec.slice(0, nl)).trim();
    if (!/^[0-9a-f]{40,64}$/.test(sha)) continue;
    out.push({ sha, message: nl < 0 ? '' : rec.slice(nl + 1) });
  }
  return out;
}

function short(sid: string): string {
  return sid.length > 12 ? sid.slice(0, 8) : sid;
}

function oneLine(s: string, max = 160): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? t.slice(0, max - 3) + '...' : t;
}

function display(repo: Repo, path: string): string {
  const rel = relative(repo.root, path);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? path : rel;
}

function utcStamp(d: Date): string {
  return d.toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

function staleActive(s: SessionState, now: number): boolean {
  if (s.phase !== 'active') return false;
  const t = Date.parse(s.last_interaction_time || s.started_at);
  return Number.isNaN(t) || now - t > IDLE_WARN_MS;
}

/** Refs (other than Entire's own) that contain `commit`. */
async function reachableFromUserRefs(repo: Repo, commit: string): Promise<boolean> {
  const head = await runGit(['merge-base', '--is-ancestor', commit, 'HEAD'], { cwd: repo.root, allowFailure: true });
  if (head.code === 0) return true;
  const r = await runGit(['for-each-ref', '--contains', commit, '--format=%(refname)', 'refs/heads', 'refs/remotes', 'refs/tags'], {
    cwd: repo.root,
    allowFailure: true,
  });
  if (r.code !== 0) return false;
  return r.stdout
    .toString('utf8')
    .split('\n')
    .some((ref) => ref !== '' && !/^refs\/(heads|remotes\/[^/]+)\/entire\//.test(ref));
}

// ------------------------------------------------------------------ the doctor

class Doctor {
  readonly planned: Planned[] = [];
  private readonly ctx: HookContext;
  /** Checkpoint ids named by HEAD's recent first-parent commits. */
  private recentIds = new Set<string>();
  private readonly referencedMemo = new Map<string, Promise<boolean>>();
  private readonly sessionRepairs = new Map<string, Promise<SessionState | null>>();
  private readonly staleActiveSids = new Set<string>();

  constructor(ctx: HookContext) {
    this.ctx = ctx;
  }

  get repo(): Repo {
    return this.ctx.repo;
  }

  private add(finding: Omit<Finding, 'status'>, repair?: () => Promise<RepairOutcome>, opportunistic = false): void {
    this.planned.push({ finding: { ...finding, status: 'found' }, repair, opportunistic });
  }

  /** A checkpoint id some commit of the user's history carries (so writing it mints nothing unreferenced). */
  referenced(id: string, commitHint?: string): Promise<boolean> {
    if (this.recentIds.has(id)) return Promise.resolve(true);
    const key = `${id}:${commitHint ?? ''}`;
    let p = this.referencedMemo.get(key);
    if (!p) {
      p = (async () => {
        if (!commitHint) return false;
        const c = await readCommit(this.repo, commitHint).catch(() => null);
        if (!c || !allCheckpointIds(c.message).includes(id)) return false;
        return reachableFromUserRefs(this.repo, c.oid);
      })();
      this.referencedMemo.set(key, p);
    }
    return p;
  }

  // ---------------------------------------------------------------- scan

  async scan(): Promise<void> {
    const { repo } = this;
    if (this.ctx.head) {
      for (const c of await firstParentCommits(repo, 'HEAD', DANGLING_SCAN_COMMITS)) {
        for (const id of allCheckpointIds(c.message)) this.recentIds.add(id);
      }
    }
    this.scanHooks();
    this.scanEntireDir();
    this.scanIntent();
    this.scanLocks();
    const { states, corrupt } = listStates(repo.commonDir);
    this.scanCorrupt(corrupt);
    await this.scanSessions(states);
    await this.scanDangling(states);
    await this.scanShadowBranches(states, corrupt.length);
  }

  private scanHooks(): void {
    if (!isEnabled(this.ctx.settings)) return;
    const { repo } = this;
    const states = hookStates({ hooksDir: repo.hooksDir, root: repo.root });
    const problems: string[] = [];
    for (const h of GIT_HOOKS) {
      if (states[h] === 'missing') problems.push(`${h} missing`);
      else if (states[h] === 'foreign') problems.push(`${h} is not Entire's`);
    }
    const husky = isHuskyDir(repo.hooksDir, repo.root);
    if (!husky) {
      for (const h of GIT_HOOKS) {
        if (states[h] !== 'installed') continue;
        const file = join(repo.hooksDir, h);
        try {
          if ((statSync(file).mode & 0o111) === 0) problems.push(`${h} is not executable (git skips it)`);
          const cli = /^entire_cli='([^']*)'$/m.exec(readFileSync(file, 'utf8'))?.[1];
          if (cli && !existsSync(cli)) problems.push(`${h} records a CLI path that no longer exists`);
        } catch {
          /* vanished meanwhile */
        }
      }
    }
    // hooks installed where git does not look (e.g. .git/hooks while core.hooksPath is set)
    const legacyDir = join(repo.commonDir, 'hooks');
    if (problems.length > 0 && legacyDir !== repo.hooksDir) {
      const stray = GIT_HOOKS.filter((h) => {
        try {
          return isOurHook(readFileSync(join(legacyDir, h), 'utf8'));
        } catch {
          return false;
        }
      });
      if (stray.length > 0) problems.push(`Entire's hooks are in ${display(repo, legacyDir)}, which git does not run`);
    }
    if (problems.length === 0) return;
    this.add(
      { kind: 'hooks', subject: display(repo, repo.hooksDir), detail: `${problems.join('; ')}; git runs hooks from ${display(repo, repo.hooksDir)}` },
      async () => {
        const { installHooksForRepo } = await import('../install/enable.js');
        await installHooksForRepo(repo);
        if (!husky) {
          for (const h of GIT_HOOKS) {
            const file = join(repo.hooksDir, h);
            try {
              if (isOurHook(readFileSync(file, 'utf8'))) chmodSync(file, 0o755);
            } catch {
              /* checked below */
            }
          }
        }
        const after = hookStates({ hooksDir: repo.hooksDir, root: repo.root });
        const bad = GIT_HOOKS.filter((h) => after[h] !== 'installed');
        return bad.length === 0 ? { ok: true, detail: `reinstalled in ${display(repo, repo.hooksDir)}` } : { ok: false, detail: `still not installed: ${bad.join(', ')}` };
      },
    );
  }

  /**
   * SPEC-2 §A.4: `.entire` or its `tmp`/`metadata`/`logs` committed as a
   * symlink (or a file): hooks write nothing there. Reported only: the fix
   * (deleting what the repository committed) is the person's call.
   */
  private scanEntireDir(): void {
    for (const rel of ['.entire', '.entire/tmp', '.entire/metadata', '.entire/logs']) {
      if (confinedDirSafe(this.repo.root, rel)) continue;
      this.add({ kind: 'unsafe-entire-dir', subject: rel, detail: `${rel} is a symbolic link or not a directory: Entire writes nothing there (remove it, or check what the repository committed)` });
      return;
    }
  }

  private scanIntent(): void {
    const { repo, ctx } = this;
    const path = intentPath(repo.gitDir);
    if (!existsSync(path)) return;
    const intent = readIntent(repo.gitDir);
    const name = basename(path);
    if (!intent) {
      this.add({ kind: 'stale-intent', subject: name, detail: 'commit intent is unreadable' }, async () => {
        safeUnlink(path);
        return { ok: true, detail: 'removed' };
      });
      return;
    }
    const staleness = intentStaleness(intent, ctx.now());
    if (staleness === null) return;
    const why = staleness === 'process-exited' ? `its git process (${intent.git_pid}) has exited` : 'it is over an hour old';
    const detail = `commit intent${intent.id ? ` for checkpoint ${intent.id}` : ''} was never consumed by post-commit (${why})`;
    this.add({ kind: 'stale-intent', subject: name, checkpoint_id: intent.id ?? undefined, detail }, async () => {
      const { recoverStaleIntent } = await import('../strategy/stale-intent.js');
      await recoverStaleIntent(ctx);
      return existsSync(path) ? { ok: false, detail: 'the intent could not be recovered' } : { ok: true, detail: 'recovered' };
    });
  }

  private scanLocks(): void {
    const { repo } = this;
    for (const f of findStaleSessionFiles(repo.commonDir, this.ctx.now().getTime())) {
      if (f.kind === 'tmp') continue;
      const holder = f.kind === 'lock' ? (f.pid ? `holder pid ${f.pid} is gone or the lock is over 30 s old` : 'the lock is over 30 s old') : 'leftover takeover guard';
      this.add({ kind: 'stale-lock', subject: basename(f.path), detail: holder }, async () => {
        if (f.kind === 'lock') {
          const info = inspectLock(f.path);
          if (info && !info.stale) return { ok: false, detail: 'the lock is held again' };
        }
        safeUnlink(f.path);
        return { ok: true, detail: 'removed' };
      });
    }
  }

  private scanCorrupt(corrupt: { sessionId: string; path: string; error: string }[]): void {
    const { repo } = this;
    for (const c of corrupt) {
      this.add({ kind: 'corrupt-state', subject: c.sessionId, session_id: c.sessionId, detail: `unreadable state file: ${oneLine(c.error)}` }, async () => {
        let dest = `${c.path}.corrupt`;
        if (existsSync(dest)) dest = `${c.path}.corrupt-${utcStamp(this.ctx.now())}`;
        renameSync(c.path, dest);
        forgetState(repo.commonDir, c.sessionId);
        try {
          updateLiveMarker(repo.commonDir);
        } catch {
          /* a marker left in place only costs time */
        }
        return { ok: true, detail: `moved aside to ${basename(dest)}` };
      });
    }
  }

  private pendingOf(s: SessionState): PendingCondensation[] {
    const out = [...(s.pending_condensations ?? [])];
    const have = new Set(out.map((p) => p.checkpoint_id));
    try {
      for (const f of readPendingSideFiles(this.repo.commonDir, s.session_id).files) if (!have.has(f.entry.checkpoint_id)) out.push(f.entry);
    } catch {
      /* unreadable side files are left alone */
    }
    return out;
  }

  private async scanSessions(states: LoadedState[]): Promise<void> {
    const now = this.ctx.now().getTime();
    for (const { state: s } of states) {
      if (!inThisWorktree(s, this.repo)) continue;
      const sid = s.session_id;
      const pending = this.pendingOf(s);
      const turnIds = s.turn_checkpoint_ids ?? [];
      if (s.phase === 'ended') {
        if (pending.length === 0 && turnIds.length === 0) continue;
        const parts: string[] = [];
        if (pending.length > 0) parts.push(`${pending.length} checkpoint(s) not written (${pending.map((p) => p.checkpoint_id).join(', ')})`);
        if (turnIds.length > 0) parts.push(`${turnIds.length} checkpoint(s) not finalized (${turnIds.join(', ')})`);
        this.add({ kind: 'ended-with-pending-work', subject: sid, session_id: sid, detail: `session ended with ${parts.join(' and ')}` }, async () => {
          const after = await this.repairSession(sid);
          if (after && hasPendingWork(after)) return { ok: false, detail: this.leftover(after) };
          return { ok: true, detail: 'pending work written' };
        });
        continue;
      }
      if (staleActive(s, now)) {
        this.staleActiveSids.add(sid);
        const last = s.last_interaction_time || s.started_at;
        this.add({ kind: 'stale-active', subject: sid, session_id: sid, detail: `active with no agent event since ${last || 'an unknown time'} (over 1 h)` }, async () => {
          const after = await this.repairSession(sid);
          if (after && after.phase === 'active') return { ok: false, detail: 'the session is still active' };
          return { ok: true, detail: 'turn ended' + (after && (after.turn_checkpoint_ids ?? []).length > 0 ? `; not finalized: ${after.turn_checkpoint_ids!.join(', ')}` : '') };
        });
      }
      for (const p of pending) {
        const refd = await this.referenced(p.checkpoint_id, p.commit);
        const why = p.last_error ? `: ${oneLine(p.last_error, 100)}` : '';
        const detail = refd
          ? `session ${short(sid)}: checkpoint of commit ${p.commit.slice(0, 7)} not written yet (${p.attempts} attempt(s)${why})`
          : `session ${short(sid)}: pending checkpoint of commit ${p.commit.slice(0, 7) || '?'}, which no commit references any more`;
        this.add({ kind: 'pending-condensation', subject: p.checkpoint_id, session_id: sid, checkpoint_id: p.checkpoint_id, commit: p.commit || undefined, detail }, async () => {
          const after = await this.repairSession(sid);
          const left = after?.pending_condensations?.find((x) => x.checkpoint_id === p.checkpoint_id);
          if (left) return { ok: false, detail: `still not written: ${oneLine(left.last_error || 'unknown error', 120)}` };
          if (!refd) return { ok: true, detail: 'discarded (unreferenced)' };
          return (await checkpointExists(this.repo, p.checkpoint_id)) ? { ok: true, detail: 'written' } : { ok: false, detail: 'checkpoint still missing' };
        });
      }
      if (s.phase !== 'active') {
        for (const id of turnIds) {
          const f = s.finalize_failures?.[id];
          const why = f ? ` (${f.attempts} failed attempt(s): ${oneLine(f.last_error, 100)})` : '';
          this.add({ kind: 'pending-finalization', subject: id, session_id: sid, checkpoint_id: id, detail: `session ${short(sid)}: transcript not finalized${why}` }, async () => {
            const after = await this.repairSession(sid);
            if (after && (after.turn_checkpoint_ids ?? []).includes(id)) {
              const ff = after.finalize_failures?.[id];
              return { ok: false, detail: `still not finalized${ff ? `: ${oneLine(ff.last_error, 120)}` : ''}` };
            }
            return { ok: true, detail: 'finalized' };
          });
        }
      }
    }
  }

  private leftover(s: SessionState): string {
    const parts: string[] = [];
    for (const p of s.pending_condensations ?? []) parts.push(`${p.checkpoint_id} not written: ${oneLine(p.last_error || 'unknown error', 80)}`);
    for (const id of s.turn_checkpoint_ids ?? []) {
      const f = s.finalize_failures?.[id];
      parts.push(`${id} not finalized${f ? `: ${oneLine(f.last_error, 80)}` : ''}`);
    }
    return parts.join('; ') || 'pending work left';
  }

  /**
   * One locked repair per session (memoized): drop pending work no commit
   * references, end a stale turn, write pending checkpoints, finalize.
   */
  repairSession(sid: string): Promise<SessionState | null> {
    let p = this.sessionRepairs.get(sid);
    if (!p) {
      p = this.doRepairSession(sid);
      this.sessionRepairs.set(sid, p);
    }
    return p;
  }

  private async doRepairSession(sid: string): Promise<SessionState | null> {
    const { ctx } = this;
    const { retryPendingCondensations } = await import('../strategy/pending.js');
    const { finalizeTurn } = await import('../strategy/finalize.js');
    return updateState(ctx.repo.commonDir, sid, async (loaded) => {
      if (!loaded) return null;
      let s: SessionState = { ...loaded };
      // never mint a checkpoint no commit references: such pending entries are discarded
      const keep: PendingCondensation[] = [];
      for (const p of s.pending_condensations ?? []) {
        if (await this.referenced(p.checkpoint_id, p.commit)) keep.push(p);
        else ctx.log.warn('doctor discarded an unreferenced pending checkpoint', { session_id: sid, checkpoint_id: p.checkpoint_id });
      }
      if (keep.length > 0) s.pending_condensations = keep;
      else delete s.pending_condensations;
      if (this.staleActiveSids.has(sid) && s.phase === 'active') {
        applyBookkeeping(s, transition('active', 'TurnEnd'), ctx.now());
        s.phase = 'idle';
        if (s.worktree_path === ctx.repo.root) removeScratch(ctx.repo.root, prePromptName(sid));
      }
      s = await retryPendingCondensations(ctx, s, { fromDoctor: true });
      if (s.phase !== 'active' && (s.turn_checkpoint_ids ?? []).length > 0) {
        // a finalization whose checkpoint does not exist and that nothing can write can never succeed
        const ids: string[] = [];
        for (const id of s.turn_checkpoint_ids!) {
          const writable = (s.pending_condensations ?? []).some((p) => p.checkpoint_id === id);
          if (writable || (await checkpointExists(ctx.repo, id))) ids.push(id);
          else {
            if (s.finalize_failures) delete s.finalize_failures[id];
            ctx.log.warn('doctor dropped a finalization of a missing checkpoint', { session_id: sid, checkpoint_id: id });
          }
        }
        s.turn_checkpoint_ids = ids;
        if (ids.length > 0) s = await finalizeTurn(ctx, s, { fromDoctor: true });
        if ((s.turn_checkpoint_ids ?? []).length === 0) delete s.turn_checkpoint_ids;
        if (s.finalize_failures && Object.keys(s.finalize_failures).length === 0) delete s.finalize_failures;
      }
      return s;
    });
  }

  private async scanDangling(states: LoadedState[]): Promise<void> {
    const { repo } = this;
    if (!this.ctx.head) return;
    const hasBranch = (await metadataTipForRead(repo)) !== null;
    const seen = new Set<string>();
    for (const c of await firstParentCommits(repo, 'HEAD', DANGLING_SCAN_COMMITS)) {
      for (const id of allCheckpointIds(c.message)) {
        if (seen.has(id)) continue;
        seen.add(id);
        if (await checkpointExists(repo, id)) continue;
        const owner = this.pendingOwner(states, id);
        const base = { kind: 'dangling-trailer' as const, subject: c.sha.slice(0, 7), checkpoint_id: id, commit: c.sha };
        const detail = owner
          ? `Entire-Checkpoint ${id} has no checkpoint yet; session ${short(owner)} holds its pending condensation`
          : `Entire-Checkpoint ${id} has no checkpoint; ${hasBranch ? 'no pending work can write it' : 'there is no entire/checkpoints/v1 branch (fetch it from the remote?)'}`;
        // fixed only from a pending entry: the one found now, or one a recovered intent records
        const repair = async (): Promise<RepairOutcome> => {
          // an earlier repair (a recovered intent) may have written it already
          if (await checkpointExists(repo, id)) return { ok: true, detail: 'checkpoint written' };
          const holder = owner ?? this.pendingOwner(listStates(repo.commonDir).states, id);
          if (!holder) return { ok: null };
          const after = await this.repairSession(holder);
          if (await checkpointExists(repo, id)) return { ok: true, detail: 'checkpoint written' };
          const left = after?.pending_condensations?.find((x) => x.checkpoint_id === id);
          return { ok: false, detail: `checkpoint still missing${left?.last_error ? `: ${oneLine(left.last_error, 120)}` : ''}` };
        };
        this.add({ ...base, session_id: owner ?? undefined, detail }, repair, !owner);
      }
    }
  }

  /** The session holding a pending condensation (state or side file) for `id`. */
  private pendingOwner(states: LoadedState[], id: string): string | null {
    for (const { state } of states) if (this.pendingOf(state).some((p) => p.checkpoint_id === id)) return state.session_id;
    return null;
  }

  private async scanShadowBranches(states: LoadedState[], corruptCount: number): Promise<void> {
    const { repo } = this;
    const named = (all: SessionState[]) => (name: string): boolean => {
      const parsed = parseShadowBranch(name);
      if (!parsed) return true;
      for (const s of all) {
        if (s.base_commit && s.base_commit.startsWith(parsed.base) && worktreeHash(s.worktree_id ?? '') === parsed.worktreeHash) return true;
        for (const p of this.pendingOf(s)) if (p.shadow_branch === name) return true;
      }
      return false;
    };
    const isNamed = named(states.map((l) => l.state));
    for (const r of await listRefs(repo, 'refs/heads/entire/')) {
      const name = r.ref.slice('refs/heads/'.length);
      if (!SHADOW_BRANCH_RE.test(name) || isNamed(name)) continue;
      const finding = { kind: 'orphan-shadow-branch' as const, subject: name, detail: 'no session state or pending checkpoint names this shadow branch' };
      if (corruptCount > 0) {
        this.add({ ...finding, detail: finding.detail + ' (kept while unreadable state files exist)' });
        continue;
      }
      this.add(finding, async () => {
        // decide again right before deleting: a session may have started meanwhile
        const now = listStates(repo.commonDir);
        if (now.corrupt.length > 0 || named(now.states.map((l) => l.state))(name)) return { ok: false, detail: 'now in use; kept' };
        const tip = await readRef(repo, r.ref);
        if (!tip) return { ok: true, detail: 'already gone' };
        const res = await updateRefs(repo, [{ ref: r.ref, newOid: null, oldOid: tip }]);
        return res === 'ok' ? { ok: true, detail: 'deleted' } : { ok: false, detail: 'the branch moved; kept' };
      });
    }
  }

  // ---------------------------------------------------------------- repair

  async repairAll(): Promise<void> {
    // stale intents first (they may become pending work), then locks (they block session repairs)
    const order: FindingKind[] = [
      'stale-intent',
      'stale-lock',
      'corrupt-state',
      'hooks',
      'stale-active',
      'pending-condensation',
      'pending-finalization',
      'ended-with-pending-work',
      'dangling-trailer',
      'orphan-shadow-branch',
    ];
    for (const kind of order) {
      for (const p of this.planned) {
        if (p.finding.kind !== kind || !p.repair) continue;
        try {
          const r = await p.repair();
          if (r.ok !== null) p.finding.status = r.ok ? 'fixed' : 'failed';
          if (r.detail) p.finding.detail += ` → ${r.detail}`;
        } catch (e) {
          p.finding.status = 'failed';
          p.finding.detail += ` → ${oneLine(describeError(e), 200)}`;
          this.ctx.log.warn('doctor repair failed', { error: e });
        }
      }
    }
  }
}

// ------------------------------------------------------------------ entry point

async function contextFor(repo: Repo, settings: LoadedSettings): Promise<HookContext> {
  const log = createLogger({ root: repo.root, level: settings.settings.log_level ?? null, component: 'doctor' });
  return { repo, settings, log, head: await headCommit(repo), branch: currentBranch(repo), now: () => new Date() };
}

function line(f: Finding): string {
  return `[${f.status}] ${f.kind} ${f.subject}: ${f.detail}`;
}

export function reportOf(findings: Finding[]): DoctorReport {
  return {
    findings,
    found: findings.length,
    fixed: findings.filter((f) => f.status === 'fixed').length,
    failed: findings.filter((f) => f.status === 'failed').length,
  };
}

function jsonOf(r: DoctorReport): unknown {
  return {
    findings: r.findings.map((f) => {
      const o: Record<string, unknown> = { kind: f.kind };
      if (f.session_id) o['session_id'] = f.session_id;
      if (f.checkpoint_id) o['checkpoint_id'] = f.checkpoint_id;
      if (f.commit) o['commit'] = f.commit;
      o['status'] = f.status;
      o['detail'] = f.detail;
      return o;
    }),
    found: r.found,
    fixed: r.fixed,
  };
}

/**
 * Run doctor in `cwd`. `confirm` is asked (only without --force and --json,
 * and only when something can be repaired) whether to repair; it returns
 * false when there is no terminal. Returns the exit code.
 */
export async function runDoctor(
  cwd: string,
  opts: DoctorOptions,
  io: Io = processIo,
  confirm: () => Promise<boolean> = async () => false,
): Promise<number> {
  const repo = await openRepo(cwd);
  try {
    const settings = loadSettings(repo.root);
    for (const w of settings.warnings) io.err(w);
    const ctx = await contextFor(repo, settings);
    const doctor = new Doctor(ctx);
    await doctor.scan();
    const repairable = doctor.planned.some((p) => p.repair && !p.opportunistic);
    let repair = !!opts.force;
    if (!repair && !opts.json && repairable) {
      for (const p of doctor.planned) io.out(line(p.finding));
      repair = await confirm();
      if (!repair) {
        const r = reportOf(doctor.planned.map((p) => p.finding));
        io.out(`${r.found} problem(s) found, 0 fixed.`);
        io.out('Run `entire doctor --force` to fix them.');
        return 0;
      }
    }
    if (repair) await doctor.repairAll();
    const report = reportOf(doctor.planned.map((p) => p.finding));
    if (opts.json) {
      io.raw(encodeJson(jsonOf(report)));
    } else {
      for (const f of report.findings) io.out(line(f));
      if (report.found === 0) io.out('No problems found.');
      else {
        io.out(`${report.found} problem(s) found, ${report.fixed} fixed.`);
        if (!repair && repairable) io.out('Run `entire doctor --force` to fix them.');
      }
    }
    return report.failed > 0 ? 1 : 0;
  } finally {
    repo.objects.close();
  }
}
