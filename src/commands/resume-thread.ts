/**
 * SPEC-2 §F.2/§F.3: `entire resume` by thread: `--task`, `--checkpoint`, `--commit`,
 * `--session`, `--list`, `--exec [-- <agent args>]`. Each selected thread's newest checkpoint
 * transcript is restored where its agent looks (SPEC-2 §A.3, §A.10), then its resume command is
 * printed or, with `--exec`, run. A thread that cannot be resumed (agent not on PATH, restore
 * refused, or the agent run by `--exec` reporting no such session) falls back to a new session
 * whose first prompt carries the layered context.
 * (The branch form stays in ./resume.ts.)
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { openRepo, revParse, type Repo } from '../git/repo.js';
import { childProcess } from '../builtins.js';
import type { AgentAdapter } from '../agents/types.js';
import { agentByDisplayName, agentInfo, getAgent, isAgentKey, agentKeyList, DEFAULT_AGENT } from '../agents/registry.js';
import { readSessionContent } from '../store/routing.js';
import { linkedIds } from '../links/commit-ids.js';
import { isCheckpointId, isTaskId } from '../trust/ids.js';
import { shellCommand } from '../trust/terminal.js';
import { confinedDir, writeFileIn } from '../trust/confined.js';
import { EntireError } from '../errors.js';
import { encodeJson } from '../go-json.js';
import { existsSync } from 'node:fs';
import { collectThreads, rankByObservation, type Thread, type ThreadCheckpoint } from './threads.js';
import { agentSessionId, agentSessionIdProblemOf, restoreLine, restoreSessionTranscript } from './restore.js';
import { derivedSlotLayers } from '../context/stored.js';
import { cappedLayers, fencedNotes } from '../context/fence.js';
import { preferredClaim } from './session-claims.js';
import { firstParentCommits } from '../git/first-parent.js';
import { confirm, enabledOrSay, processIo, timeAgo, type Io } from './common.js';

export interface ThreadResumeOptions {
  task?: string;
  checkpoint?: string;
  commit?: string;
  session?: string;
  exec?: boolean;
  force?: boolean;
  list?: boolean;
  json?: boolean;
  /** The agent (key) you resume with: a selected thread of another agent is refused (issue 25 #3c). */
  agent?: string;
  /** Arguments after `--`, appended to the command `--exec` runs. */
  agentArgs?: string[];
}

/** What a run left: its exit status and, when asked for, the tail of its stderr. */
export interface RunResult {
  status: number;
  stderr: string;
}
/**
 * Runs argv (no shell, this process's environment) and resolves with its exit status. With
 * `captureStderr` the child's stderr still reaches ours, and its tail comes back too.
 */
export type Runner = (argv: string[], cwd: string, opts?: { captureStderr?: boolean }) => Promise<RunResult>;

/** Enough of a stderr to find an agent's not-found message in. */
const STDERR_TAIL = 64 * 1024;

const spawnRunner: Runner = async (argv, cwd, opts = {}) => {
  const { spawn } = childProcess();
  return new Promise((resolve) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd, stdio: ['inherit', 'inherit', opts.captureStderr ? 'pipe' : 'inherit'] });
    let stderr = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      process.stderr.write(chunk);
      stderr = (stderr + chunk).slice(-STDERR_TAIL);
    });
    child.on('error', () => resolve({ status: 127, stderr }));
    child.on('close', (code, signal) => resolve({ status: code ?? (signal ? 128 : 1), stderr }));
  });
};

