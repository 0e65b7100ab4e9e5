/**
 * SPEC §8.7 `entire rewind [--list] [--to <id>] [--logs-only] [--reset] [--force]`.
 *
 * Rewind points are the steps on this worktree's shadow branch for HEAD
 * (work in progress, restorable file by file) and logs-only points for the
 * checkpoints of HEAD's recent first-parent commits (transcripts only).
 * Restoring never touches history (except `--reset`, on a clean tree) and
 * never the user's index: the step tree goes through a private
 * GIT_INDEX_FILE and `checkout-index`.
 */
import { readdirSync, rmdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { openRepo, headCommit, type Repo } from '../git/repo.js';
import { runGit, splitZ } from '../git/exec.js';
import { readRef } from '../git/refs.js';
import { identTime } from '../git/objects.js';
import { workTreeStatus } from '../git/status.js';
import { readCommit, readBlob } from '../store/tree.js';
import { readShadowTranscript } from '../store/shadow.js';
import { readCheckpoint, readSessionContent } from '../store/routing.js';
import { shadowBranchName } from '../checkpoint/shadow.js';
import { linkedIds } from '../links/commit-ids.js';
import { parseTrailerValues } from '../checkpoint/messages.js';
import { decodePromptFile, collapsePrompt } from '../checkpoint/prompts.js';
import { encodeJson } from '../go-json.js';
import { listStates, updateState } from '../session/store.js';
import type { SessionState } from '../session/state.js';
import { EntireError } from '../errors.js';
import { firstParentCommits } from '../git/first-parent.js';
import { adapterForAgentName, restoreLine, restoreSessionTranscript, resumeCommandLine, transcriptLength } from './restore.js';
import { isSessionId } from '../trust/ids.js';
import { enabledOrSay, inThisWorktree, processIo, type Io } from './common.js';
import { randomHex } from '../random.js';
import { agentConfigDirs } from '../agents/registry.js';

/** Points shown by `--list` (SPEC §8.7). */
export const LIST_LIMIT = 20;
/** Steps read per shadow branch, and HEAD commits scanned for logs-only points. */
export const SCAN_LIMIT = 50;
/** Never restored or deleted by a rewind: ours and every agent's configuration (trailing `/`). */
export async function protectedPrefixes(): Promise<string[]> {
  return ['.entire/', ...(await agentConfigDirs())];
}

export interface RewindPoint {
  /** Step commit (shadow) or the user's commit (logs-only). */
  id: string;
  message: string;
  metadata_dir: string;
  date: string;
  is_task_checkpoint: boolean;
  tool_use_id?: string;
  is_logs_only: boolean;
  condensation_id?: string;
  session_id?: string;
  session_prompt?: string;
  /** Internal: the shadow branch a step lives on. */
  branch?: string;
  /** Internal: seconds since the epoch, for ordering. */
  time: number;
}

export interface RewindOptions {
  list?: boolean;
  to?: string;
  logsOnly?: boolean;
  reset?: boolean;
  force?: boolean;
}

export function isProtected(path: string, prefixes: readonly string[]): boolean {
  return prefixes.some((p) => path === p.slice(0, -1) || path.startsWith(p));
}

function rfc3339(d: Date | null): string {
  return (d ?? new Date(0)).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function subjectOf(message: string): string {
  return message.split('\n')[0]?.trim() ?? '';
}

// ------------------------------------------------------------------ listing

async function stepPoints(repo: Repo, branch: string): Promise<RewindPoint[]> {
  const ref = `refs/heads/${branch}`;
  if (!(await readRef(repo, ref))) return [];
  const out: RewindPoint[] = [];
  for (const c of await firstParentCommits(repo, ref, SCAN_LIMIT)) {
    const info = await readCommit(repo, c.sha);
    if (!info) continue;
    const t = parseTrailerValues(c.message);
    // a shadow commit's trailers are read like any git data: an invalid id names nothing (SPEC-2 §A.2)
    const sid = isSessionId(t['Entire-Session']) ? t['Entire-Session'] : '';
    const taskDir = t['Entire-Metadata-Task'];
    const metaDir = taskDir ?? t['Entire-Metadata'] ?? (sid ? `.entire/metadata/${sid}` : '');
    const date = identTime(info.committer);
    const p: RewindPoint = {
      id: c.sha,
      message: subjectOf(c.message),
      metadata_dir: metaDir,
      date: rfc3339(date),
      is_task_checkpoint: taskDir !== undefined,
      is_logs_only: false,
      branch,
      time: date ? date.getTime() : 0,
    };
    if (taskDir) p.tool_use_id = taskDir.split('/').pop() ?? '';
    if (sid) {
      p.session_id = sid;
      const prompts = await readBlob(repo, c.sha, `.entire/metadata/${sid}/prompt.txt`);
      const first = prompts ? decodePromptFile(prompts.toString('utf8'))[0] : undefined;
      if (first) p.session_prompt = collapsePrompt(first, 100);
    }
    out.push(p);
  }
  return out;
}

async function logsOnlyPoints(repo: Repo): Promise<RewindPoint[]> {
  const out: RewindPoint[] = [];
  for (const c of await firstParentCommits(repo, 'HEAD', SCAN_LIMIT)) {
    for (const id of await linkedIds(repo, c.sha, c.message)) {
      const view = await readCheckpoint(repo, id).catch(() => null);
      if (!view || view.sessions.length === 0) continue;
      const info = await readCommit(repo, c.sha);
      const date = info ? identTime(info.committer) : null;
      const latest = view.sessions[view.sessions.length - 1]!;
      const p: RewindPoint = {
        id: c.sha,
        message: subjectOf(c.message),
        metadata_dir: '',
        date: rfc3339(date),
        is_task_checkpoint: latest.metadata.is_task === true,
        is_logs_only: true,
        condensation_id: id,
        time: date ? date.getTime() : 0,
      };
      if (latest.metadata.tool_use_id) p.tool_use_id = latest.metadata.tool_use_id;
      if (latest.metadata.session_id) p.session_id = latest.metadata.session_id;
      const prompts = await readBlob(repo, latest.tip, `${latest.dir}/prompt.txt`);
      const first = prompts ? decodePromptFile(prompts.toString('utf8'))[0] : undefined;
      if (first) p.session_prompt = collapsePrompt(first, 100);
      out.push(p);
      break; // one point per commit, for its first linked checkpoint (as Go)
    }
  }
  return out;
}

/** Every rewind point, newest first (not truncated). */
export async function rewindPoints(repo: Repo): Promise<RewindPoint[]> {
  const head = await headCommit(repo);
  if (!head) return [];
  const branches = [shadowBranchName(head, repo.worktreeId)];
  if (repo.worktreeId === '') branches.push(`entire/${head.slice(0, 7)}`); // legacy Go name
  const points: RewindPoint[] = [];
  for (const b of branches) points.push(...(await stepPoints(repo, b)));
  points.push(...(await logsOnlyPoints(repo)));
  // stable: shadow steps before logs-only points of the same second
  return points.map((p, i) => ({ p, i })).sort((a, b) => b.p.time - a.p.time || a.i - b.i).map((x) => x.p);
}

export function pointJson(p: RewindPoint): Record<string, unknown> {
  const o: Record<string, unknown> = {
    id: p.id,
    message: p.message,
    metadata_dir: p.metadata_dir,
    date: p.date,
    is_task_checkpoint: p.is_task_checkpoint,
  };
  if (p.tool_use_id) o['tool_use_id'] = p.tool_use_id;
  o['is_logs_only'] = p.is_logs_only;
  if (p.condensation_id) o['condensation_id'] = p.condensation_id;
  if (p.session_id) o['session_id'] = p.session_id;
  if (p.session_prompt) o['session_prompt'] = p.session_prompt;
  return o;
}

/** `--to` lookup: a checkpoint id (logs-only), else a unique prefix (≥ 7 hex) of a point's commit. */
export function findPoint(points: RewindPoint[], wanted: string): RewindPoint {
  const w = wanted.trim().toLowerCase();
  const notFound = () => new EntireError('CHECKPOINT_NOT_FOUND', `rewind point not found: ${wanted}`);
  if (!/^[0-9a-f]{7,64}$/.test(w)) throw notFound();
  const byCheckpoint = points.find((p) => p.condensation_id === w);
  if (byCheckpoint) return byCheckpoint;
  const hits = points.filter((p) => p.id.startsWith(w));
  const unique = [...new Map(hits.map((p) => [p.id, p])).values()];
  if (unique.length === 0) throw notFound();
  if (unique.length > 1) throw new EntireError('INVALID_USAGE', `rewind point ${wanted} is ambiguous; give more characters`);
  return unique[0]!;
}

// ------------------------------------------------------------------ restoring a step

interface TreePlan {
  /** Paths to write from the step (differ from it, or missing). */
  write: string[];
  /** Paths to delete (present, not in the step, made by the agent). */
  remove: string[];
  /** Uncommitted paths not made by the session that would be overwritten or deleted. */
  refused: string[];
}

function zPairs(buf: Buffer): { status: string; path: string }[] {
  const parts = splitZ(buf);
  const out: { status: string; path: string }[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) out.push({ status: parts[i]!, path: parts[i + 1]! });
  return out;
}

/** Paths the sessions of this worktree made: their files_touched, and every path a later step changed. */
async function agentPaths(repo: Repo, point: RewindPoint, states: SessionState[]): Promise<Set<string>> {
  const out = new Set<string>();
  for (const s of states) for (const f of s.files_touched ?? []) out.add(f);
  if (!point.branch) return out;
  for (const c of await firstParentCommits(repo, `refs/heads/${point.branch}`, SCAN_LIMIT)) {
    const info = await readCommit(repo, c.sha);
    const parent = info?.parents[0];
    if (!parent) continue; // the first step also holds the person's own dirty files
    const r = await runGit(['diff-tree', '-r', '--name-only', '-z', '--no-renames', '--no-commit-id', parent, c.sha], { cwd: repo.root, allowFailure: true });
    for (const p of splitZ(r.stdout)) if (!p.startsWith('.entire/')) out.add(p);
  }
  return out;
}

/** Work-tree blob ids (clean filters applied, as the steps stored them). */
async function worktreeBlobs(repo: Repo, paths: string[]): Promise<Map<string, string>> {
  const usable = paths.filter((p) => !p.includes('\n'));
  const out = new Map<string, string>();
  if (usable.length === 0) return out;
  const r = await runGit(['hash-object', '--stdin-paths'], { cwd: repo.root, input: usable.join('\n') + '\n', allowFailure: true });
  if (r.code !== 0) return out;
  const oids = r.stdout.toString('utf8').split('\n');
  usable.forEach((p, i) => {
    const o = oids[i]?.trim();
    if (o) out.set(p, o);
  });
  return out;
}

/** Whether the current content of `path` is stored in some step of the branch (so nothing is lost). */
async function capturedInSteps(repo: Repo, branch: string | undefined, path: string, oid: string | undefined): Promise<boolean> {
  if (!branch || !oid) return false;
  for (const c of await firstParentCommits(repo, `refs/heads/${branch}`, SCAN_LIMIT)) {
    const o = await repo.objects.read(`${c.sha}:${path}`);
    if (o && o.oid === oid) return true;
  }
  return false;
}

async function withStepIndex<T>(repo: Repo, commit: string, fn: (env: Record<string, string>) => Promise<T>): Promise<T> {
  const file = join(repo.gitDir, `entire-rewind-index-${process.pid}-${randomHex(4)}`);
  const env = { GIT_INDEX_FILE: file };
  try {
    await runGit(['read-tree', commit], { cwd: repo.root, env });
    // protected paths are neither compared nor written
    const all = splitZ((await runGit(['ls-files', '-z'], { cwd: repo.root, env })).stdout);
    const prefixes = await protectedPrefixes();
    const prot = all.filter((p) => isProtected(p, prefixes));
    if (prot.length > 0) await runGit(['update-index', '--force-remove', '-z', '--stdin'], { cwd: repo.root, env, input: prot.join('\0') + '\0' });
    await runGit(['update-index', '-q', '--refresh'], { cwd: repo.root, env, allowFailure: true });
    return await fn(env);
  } finally {
    rmSync(file, { force: true });
    rmSync(file + '.lock', { force: true });
  }
}

async function planTree(repo: Repo, point: RewindPoint, env: Record<string, string>, states: SessionState[]): Promise<TreePlan> {
  const diff = zPairs((await runGit(['diff-files', '-z', '--name-status', '--no-renames'], { cwd: repo.root, env })).stdout);
  const prefixes = await protectedPrefixes();
  const write = diff.map((d) => d.path).filter((p) => !isProtected(p, prefixes));
  const missing = new Set(diff.filter((d) => d.status === 'D').map((d) => d.path));
  const others = splitZ((await runGit(['ls-files', '-z', '--others', '--exclude-standard'], { cwd: repo.root, env })).stdout).filter(
    (p) => !isProtected(p, prefixes),
  );
  const made = await agentPaths(repo, point, states);
  const remove = others.filter((p) => made.has(p));
  const dirty = new Set((await workTreeStatus(repo)).map((e) => e.path));
  const touched = [...write.filter((p) => !missing.has(p)), ...remove].filter((p) => dirty.has(p) && !made.has(p));
  const blobs = await worktreeBlobs(repo, touched);
  const refused: string[] = [];
  for (const p of touched) if (!(await capturedInSteps(repo, point.branch, p, blobs.get(p)))) refused.push(p);
  return { write, remove, refused };
}

function removeEmptyParents(root: string, rel: string): void {
  let dir = dirname(join(root, rel));
  while (dir.startsWith(root + '/') && dir !== root) {
    try {
      if (readdirSync(dir).length > 0) return;
      rmdirSync(dir);
    } catch {
      return;
    }
    dir = dirname(dir);
  }
}

async function applyTree(repo: Repo, plan: TreePlan, env: Record<string, string>): Promise<void> {
  if (plan.write.length > 0) {
    await runGit(['checkout-index', '-f', '-z', '--stdin'], { cwd: repo.root, env, input: plan.write.join('\0') + '\0' });
  }
  for (const p of plan.remove) {
    rmSync(join(repo.root, p), { force: true });
    removeEmptyParents(repo.root, p);
  }
}

// ------------------------------------------------------------------ command

function humanLine(p: RewindPoint): string {
  const kind = p.is_logs_only ? ' [logs only]' : p.is_task_checkpoint ? ' [task]' : '';
  const extra = p.is_logs_only && p.condensation_id ? ` (checkpoint ${p.condensation_id})` : '';
  const prompt = p.session_prompt ? `  "${p.session_prompt}"` : '';
  return `${p.id.slice(0, 7)}  ${p.date}${kind}  ${p.message}${extra}${prompt}`;
}

async function resumeCommandFor(sid: string | undefined, agent: string | undefined): Promise<string> {
  const adapter = await adapterForAgentName(agent);
  return (sid && isSessionId(sid) && resumeCommandLine(adapter, sid)) || '';
}

/** Run rewind in `cwd`; `confirm` asks the person (throws NEEDS_FORCE without a terminal). Returns the exit code. */
export async function runRewind(cwd: string, opts: RewindOptions, io: Io = processIo, confirm: (q: string) => Promise<boolean> = async () => false): Promise<number> {
  const repo = await openRepo(cwd);
  try {
    if (!enabledOrSay(repo.root, io)) return 0;
    if (opts.list && opts.to !== undefined) throw new EntireError('INVALID_USAGE', '--list and --to cannot be combined');
    if ((opts.logsOnly || opts.reset) && opts.to === undefined) throw new EntireError('INVALID_USAGE', '--logs-only and --reset need --to <id>');
    const points = await rewindPoints(repo);
    if (opts.list) {
      io.raw(encodeJson(points.slice(0, LIST_LIMIT).map(pointJson)));
      return 0;
    }
    if (opts.to === undefined) {
      if (points.length === 0) {
        io.out('No rewind points found.');
        return 0;
      }
      for (const p of points.slice(0, LIST_LIMIT)) io.out(humanLine(p));
      io.out('');
      io.out('Run `entire rewind --to <id>` to restore one.');
      return 0;
    }
    const point = findPoint(points, opts.to);
    const sha7 = point.id.slice(0, 7);
    const states = listStates(repo.commonDir)
      .states.map((l) => l.state)
      .filter((s) => inThisWorktree(s, repo));
    if (point.is_logs_only) return await rewindLogsOnly(repo, point, opts, io, confirm, sha7);

    const state = states.find((s) => s.session_id === point.session_id);
    const adapter = await adapterForAgentName(state?.agent_type);
    const treeToo = !opts.logsOnly;
    if (opts.reset) throw new EntireError('INVALID_USAGE', '--reset applies to committed (logs-only) points');
    return await withStepIndex(repo, point.id, async (env) => {
      const plan = treeToo ? await planTree(repo, point, env, states) : { write: [], remove: [], refused: [] };
      if (plan.refused.length > 0) {
        const list = plan.refused.slice(0, 10).join(', ') + (plan.refused.length > 10 ? `, … (${plan.refused.length} in all)` : '');
        throw new EntireError('REFUSED', `rewind would overwrite uncommitted changes the session did not make: ${list}. Commit or stash them first.`);
      }
      if (!opts.force) {
        const what = treeToo ? `the work tree (${plan.write.length} file(s) restored, ${plan.remove.length} removed) and the transcript` : 'the transcript';
        if (!(await confirm(`Rewind ${what} to ${sha7} "${point.message}"? [y/N] `))) {
          io.out('Rewind cancelled.');
          return 0;
        }
      }
      if (treeToo) await applyTree(repo, plan, env);
      if (point.session_id) {
        const transcript = await readShadowTranscript(repo, point.id, point.session_id).catch(() => null);
        if (transcript) {
          // consent was given above (--force or the question): a differing file is backed up, then replaced
          const r = await restoreSessionTranscript({
            repo,
            adapter,
            sessionId: point.session_id,
            content: transcript,
            force: true,
            ...(state?.transcript_path ? { localPath: state.transcript_path } : {}),
          });
          if (r.status === 'refused' || r.backup) (r.status === 'refused' ? io.err : io.out)(restoreLine(point.session_id, r));
          const length = transcriptLength(transcript);
          // later analyses must not start beyond the shortened transcript
          await updateState(repo.commonDir, point.session_id, (s) => {
            if (!s || (s.checkpoint_transcript_start ?? 0) <= length) return null;
            s.checkpoint_transcript_start = length;
            return s;
          }).catch(() => undefined);
        }
      }
      const cmd = await resumeCommandFor(point.session_id, state?.agent_type);
      io.out(`Rewound to ${sha7}.${cmd ? ` To continue: ${cmd}` : ''}`);
      return 0;
    });
  } finally {
    repo.objects.close();
  }
}

async function rewindLogsOnly(
  repo: Repo,
  point: RewindPoint,
  opts: RewindOptions,
  io: Io,
  confirm: (q: string) => Promise<boolean>,
  sha7: string,
): Promise<number> {
  const id = point.condensation_id!;
  const view = await readCheckpoint(repo, id);
  if (!view) throw new EntireError('CHECKPOINT_NOT_FOUND', `rewind point not found: ${opts.to}`);
  if (opts.reset) {
    const dirty = (await workTreeStatus(repo)).filter((e) => e.code !== '??');
    if (dirty.length > 0) throw new EntireError('REFUSED', `rewind --reset needs a clean work tree (${dirty.length} changed file(s)); commit or stash them first`);
  }
  if (!opts.force) {
    const what = opts.reset ? `reset ${repo.root} to ${sha7} (git reset --hard) and restore` : 'restore';
    if (!(await confirm(`${what[0]!.toUpperCase()}${what.slice(1)} the transcripts of checkpoint ${id}? [y/N] `))) {
      io.out('Rewind cancelled.');
      return 0;
    }
  }
  const commands: string[] = [];
  // issue 25 #2: a checkpoint only a note links to this commit never replaces a session that a
  // trailer-linked checkpoint holds (a teammate's slot claiming your session id)
  const { noteOnlyOverrides } = await import('./session-claims.js');
  const overridden = await noteOnlyOverrides(repo, point.id, id, SCAN_LIMIT);
  for (const s of view.sessions) {
    const sid = s.metadata.session_id;
    const adapter = await adapterForAgentName(s.metadata.agent);
    const content = await readSessionContent(repo, id, { slot: s.slot });
    if (!isSessionId(sid)) {
      io.err(`[entire] Skipping a session of checkpoint ${id}: invalid session id.`);
      continue;
    }
    const keep = overridden.get(sid);
    if (keep) {
      io.err(`[entire] Skipping session ${sid} of checkpoint ${id}: only a note links it to ${sha7}, and checkpoint ${keep} is linked to the session by a commit's trailer.`);
      continue;
    }
    if (content.transcript) {
      // consent was given above (--force or the question): a differing file is backed up, then replaced
      const r = await restoreSessionTranscript({ repo, adapter, sessionId: sid, content: content.transcript, force: true });
      if (r.status === 'refused' || r.backup) (r.status === 'refused' ? io.err : io.out)(restoreLine(sid, r));
    }
    const command = resumeCommandLine(adapter, sid);
    if (command !== null) commands.push(command);
  }
  if (opts.reset) {
    const r = await runGit(['reset', '--hard', '--quiet', point.id], { cwd: repo.root, allowFailure: true });
    if (r.code !== 0) throw new EntireError('GIT_FAILED', `git reset --hard ${sha7} failed: ${r.stderr.trim().split('\n')[0] ?? ''}`);
  }
  io.out(`Rewound to ${sha7}.${commands[0] ? ` To continue: ${commands[0]}` : ''}`);
  for (const c of commands.slice(1)) io.out(`  or: ${c}`);
  return 0;
}
