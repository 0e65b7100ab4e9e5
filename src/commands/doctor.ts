/**
 * SPEC §8.4 `entire doctor [--force] [--json]`: find what is stuck (sessions,
 * pending work, dangling trailers, hooks, leftovers) and, with `--force` (or
 * a TTY confirmation), repair it. Without either it only reports and changes
 * nothing. Repairs never mint a checkpoint that no commit references: a
 * missing checkpoint is written only from a recorded pending condensation of
 * a commit that still carries its ID.
 */
import { hookOperations } from './status.js';
import { chmodSync, existsSync, readFileSync, renameSync, statSync } from 'node:fs';
import { basename, isAbsolute, join, relative } from 'node:path';
import { openRepo, headCommit, currentBranch, type Repo } from '../git/repo.js';
import { runGit } from '../git/exec.js';
import { firstParentCommits } from '../git/first-parent.js';
import { listRefs, readRef, updateRefs } from '../git/refs.js';
import { loadSettings, isEnabled, type LoadedSettings } from '../settings/settings.js';
import { checkpointsSettingError } from '../settings/checkpoints.js';
import { createLogger } from '../log.js';
import type { HookContext } from '../strategy/context.js';
import { listStates, updateState, readPendingSideFiles, findStaleSessionFiles, type LoadedState } from '../session/store.js';
import { forgetState, updateLiveMarker } from '../session/index.js';
import { inspectLock } from '../session/lock.js';
import { safeUnlink } from '../session/paths.js';
import { hasPendingWork, type PendingCondensation, type SessionState } from '../session/state.js';
import { transition, applyBookkeeping, IDLE_WARN_MS } from '../session/phase.js';
import { checkpointExists } from '../store/routing.js';
import { metadataTipForRead, refTarget } from '../store/branch.js';
import { readCommit } from '../store/tree.js';
import { parseTree } from '../git/objects.js';
import {
  commitComplete,
  firstComplete,
  headsOf,
  isMetadataMessage,
  lostCommits,
  missingObjects,
  pruneReflog,
  reflogCandidates,
  refProblem,
  removeStaleRefLock,
  staleRefLocks,
  stepSession,
  REF_LOCK_STALE_MS,
  type LostCommit,
  type RefProblem,
} from '../store/recover.js';
import { allCheckpointIds } from '../checkpoint/trailers.js';
import { checkpointRef, isHexCheckpointId, isUlidCheckpointId, shardPath } from '../checkpoint/id.js';
import { refsStore } from '../store/refs-store.js';
import { METADATA_REF, METADATA_REMOTE_REF, SHADOW_BRANCH_RE, parseShadowBranch, shadowBranchName, worktreeHash } from '../checkpoint/shadow.js';
import { adapterFor, readableTranscript } from '../strategy/transcript.js';
import { toRepoRelative } from '../agents/kit/home-paths.js';
import { GIT_HOOKS, hookStates, isHuskyDir, isOurHook, staleness } from '../install/git-hooks.js';
import { readIntent, intentPath } from '../strategy/intent.js';
import { intentStaleness } from '../strategy/commit-message.js';
import { prePromptName, readScratch, removeScratch, tmpDir } from '../strategy/scratch.js';
import { confinedDirSafe } from '../trust/confined.js';
import { inThisWorktree, processIo, type Io } from './common.js';
import { describeError } from '../errors.js';
import { encodeJson } from '../go-json.js';

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
  | 'unsafe-entire-dir'
  | 'broken-metadata-ref'
  | 'broken-shadow-ref'
  | 'broken-notes-ref'
  | 'stale-remote-tracking'
  | 'stale-ref-lock'
  | 'stale-transcript-cache'
  | 'agent-hooks-untrusted'
  | 'agent-hooks-outdated'
  | 'unlinked-commit';

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

/** Lost lines of history merged into a restored metadata branch, at most. */
const MAX_LOST_HEADS = 10;

/** Where a restored ref's content comes from. */
interface Source {
  oid: string;
  /** For the report: "its reflog entry of …", "refs/remotes/origin/…", "an unreachable commit of …". */
  how: string;
}

/** How `entire/checkpoints/v1` is put back when it names a missing commit (SPEC-2 §A.11). */
interface MetadataPlan {
  problem: RefProblem;
  /** The commit the ref is reset to; null: nothing usable is left (the ref is deleted). */
  base: Source | null;
  /** Merged into the base afterwards (tree union, src/sync/merge.ts). */
  merges: Source[];
}