/** True when `command` names an executable on PATH (or is an executable path). */
export function onPath(command: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const candidates = command.includes('/') ? [command] : (env['PATH'] ?? '').split(delimiter).filter((d) => d !== '').map((d) => join(d, command));
  return candidates.some((c) => {
    try {
      accessSync(c, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

async function adapterOf(thread: Thread): Promise<AgentAdapter> {
  const info = thread.agent ? agentByDisplayName(thread.agent) : undefined;
  return getAgent(info?.key ?? DEFAULT_AGENT);
}

async function select(repo: Repo, threads: Thread[], o: ThreadResumeOptions): Promise<Thread[]> {
  let out = threads;
  if (o.task !== undefined) {
    if (!isTaskId(o.task)) throw new EntireError('INVALID_USAGE', `invalid task id: ${o.task}`);
    // the newest thread of the task, by what we observed (issue 25 #3b): the rest seed a fallback
    out = rankByObservation(out.filter((t) => t.taskId === o.task)).slice(0, 1);
  }
  if (o.checkpoint !== undefined) {
    if (!isCheckpointId(o.checkpoint)) throw new EntireError('INVALID_USAGE', `invalid checkpoint id: ${o.checkpoint}`);
    out = out.filter((t) => t.checkpoints.some((c) => c.checkpointId === o.checkpoint));
  }
  if (o.commit !== undefined) {
    const sha = o.commit.startsWith('-') ? null : await revParse(repo, `${o.commit}^{commit}`);
    if (!sha) throw new EntireError('INVALID_INPUT', `unknown commit: ${o.commit}`);
    const ids = new Set(await linkedIds(repo, sha, (await firstParentCommits(repo, sha, 1))[0]?.message ?? ''));
    out = out.filter((t) => t.checkpoints.some((c) => ids.has(c.checkpointId)));
  }
  if (o.session !== undefined) {
    const want = o.session;
    const exact = out.filter((t) => t.sessionId === want);
    const prefix = want.length >= 8 ? out.filter((t) => t.sessionId.startsWith(want)) : [];
    if (exact.length === 0 && prefix.length > 1) throw new EntireError('INVALID_USAGE', `session prefix ${want} matches ${prefix.length} sessions`);
    out = exact.length > 0 ? exact : prefix;
  }
  return out;
}

/** A seed must fit one argv entry with room to spare (Linux caps one at 128 KiB). */
export const SEED_MAX_CHARS = 8000;

/** The checkpoint a thread is restored and seeded from: its preferred claim (issue 25 #2). */
async function checkpointOf(repo: Repo, thread: Thread): Promise<ThreadCheckpoint | undefined> {
  return preferredClaim(repo, thread.checkpoints);
}

/**
 * The seed of a fallback session (SPEC-2 §F.3): L1 + L2, never the prompts, of the first of
 * `candidates` (the thread, then the rest of its task, issue 25 #9) with stored context,
 * re-derived, capped and fenced as quoted data (issue 25 #3a).
 */
async function seedOf(repo: Repo, candidates: readonly Thread[], adapter: AgentAdapter): Promise<{ seed: string; checkpointId: string } | null> {
  for (const thread of candidates) {
    const cp = await checkpointOf(repo, thread);
    if (!cp) continue;
    const layers = await derivedSlotLayers(repo, cp.checkpointId, cp.slot).catch(() => null);
    if (!layers) continue;
    const intro = `Continue the work of an earlier ${adapter.displayName} session (Entire checkpoint ${cp.checkpointId}). Its context:`;
    return { checkpointId: cp.checkpointId, seed: fencedNotes(intro, cappedLayers(layers.l1, layers.l2), SEED_MAX_CHARS) };
  }
  return null;
}

/** The agent key `--agent` names; an unknown one is a usage error. */
function wantedAgent(o: ThreadResumeOptions): string | undefined {
  if (o.agent === undefined) return undefined;
  if (!isAgentKey(o.agent)) throw new EntireError('INVALID_USAGE', `unknown agent: ${o.agent} (one of ${agentKeyList()})`);
  return o.agent;
}

/**
 * Issue 25 #3c: a thread's agent picks the binary that gets the user's arguments, and a slot
 * names it. The agent you resume with is `--agent`, else (for `--task`) the agent of your own
 * thread of the task; a selected thread of another agent is refused, and a task known only
 * from fetched checkpoints needs `--agent` before `--exec` hands it arguments.
 */
function checkAgent(thread: Thread, all: readonly Thread[], o: ThreadResumeOptions): void {
  const key = agentByDisplayName(thread.agent)?.key ?? DEFAULT_AGENT;
  const name = agentInfo(key).displayName;
  const wanted = wantedAgent(o);
  const own = o.task !== undefined ? all.find((t) => t.live && t.taskId === o.task) : undefined;
  const expected = wanted ?? (own ? (agentByDisplayName(own.agent)?.key ?? DEFAULT_AGENT) : undefined);
  if (expected !== undefined && expected !== key) {
    const why = wanted !== undefined ? `not ${agentInfo(expected).displayName} (--agent)` : `not ${agentInfo(expected).displayName} like your own thread ${own!.sessionId}`;
    throw new EntireError('INVALID_USAGE', `thread ${thread.sessionId}${o.task !== undefined ? ` of task ${o.task}` : ''} is a ${name} session, ${why}; pass --agent ${key} to resume it`);
  }
  if (expected === undefined && o.task !== undefined && o.exec && (o.agentArgs ?? []).length > 0) {
    throw new EntireError(
      'INVALID_USAGE',
      `task ${o.task} has no thread of yours; its newest thread ${thread.sessionId} is a ${name} session as a fetched checkpoint says: pass --agent ${key} to run it with your arguments`,
    );
  }
}

export async function runThreadResume(cwd: string, o: ThreadResumeOptions, io: Io = processIo, run: Runner = spawnRunner): Promise<number> {
  const repo = await openRepo(cwd);
  try {
    if (!enabledOrSay(repo.root, io)) return 0;
    const all = await collectThreads(repo, { warn: io.err });
    const threads = await select(repo, all, o);
    if (o.list) {
      if (o.json) {
        io.raw(
          encodeJson({
            threads: threads.map((t) => ({
              session_id: t.sessionId,
              agent: t.agent,
              ...(t.taskId ? { task_id: t.taskId } : {}),
              created_at: t.createdAt,
              last_used_at: t.lastUsedAt,
              attempt_count: t.attemptCount,
              checkpoints: t.checkpoints.map((c) => c.checkpointId),
            })),
          }),
        );
      } else {
        if (threads.length === 0) io.out('No threads found.');
        for (const t of threads) io.out(`${t.agent || 'unknown agent'} ${t.sessionId}${t.taskId ? ` task ${t.taskId}` : ''}, last used ${timeAgo(t.lastUsedAt)}`);
      }
      return 0;
    }
    if (threads.length === 0) throw new EntireError('SESSION_NOT_FOUND', 'no matching thread (see `entire resume --list`)');
    if (o.exec && threads.length > 1) throw new EntireError('INVALID_USAGE', `--exec needs exactly one thread; ${threads.length} match (pick one with --session)`);
    const ask = async (q: string): Promise<boolean> => (await confirm(q)) === 'yes';
    let exitCode = 0;
    for (const thread of threads) checkAgent(thread, all, o);
    for (const thread of threads) {
      const adapter = await adapterOf(thread);
      const sid = thread.sessionId;
      let reason: string | null = null;
      const cp = await checkpointOf(repo, thread);
      if (!cp && thread.live && thread.liveTranscriptPath && !existsSync(thread.liveTranscriptPath)) {
        reason = 'its transcript is gone and no checkpoint holds it';
      }
      if (cp) {
        const content = await readSessionContent(repo, cp.checkpointId, { slot: cp.slot }).catch(() => null);
        if (content?.transcript) {
          const r = await restoreSessionTranscript({ repo, adapter, sessionId: sid, content: content.transcript, force: !!o.force, ask });
          (r.status === 'refused' ? io.err : io.out)(restoreLine(sid, r));
          if (r.status === 'refused') reason = `its transcript cannot be restored (${r.reason ?? 'refused'})`;
        } else if (!thread.live) {
          reason = 'no transcript is stored for it';
        }
      }
      // issue 25: an id that cannot be handed to the agent never reaches its argv
      const idProblem = agentSessionIdProblemOf(sid);
      if (reason === null && idProblem !== null) reason = `its session id cannot be handed to ${adapter.displayName} (${idProblem})`;
      const resumeArgv = idProblem === null ? adapter.resumeArgv(agentSessionId(sid)) : [];
      if (reason === null && !onPath(resumeArgv[0]!)) reason = `${resumeArgv[0]} is not on PATH`;
      if (reason === null) {
        io.out('To continue this session, run:');
        io.out(`  ${shellCommand(resumeArgv)}`);
        if (!o.exec) continue;
        const args = o.agentArgs ?? [];
        const argv = adapter.execResumeArgv?.(agentSessionId(sid), args) ?? [...resumeArgv, ...args];
        // an interactive TUI keeps its terminal stderr: only a headless run's is read (exit statuses always)
        const r = await run(argv, repo.root, { captureStderr: adapter.resumeFailure !== undefined && args.length > 0 });
        // SPEC-2 §F.3: the agent itself may report the session missing (a restore it ignores)
        const missing = adapter.resumeFailure?.(r) ?? null;
        if (missing === null) return r.status;
        reason = missing;
      }
      // issue 25 #9: the seed comes from the thread, else its task's next thread with context
      const seedFrom = o.task !== undefined ? [thread, ...rankByObservation(all.filter((t) => t.taskId === o.task && t !== thread))] : [thread];
      exitCode = await fallback(repo, thread, seedFrom, adapter, reason, o, io, run);
      if (o.exec) return exitCode;
    }
    return exitCode;
  } finally {
    repo.objects.close();
  }
}

async function fallback(repo: Repo, thread: Thread, seedFrom: readonly Thread[], adapter: AgentAdapter, reason: string, o: ThreadResumeOptions, io: Io, run: Runner): Promise<number> {
  io.out(`Cannot resume ${adapter.displayName} session ${thread.sessionId}: ${reason}.`);
  const seeded = await seedOf(repo, seedFrom, adapter);
  if (!seeded) {
    io.err('No stored context to start a new session with.');
    return 1;
  }
  const argv = adapter.startArgv?.(seeded.seed);
  const args = o.agentArgs ?? [];
  const saveSeed = (): string => {
    // SPEC-2 §A.4: only through a checked .entire/tmp (never a symlink)
    const dir = confinedDir(repo.root, '.entire/tmp', { mode: 0o750 });
    writeFileIn(dir, `seed-${seeded.checkpointId}.md`, seeded.seed);
    return join(dir, `seed-${seeded.checkpointId}.md`);
  };
  if (!argv) {
    io.out(`Its context is in ${saveSeed()}`);
    return 0;
  }
  io.out('Start a new session with its context:');
  io.out(`  ${shellCommand(argv)}`);
  if (!o.exec) return 0;
  if (!onPath(argv[0]!)) {
    io.out(`${argv[0]} is not installed; the context is in ${saveSeed()}`);
    return 1;
  }
  // the args were written for the headless resume: the adapter fits the seed in front of their prompt
  const execArgv = args.length === 0 ? argv : (adapter.startExecArgv?.(seeded.seed, args) ?? [...argv, ...args]);
  return (await run(execArgv, repo.root)).status;
}