/** A checkpoint the restored branch will not hold, with the sessions whose data can write it again. */
interface LostCheckpoint {
  id: string;
  commit: string;
  /** The commit's first parent: the base of the shadow branch its steps were on. */
  parent: string | null;
  /** The session holding a pending condensation for it (written by its usual repair). */
  pending: string | null;
  /** Sessions that made it and still hold its data: a pending condensation is queued in each. */
  holders: string[];
}

// ------------------------------------------------------------------ helpers

/** The paths commit `sha` changes against its first parent (every path of a root commit). */
async function changedFiles(repo: Repo, sha: string, parent: string | null): Promise<string[]> {
  const args = parent ? ['diff', '--name-only', '-z', '--no-renames', parent, sha, '--'] : ['diff-tree', '--no-commit-id', '--name-only', '-r', '-z', '--root', sha];
  const r = await runGit(args, { cwd: repo.root, allowFailure: true });
  if (r.code !== 0) return [];
  return r.stdout.toString('utf8').split('\0').filter((p) => p !== '').sort();
}

function ago(ms: number): string {
  const min = Math.round(ms / 60_000);
  return min < 120 ? `${min} min` : `${Math.round(min / 60)} h`;
}

function when(d: Date | null): string {
  return d ? d.toISOString().replace(/\.\d{3}Z$/, 'Z') : 'an unknown time';
}

function describeProblem(p: RefProblem): string {
  return p.kind === 'missing-commit'
    ? `names commit ${p.oid.slice(0, 12)}, which is missing from the object store`
    : `names commit ${p.oid.slice(0, 12)}, which reaches missing objects (${p.missing.map((m) => m.slice(0, 12)).join(', ')})`;
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
  /** Set when the metadata ref names a missing commit: what --force puts back. */
  private metadataPlan: MetadataPlan | null = null;
  /** Checkpoints of recent trailers the restored branch will not hold. */
  private readonly lost: LostCheckpoint[] = [];
  private lostMemo: Promise<LostCommit[]> | null = null;
  /** Every `refs/heads/entire/…` ref (broken ones too). */
  private shadowRefs = new Set<string>();

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
    await this.scanAgentTrust();
    await this.scanAgentHooksOutdated();
    this.scanEntireDir();
    this.scanRefLocks();
    this.scanIntent();
    this.scanLocks();
    const { states, corrupt } = listStates(repo.commonDir);
    this.scanCorrupt(corrupt);
    this.shadowRefs = new Set((await listRefs(repo, 'refs/heads/entire/')).map((r) => r.ref));
    await this.scanMetadataRef();
    await this.scanTracking();
    await this.scanNotesRefs();
    await this.scanTranscriptCaches(states);
    await this.scanSessions(states);
    await this.scanDangling(states);
    await this.scanUnlinked(states);
    await this.scanShadowBranches(states, corrupt.length);
  }

  /** Agent hooks the agent will not run until the user trusts or approves them (SPEC-2 §C.1): reported only. */
  private async scanAgentTrust(): Promise<void> {
    if (!isEnabled(this.ctx.settings)) return;
    const { agentTrustGaps } = await import('./agent-trust.js');
    for (const g of await agentTrustGaps(this.repo.root)) {
      this.add({ kind: 'agent-hooks-untrusted', subject: g.agent, detail: g.lines.map((l) => l.replace(/^!\s*/, '')).join('; ') });
    }
  }

  /** Agent hooks an older Entire wrote (e.g. an older plugin file): `--force` reinstalls them as `enable` does. */
  private async scanAgentHooksOutdated(): Promise<void> {
    if (!isEnabled(this.ctx.settings)) return;
    const { agentHooksOutdated } = await import('./agent-trust.js');
    const root = this.repo.root;
    for (const g of await agentHooksOutdated(root)) {
      this.add({ kind: 'agent-hooks-outdated', subject: g.agent, detail: g.lines.map((l) => l.replace(/^!\s*/, '')).join('; ') }, async () => {
        const { getAgent } = await import('../agents/registry.js');
        const agent = await getAgent(g.agent);
        const r = agent.installHooks(root);
        const left = agent.hooksOutdated?.(root) ?? [];
        return left.length === 0 ? { ok: true, detail: `${r.file} rewritten` } : { ok: false, detail: left.join('; ').replace(/^!\s*/, '') };
      });
    }
  }

  /** Commits no ref reaches (memoized: one `git fsck` per run), for restoring refs. */
  private unreachable(): Promise<LostCommit[]> {
    this.lostMemo ??= lostCommits(this.repo, () => true);
    return this.lostMemo;
  }

  private scanRefLocks(): void {
    const now = this.ctx.now().getTime();
    for (const lock of staleRefLocks(this.repo, now)) {
      const detail = `ref lock last written ${ago(lock.ageMs)} ago (no ref update holds one for over ${REF_LOCK_STALE_MS / 60_000} min); it blocks updates of this ref`;
      this.add({ kind: 'stale-ref-lock', subject: lock.name, detail }, async () => {
        const r = removeStaleRefLock(lock);
        if (r === 'changed') return { ok: false, detail: 'written again meanwhile; kept' };
        return { ok: true, detail: r === 'removed' ? 'removed' : 'already gone' };
      });
    }
  }

  /**
   * SPEC-2 §A.11: `entire/checkpoints/v1` naming a missing commit (or one that
   * reaches missing objects). The plan: the newest complete reflog entry,
   * merged with the remote-tracking tip; without a usable reflog entry, the
   * newest complete checkpoint commits the object store still holds.
   */
  private async scanMetadataRef(): Promise<void> {
    const { repo } = this;
    const problem = await refProblem(repo, METADATA_REF);
    if (!problem) return;
    const plan = await this.planMetadata(problem);
    this.metadataPlan = plan;
    const restore = plan.base
      ? `can be reset to ${plan.base.oid.slice(0, 7)} (${plan.base.how})${plan.merges.length > 0 ? ` merged with ${plan.merges.map((m) => `${m.oid.slice(0, 7)} (${m.how})`).join(', ')}` : ''}`
      : 'nothing to restore it from (no complete reflog entry, remote-tracking ref or unreachable checkpoint commit): it can only be deleted';
    this.add(
      { kind: 'broken-metadata-ref', subject: 'entire/checkpoints/v1', detail: `${describeProblem(problem)}; readers skip it and checkpoint writes fail; ${restore}` },
      async () => this.restoreMetadata(plan),
    );
  }

  private async planMetadata(problem: RefProblem): Promise<MetadataPlan> {
    const { repo } = this;
    const fromLog = await firstComplete(repo, reflogCandidates(repo, METADATA_REF, [problem.oid]));
    let tracking: Source | null = null;
    const t = await refTarget(repo, METADATA_REMOTE_REF);
    if (t && (await commitComplete(repo, t)).complete) tracking = { oid: t, how: METADATA_REMOTE_REF.slice('refs/'.length) };
    const found: Source[] = [];
    if (!fromLog) {
      // no usable reflog: the lines of checkpoint commits the object store still holds
      const heads = headsOf((await this.unreachable()).filter((c) => isMetadataMessage(c.message)));
      for (const h of heads) {
        if (found.length >= MAX_LOST_HEADS) break;
        if ((await commitComplete(repo, h.oid)).complete) found.push({ oid: h.oid, how: `an unreachable checkpoint commit of ${when(new Date(h.time))}` });
      }
    }
    const base: Source | null = fromLog ? { oid: fromLog.oid, how: `its reflog entry of ${when(fromLog.when)}` } : (found[0] ?? tracking);
    const merges = [...(fromLog ? found : found.slice(1))];
    if (tracking && base !== tracking) merges.unshift(tracking);
    return { problem, base, merges: merges.filter((m) => m.oid !== base?.oid) };
  }

  /** The --force repair of broken-metadata-ref: CAS the ref back, merge, queue lost checkpoints. */
  private async restoreMetadata(plan: MetadataPlan): Promise<RepairOutcome> {
    const { repo } = this;
    const cur = await refTarget(repo, METADATA_REF);
    if (cur !== plan.problem.oid) return { ok: false, detail: 'the branch moved meanwhile; run `entire doctor` again' };
    const parts: string[] = [];
    if (plan.base) {
      const res = await updateRefs(repo, [{ ref: METADATA_REF, newOid: plan.base.oid, oldOid: plan.problem.oid }], 'entire doctor: restore from a missing commit');
      if (res !== 'ok') return { ok: false, detail: 'the branch moved meanwhile; run `entire doctor` again' };
      parts.push(`reset to ${plan.base.oid.slice(0, 7)}`);
      await pruneReflog(repo, METADATA_REF, plan.base.oid).catch((e: unknown) => this.ctx.log.warn('doctor could not prune a reflog', { error: e }));
      const { mergeInto } = await import('../sync/merge-into.js');
      for (const m of plan.merges) {
        try {
          await mergeInto(this.ctx, m.oid);
          parts.push(`merged ${m.oid.slice(0, 7)}`);
        } catch (e) {
          parts.push(`could not merge ${m.oid.slice(0, 7)}: ${oneLine(describeError(e), 80)}`);
        }
      }
    } else {
      const res = await updateRefs(repo, [{ ref: METADATA_REF, newOid: null, oldOid: plan.problem.oid }], 'entire doctor: drop a missing commit');
      if (res !== 'ok') return { ok: false, detail: 'the branch moved meanwhile; run `entire doctor` again' };
      parts.push('deleted (the next checkpoint starts it again)');
    }
    // checkpoints lost with the missing commits whose sessions still hold their data: pending work
    let queued = 0;
    for (const l of this.lost) {
      for (const sid of l.holders) if (await this.queueRewrite(sid, l)) queued++;
    }
    if (queued > 0) parts.push(`${queued} lost checkpoint slot(s) queued for re-writing from session data`);
    const gone = this.lost.filter((l) => !l.pending && l.holders.length === 0).map((l) => l.id);
    if (gone.length > 0) parts.push(`cannot be restored: ${gone.join(', ')}`);
    return { ok: true, detail: parts.join('; ') };
  }

  /** Record a pending condensation for a lost checkpoint in session `sid` (written by its session repair). */
  private async queueRewrite(sid: string, l: LostCheckpoint): Promise<boolean> {
    const { repo, ctx } = this;
    const files = await changedFiles(repo, l.commit, l.parent);
    let queued = false;
    await updateState(repo.commonDir, sid, (s) => {
      if (!s) return null;
      if ((s.pending_condensations ?? []).some((p) => p.checkpoint_id === l.id)) return null;
      const parent = l.parent ?? '';
      const end = s.last_checkpoint_id === l.id && (s.checkpoint_transcript_start ?? 0) > 0 ? s.checkpoint_transcript_start! : Number.MAX_SAFE_INTEGER;
      const entry: PendingCondensation = {
        checkpoint_id: l.id,
        commit: l.commit,
        files,
        // the range of the lost checkpoint is not known: the transcript from the start (more, never less)
        transcript_start: 0,
        transcript_end: end,
        step_count: 0,
        turn_id: (s.turn_checkpoint_ids ?? []).includes(l.id) ? (s.turn_id ?? '') : '',
        shadow_branch: parent ? shadowBranchName(parent, repo.worktreeId) : '',
        attempts: 0,
        last_error: 'the checkpoint was lost with a pruned commit of entire/checkpoints/v1; re-written by entire doctor',
        first_failed_at: ctx.now().toISOString(),
      };
      queued = true;
      return { ...s, pending_condensations: [...(s.pending_condensations ?? []), entry] };
    });
    return queued;
  }

  /**
   * A session's transcript cache (`.entire/tmp/transcript-<sid>.json`)
   * remembers the blobs its transcript is stored in, so hooks refer to them
   * instead of writing the transcript again. A blob `git gc --prune=now`
   * removed (with the step that held it) would make every later checkpoint
   * and step name a missing object: the cache goes (it is disposable; the
   * next hook rebuilds it), and checkpoints are written with their content.
   */
  private async scanTranscriptCaches(states: LoadedState[]): Promise<void> {
    const { repo } = this;
    const caches: { sid: string; file: string; name: string; oids: string[] }[] = [];
    for (const { state: s } of states) {
      if (!inThisWorktree(s, repo)) continue;
      const name = `transcript-${s.session_id}.json`;
      const file = join(tmpDir(repo.root), name);
      const data = readScratch<{ blob?: { oid?: unknown } | null; shadowChunks?: { oid?: unknown }[] }>(repo.root, name);
      if (!data || typeof data !== 'object') continue;
      const oids = [data.blob?.oid, ...(Array.isArray(data.shadowChunks) ? data.shadowChunks.map((c) => c?.oid) : [])].filter(
        (o): o is string => typeof o === 'string' && /^[0-9a-f]{40,64}$/.test(o),
      );
      if (oids.length > 0) caches.push({ sid: s.session_id, file, name, oids });
    }
    if (caches.length === 0) return;
    const missing = await missingObjects(repo, caches.flatMap((c) => c.oids));
    for (const c of caches) {
      const gone = c.oids.filter((o) => missing.has(o));
      if (gone.length === 0) continue;
      const detail = `session ${short(c.sid)}: the transcript cache names ${gone.length} blob(s) missing from the object store (${gone[0]!.slice(0, 12)}…); checkpoints and steps would refer to them`;
      this.add({ kind: 'stale-transcript-cache', subject: display(repo, c.file), session_id: c.sid, detail }, async () => {
        removeScratch(repo.root, c.name);
        return { ok: true, detail: 'removed (the next hook rebuilds it)' };
      });
    }
  }

  /** SPEC-2 §E.3: a remote-tracking metadata ref naming a missing object (readers ignore it). */
  private async scanTracking(): Promise<void> {
    const { repo } = this;
    const localTip = this.metadataPlan ? null : await refTarget(repo, METADATA_REF);
    const refs = new Set((await listRefs(repo, 'refs/remotes/')).map((r) => r.ref).filter((ref) => ref.endsWith('/entire/checkpoints/v1')));
    refs.add(METADATA_REMOTE_REF);
    for (const ref of refs) {
      const r = { ref };
      const oid = await refTarget(repo, r.ref);
      if (!oid) continue;
      const c = await commitComplete(repo, oid, localTip ? [localTip] : []);
      if (c.complete) continue;
      const problem: RefProblem = { kind: c.commitMissing ? 'missing-commit' : 'incomplete', oid, missing: c.missing };
      const name = r.ref.slice('refs/'.length);
      this.add({ kind: 'stale-remote-tracking', subject: name, detail: `${describeProblem(problem)}; readers ignore it` }, async () => {
        if ((await refTarget(repo, r.ref)) !== oid) return { ok: false, detail: 'the ref moved meanwhile; kept' };
        const res = await updateRefs(repo, [{ ref: r.ref, newOid: null, oldOid: oid }], 'entire doctor: drop a missing commit');
        return res === 'ok' ? { ok: true, detail: 'deleted (the next push or fetch brings it back)' } : { ok: false, detail: 'the ref moved meanwhile; kept' };
      });
    }
  }

  /**
   * SPEC-2 §D.1: the notes index (ours, or a remote's copy) naming a missing object, as a
   * `git gc --prune=now` running beside a notes write can leave it. Notes are a secondary
   * index: restored from the newest complete reflog entry, else deleted (trailers still link;
   * `--force` then re-links commits made without hooks, below).
   */
  private async scanNotesRefs(): Promise<void> {
    const { repo } = this;
    const { NOTES_REF, trackingNotesRefs } = await import('../links/notes.js');
    for (const ref of [NOTES_REF, ...(await trackingNotesRefs(repo).catch(() => []))]) {
      const problem = await refProblem(repo, ref);
      if (!problem) continue;
      const restore = ref === NOTES_REF ? await firstComplete(repo, reflogCandidates(repo, ref, [problem.oid])) : null;
      const plan = restore ? `can be reset to ${restore.oid.slice(0, 7)} (its reflog)` : 'it can only be deleted';
      this.add({ kind: 'broken-notes-ref', subject: ref.slice('refs/'.length), detail: `${describeProblem(problem)}; readers ignore it; ${plan}` }, async () => {
        const newOid = restore ? restore.oid : null;
        const res = await updateRefs(repo, [{ ref, newOid, oldOid: problem.oid }], 'entire doctor: repair the notes index');
        if (res !== 'ok') return { ok: false, detail: 'the ref moved meanwhile; kept' };
        return { ok: true, detail: newOid ? `reset to ${newOid.slice(0, 7)}` : 'deleted (commits still linked by their trailers; the next push or fetch brings a remote copy back)' };
      });
    }
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
    for (const h of GIT_HOOKS) {
      if (states[h] !== 'installed') continue;
      const file = husky ? join(repo.root, '.husky', h) : join(repo.hooksDir, h);
      try {
        // husky runs its files with `sh` whatever their mode
        if (!husky && (statSync(file).mode & 0o111) === 0) problems.push(`${h} is not executable (git skips it)`);
        const stale = staleness(readFileSync(file, 'utf8'));
        if (stale) problems.push(`${h} ${stale}`);
      } catch {
        /* vanished meanwhile */
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

  /**
   * SPEC-2 §D.3: agent commits made without our hooks (no trailer, no note)
   * that change files a session of this worktree touched; --force links them.
   */
  private async scanUnlinked(states: LoadedState[]): Promise<void> {
    const { ctx } = this;
    if (!ctx.head) return;
    const { unlinkedCommits, linkHooklessCommits, sessionCandidates } = await import('../strategy/hookless-commits.js');
    const reported = new Set<string>();
    for (const { state: s } of states) {
      if (!inThisWorktree(s, this.repo) || !s.base_commit || s.base_commit === ctx.head) continue;
      // files_touched, and the live turn's edits from its transcript (issue 25, point 8)
      const found = await unlinkedCommits(ctx, s, sessionCandidates(ctx, s)).catch(() => []);
      if (found.length === 0) continue;
      const sid = s.session_id;
      let repaired: Promise<SessionState | null> | null = null;
      for (const c of found) {
        if (reported.has(c.sha)) continue;
        reported.add(c.sha);
        const detail = `session ${short(sid)}: commit made without Entire's git hooks changes ${c.files.slice(0, 3).join(', ')}${c.files.length > 3 ? ', …' : ''}; no trailer or note links it`;
        this.add({ kind: 'unlinked-commit', subject: c.sha.slice(0, 7), session_id: sid, commit: c.sha, detail }, async () => {
          repaired ??= updateState(ctx.repo.commonDir, sid, async (st) => (st ? await linkHooklessCommits(ctx, st) : null));
          await repaired;
          const left = await unlinkedCommits(ctx, { ...s }, c.files);
          return left.some((x) => x.sha === c.sha) ? { ok: false, detail: 'still not linked (see .entire/logs/entire.log)' } : { ok: true, detail: 'linked' };
        });
      }
    }
  }

  private async scanDangling(states: LoadedState[]): Promise<void> {
    const { repo } = this;
    if (!this.ctx.head) return;
    const plan = this.metadataPlan;
    const hasBranch = plan !== null || (await metadataTipForRead(repo)) !== null;
    // with a broken metadata ref, what counts is what the restored branch will hold
    const sources = plan ? [plan.base, ...plan.merges].filter((x): x is Source => x !== null).map((x) => x.oid) : [];
    const exists = async (id: string): Promise<boolean> => {
      // a checkpoint ref is outside the plan (SPEC-3 §A.4: a ULID lives in refs only; a hex ref wins)
      if (!plan || !isHexCheckpointId(id)) return checkpointExists(repo, id);
      if (await refsStore.has(repo, id)) return true;
      for (const src of sources) {
        const o = await repo.objects.read(`${src}:${shardPath(id)}`).catch(() => null);
        if (o && o.type === 'tree') return true;
      }
      return false;
    };
    const seen = new Set<string>();
    for (const c of await firstParentCommits(repo, 'HEAD', DANGLING_SCAN_COMMITS)) {
      for (const id of allCheckpointIds(c.message)) {
        if (seen.has(id)) continue;
        seen.add(id);
        if (await exists(id)) {
          // slots lost with the branch: only a checkpoint the branch holds (not a ref's)
          if (plan && isHexCheckpointId(id) && !(await refsStore.has(repo, id))) await this.lostSlots(states, sources, id, c.sha, c.parent);
          continue;
        }
        const owner = this.pendingOwner(states, id);
        const base = { kind: 'dangling-trailer' as const, subject: c.sha.slice(0, 7), checkpoint_id: id, commit: c.sha };
        let detail: string;
        let holders: string[] = [];
        if (plan) {
          // lost with the missing commits: which sessions still hold the data to write it again?
          holders = owner ? [] : await this.sessionsWithData(states, id, c.sha, c.parent);
          this.lost.push({ id, commit: c.sha, parent: c.parent, pending: owner, holders });
          detail = owner
            ? `Entire-Checkpoint ${id} is not on the restorable entire/checkpoints/v1; session ${short(owner)} holds its pending condensation`
            : holders.length > 0
              ? `Entire-Checkpoint ${id} is not on the restorable entire/checkpoints/v1; session${holders.length > 1 ? 's' : ''} ${holders.map(short).join(', ')} still hold${holders.length > 1 ? '' : 's'} its transcript (re-written with --force)`
              : `Entire-Checkpoint ${id} was lost with the missing commits of entire/checkpoints/v1 and no session holds its data: it cannot be restored`;
        } else {
          detail = owner
            ? `Entire-Checkpoint ${id} has no checkpoint yet; session ${short(owner)} holds its pending condensation`
            : isUlidCheckpointId(id)
              ? `Entire-Checkpoint ${id} has no checkpoint: there is no ref ${checkpointRef(id)} (fetch it from the remote?)`
              : `Entire-Checkpoint ${id} has no checkpoint; ${hasBranch ? 'no pending work can write it' : 'there is no entire/checkpoints/v1 branch (fetch it from the remote?)'}`;
        }
        // fixed only from a pending entry: the one found now, or one a recovered intent records
        const repair = async (): Promise<RepairOutcome> => {
          // an earlier repair (a recovered intent) may have written it already; with holders
          // (lost checkpoints queued by the broken-metadata-ref repair) every slot is written
          if (holders.length === 0 && (await checkpointExists(repo, id))) return { ok: true, detail: 'checkpoint written' };
          const writers = owner ? [owner] : holders.length > 0 ? holders : [this.pendingOwner(listStates(repo.commonDir).states, id)].filter((x): x is string => x !== null);
          if (writers.length === 0) return { ok: null };
          let after: SessionState | null = null;
          for (const sid of writers) after = await this.repairSession(sid);
          if (await checkpointExists(repo, id)) return { ok: true, detail: 'checkpoint written' };
          const left = after?.pending_condensations?.find((x) => x.checkpoint_id === id);
          return { ok: false, detail: `checkpoint still missing${left?.last_error ? `: ${oneLine(left.last_error, 120)}` : ''}` };
        };
        const writer = owner ?? holders[0] ?? null;
        this.add({ ...base, session_id: writer ?? undefined, detail }, repair, !writer);
      }
    }
  }

  /**
   * Sessions of this worktree that made the lost checkpoint `id` of `commit`
   * and can still write it. Made it: the state names it (its last checkpoint,
   * or one of its turn's), or else the session's transcript edited a file the
   * commit changes (the edit-tool evidence prepare-commit-msg goes by; the
   * checkpoint's own record of its sessions is what was lost). Can write it:
   * the live transcript is readable, or the shadow branch its steps were on
   * still exists. `namedOnly`: only sessions whose state names it.
   */
  /**
   * A checkpoint of several sessions is one commit per session: the restorable
   * branch may hold it without the slots of the lost commits. Sessions whose
   * state names it and that are not in it get theirs written again.
   */
  private async lostSlots(states: LoadedState[], sources: string[], id: string, commit: string, parent: string | null): Promise<void> {
    const { repo } = this;
    const named = await this.sessionsWithData(states, id, commit, parent, true);
    if (named.length === 0) return;
    const have = new Set<string>();
    for (const src of sources) {
      const dir = await repo.objects.read(`${src}:${shardPath(id)}`).catch(() => null);
      if (!dir || dir.type !== 'tree') continue;
      for (const e of parseTree(dir.data, repo.objectFormat)) {
        if (!/^\d+$/.test(e.name)) continue;
        const md = await repo.objects.read(`${src}:${shardPath(id)}/${e.name}/metadata.json`).catch(() => null);
        try {
          const sid = md ? (JSON.parse(md.data.toString('utf8')) as { session_id?: unknown }).session_id : undefined;
          if (typeof sid === 'string') have.add(sid);
        } catch {
          /* a corrupt slot names no session */
        }
      }
    }
    const holders = named.filter((sid) => !have.has(sid));
    if (holders.length === 0) return;
    this.lost.push({ id, commit, parent, pending: null, holders });
    const who = `session${holders.length > 1 ? 's' : ''} ${holders.map(short).join(', ')}`;
    const detail = `Entire-Checkpoint ${id} is on the restorable entire/checkpoints/v1 without the slot of ${who} (lost with the missing commits); re-written from the session's transcript with --force`;
    this.add({ kind: 'dangling-trailer', subject: commit.slice(0, 7), checkpoint_id: id, commit, session_id: holders[0], detail }, async () => {
      const { hasSessionSlot } = await import('../strategy/pending.js');
      const missing: string[] = [];
      for (const sid of holders) {
        await this.repairSession(sid);
        if (!(await hasSessionSlot(this.ctx, id, sid))) missing.push(short(sid));
      }
      return missing.length === 0 ? { ok: true, detail: 'slot(s) written' } : { ok: false, detail: `still no slot of ${missing.join(', ')}` };
    });
  }

  private async sessionsWithData(states: LoadedState[], id: string, commit: string, parent: string | null, namedOnly = false): Promise<string[]> {
    const { repo } = this;
    const shadow = parent ? `refs/heads/${shadowBranchName(parent, repo.worktreeId)}` : null;
    const onShadow = shadow !== null && this.shadowRefs.has(shadow);
    const named: string[] = [];
    const edited: string[] = [];
    let changed: Set<string> | null = null;
    for (const { state: s } of states) {
      if (!inThisWorktree(s, repo)) continue;
      const readable = readableTranscript(await adapterFor(s), s.transcript_path, repo.root);
      if (!readable && !onShadow) continue;
      if (s.last_checkpoint_id === id || (s.turn_checkpoint_ids ?? []).includes(id)) {
        named.push(s.session_id);
        continue;
      }
      if (!readable || namedOnly) continue;
      changed ??= new Set(await changedFiles(repo, commit, parent));
      try {
        const adapter = await adapterFor(s);
        const edits = toRepoRelative(adapter.analyzeTranscript(readFileSync(s.transcript_path!, 'utf8')).modifiedFiles, repo.root);
        if (edits.some((f) => changed!.has(f))) edited.push(s.session_id);
      } catch {
        /* an unreadable or unparsable transcript names nothing */
      }
    }
    return named.length > 0 ? named : edited;
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
      if (!SHADOW_BRANCH_RE.test(name)) continue;
      // objects HEAD reaches need no second look: a step's tree is mostly HEAD's
      const problem = await refProblem(repo, r.ref, this.ctx.head ? [this.ctx.head] : []);
      if (problem) {
        await this.brokenShadow(name, r.ref, problem, states);
        continue;
      }
      if (isNamed(name)) continue;
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

  /**
   * A shadow branch naming a missing commit: back to the newest complete
   * entry of its reflog (shadow branches usually start none), else to the
   * newest complete step of its sessions the object store still holds;
   * else deleted (the next turn end starts it again from the work tree).
   */
  private async brokenShadow(name: string, ref: string, problem: RefProblem, states: LoadedState[]): Promise<void> {
    const { repo } = this;
    const parsed = parseShadowBranch(name);
    const sids = new Set(
      states
        .map((l) => l.state)
        .filter((s) => parsed && s.base_commit?.startsWith(parsed.base) && worktreeHash(s.worktree_id ?? '') === parsed.worktreeHash)
        .map((s) => s.session_id),
    );
    const not = this.ctx.head ? [this.ctx.head] : [];
    let target: Source | null = null;
    const fromLog = await firstComplete(repo, reflogCandidates(repo, ref, [problem.oid]), 20, not);
    if (fromLog) target = { oid: fromLog.oid, how: `its reflog entry of ${when(fromLog.when)}` };
    else if (sids.size > 0) {
      const steps = (await this.unreachable()).filter((c) => {
        const sid = stepSession(c.message);
        return sid !== null && sids.has(sid);
      });
      const h = await firstComplete(repo, headsOf(steps), 20, not);
      if (h) target = { oid: h.oid, how: `an unreachable step of ${when(new Date(h.time))}` };
    }
    const plan = target ? `can be reset to ${target.oid.slice(0, 7)} (${target.how})` : 'its steps are lost: it can only be deleted (the next turn end starts it again from the work tree)';
    this.add({ kind: 'broken-shadow-ref', subject: name, detail: `${describeProblem(problem)}; ${plan}` }, async () => {
      if ((await refTarget(repo, ref)) !== problem.oid) return { ok: false, detail: 'the branch moved meanwhile; kept' };
      // shadow branches keep no reflog (src/store/shadow.ts): none is started here either
      const res = await updateRefs(repo, [{ ref, newOid: target ? target.oid : null, oldOid: problem.oid, startReflog: false }], 'entire doctor: restore from a missing commit');
      if (res !== 'ok') return { ok: false, detail: 'the branch moved meanwhile; kept' };
      if (target) await pruneReflog(repo, ref, target.oid).catch((e: unknown) => this.ctx.log.warn('doctor could not prune a reflog', { error: e }));
      return { ok: true, detail: target ? `reset to ${target.oid.slice(0, 7)}` : 'deleted' };
    });
  }

  // ---------------------------------------------------------------- repair

  async repairAll(): Promise<void> {
    // stale intents (they may become pending work) before locks (they block session repairs);
    // then broken refs (every checkpoint write needs the metadata ref), before the intents and
    // sessions whose repairs write checkpoints; ref locks before anything moves a ref
    const order: FindingKind[] = [
      'stale-ref-lock',
      'stale-transcript-cache',
      'stale-remote-tracking',
      'broken-notes-ref',
      'broken-metadata-ref',
      'broken-shadow-ref',
      'stale-intent',
      'stale-lock',
      'corrupt-state',
      'hooks',
      'agent-hooks-outdated',
      'stale-active',
      'pending-condensation',
      'pending-finalization',
      'ended-with-pending-work',
      'unlinked-commit',
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
    const broken = checkpointsSettingError(settings.settings);
    if (broken) io.err(broken);
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
    // after any repair: what later hooks resumed, and what is still pending (issue 19)
    const ops = hookOperations(repo.root, listStates(repo.commonDir).states.map((l) => l.state));
    if (opts.json) {
      io.raw(encodeJson({ ...(jsonOf(report) as Record<string, unknown>), hook_operations: ops }));
    } else {
      for (const f of report.findings) io.out(line(f));
      if (report.found === 0) io.out('No problems found.');
      else {
        io.out(`${report.found} problem(s) found, ${report.fixed} fixed.`);
        if (!repair && repairable) io.out('Run `entire doctor --force` to fix them.');
      }
      if (ops.resumed_pending_work > 0 || ops.still_pending > 0) {
        const r = ops.resumed;
        io.out(
          `Hook operations: ${ops.resumed_pending_work} resumed pending work (${r.condensations} condensation(s), ${r.finalizations} finalization(s), ${r.commit_intents} commit intent(s)); ${ops.still_pending} still pending.`,
        );
      }
    }
    return report.failed > 0 ? 1 : 0;
  } finally {
    repo.objects.close();
  }
}
