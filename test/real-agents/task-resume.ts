/**
 * Resume by task on the real CLI (SPEC-2 §F.1–F.3, issue 19): the agent runs with
 * `ENTIRE_TASK_ID` and commits; then, under a HOME whose agent store never saw the session,
 * `entire resume --task <id> --exec -- <args>` restores the transcript and runs the agent's
 * own headless resume, and the scripted model is sent the first turn. Then the thread is made
 * unresumable (the agent, through a wrapper on PATH, looks for it in a HOME that never had it
 * and reports it missing, as it does for a deleted transcript): Entire falls back to a new session whose
 * first prompt, as the model receives it, holds the Execution Register.
 */
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AgentDriver, AgentRun } from './drivers/types.js';
import type { LoggedRequest, ModelServer } from './model-server.js';
import { PROMPTS, conversationHas } from './scripts.js';
import { ENTIRE_CLI, hookWorkersDone, run, type ProcResult, type Repo, type World } from './world.js';
import { commitWithSubject, linkedIds, slotOf } from './checkpoints.js';

const RUN_TIMEOUT_MS = 150_000;

/** What the suite lends the scenario (its world exists only once its beforeAll ran). */
export interface TaskResumeContext {
  driver: AgentDriver;
  bin: () => string;
  world: () => World;
  server: () => ModelServer;
  apiKey: string;
  /** The suite's repository maker (tracked for its run-wide checks). */
  enabledRepo: (name: string, home: string) => Repo;
  homes: string[];
  sessions: string[];
}

/**
 * The args a supervisor puts after `--` to continue a thread headless with `prompt` (the
 * agent's headless resume minus its binary and the words that name the session).
 */
function execArgs(driver: AgentDriver, prompt: string): string[] {
  switch (driver.key) {
    case 'claude-code':
      return ['-p', prompt];
    case 'gemini':
      // an explicit -m keeps the CLI from calling other models (router, classifier)
      return ['-p', prompt, '--approval-mode', 'yolo', '-m', 'gemini-2.5-flash', '-o', 'json'];
    case 'codex':
      return ['--json', '--dangerously-bypass-approvals-and-sandbox', '--dangerously-bypass-hook-trust', prompt];
    case 'opencode':
      // `opencode run` quotes a message argument that holds spaces (SPEC-2 §C.2): words
      return ['--format', 'json', ...prompt.split(' ')];
    case 'copilot-cli':
      return ['-p', prompt, '--allow-all-tools'];
    default:
      throw new Error(`no headless resume args known for ${driver.key}`);
  }
}

/**
 * A wrapper named like the agent's binary: a run that names `sessionId` looks in `otherHome`, set
 * up for the project but holding no session (the agent then reports the session missing, as for
 * a deleted transcript); any other run is the real CLI as it is.
 */
function agentWithoutSession(dir: string, realBin: string, sessionId: string, otherHome: string): void {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, basename(realBin));
  writeFileSync(
    path,
    `#!/bin/sh
for a in "$@"; do
  if [ "$a" = '${sessionId}' ] || [ "$a" = '--resume=${sessionId}' ]; then
    export HOME='${otherHome}' XDG_CONFIG_HOME='${otherHome}/.config' XDG_DATA_HOME='${otherHome}/.local/share' XDG_STATE_HOME='${otherHome}/.local/state' XDG_CACHE_HOME='${otherHome}/.cache'
  fi
done
exec '${realBin}' "$@"
`,
  );
  chmodSync(path, 0o755);
}

export function defineTaskResume(ctx: TaskResumeContext): void {
  const { driver } = ctx;
  const info = (r: ProcResult) => `exit ${r.status}${r.signal ? ` (${r.signal})` : ''}\nstdout: ${r.stdout.slice(-3000)}\nstderr: ${r.stderr.slice(-3000)}`;

  describe('resume by task: --exec continues the thread; a thread the agent cannot find falls back (F.1–F.3)', () => {
    const taskId = `T-${driver.key}.1`;
    let repo: Repo;
    let first: AgentRun;
    let sid = '';
    let taskCommit: string | null = null;
    let tasksOut: ProcResult;
    let resumed: ProcResult;
    let fellBack: ProcResult;
    const requestsOf = (script: string): LoggedRequest[] => ctx.server().requests.filter((q) => q.plan?.script === script);

    /** `entire <args>` without blocking this process (the model server answers the agent in it). */
    const entire = (args: string[], env: NodeJS.ProcessEnv) => run([process.execPath, ENTIRE_CLI, ...args], { cwd: repo.dir, env, timeoutMs: RUN_TIMEOUT_MS });
    const agentEnv = (home: string) => ctx.world().env(home, { ...driver.env(ctx.server().url, ctx.apiKey), ENTIRE_TASK_ID: taskId });
    /** A HOME with the agent set up for this project but no session of it: the store Entire restores into. */
    const freshHome = (name: string) => {
      const home = ctx.world().home(name);
      ctx.homes.push(home);
      ctx.driver.prepareHome(home, [repo.dir], ctx.apiKey, ctx.server().url);
      return home;
    };

    beforeAll(async () => {
      const world = ctx.world();
      const homeT = world.home('home-task');
      ctx.homes.push(homeT);
      driver.prepareHome(homeT, [join(world.base, 'project-task')], ctx.apiKey, ctx.server().url);
      repo = ctx.enabledRepo('project-task', homeT);
      const imposed = randomUUID();
      const argv = driver.startArgv(ctx.bin(), PROMPTS.task, imposed);
      const res = await run(argv, { cwd: repo.dir, env: agentEnv(homeT), timeoutMs: RUN_TIMEOUT_MS });
      await hookWorkersDone(repo.dir);
      sid = driver.sessionIdOf(res, imposed);
      if (sid !== '') ctx.sessions.push(sid);
      first = { ...res, argv, sessionId: sid };
      taskCommit = commitWithSubject(repo, 'Add task.txt');
      tasksOut = await entire(['tasks', '--json'], world.env(homeT));

      // the agent's store never saw the session: only the checkpoint's transcript can continue it
      resumed = await entire(['resume', '--task', taskId, '--exec', '--', ...execArgs(driver, PROMPTS.taskContinue)], agentEnv(freshHome('home-task-resume')));
      await hookWorkersDone(repo.dir);

      // the fallback's new session in the task's first HOME: the agent set up there already (OpenCode's
      // first run in a HOME spends tens of seconds on its plugin before the first request)
      const wrapper = join(world.base, 'bin-no-session');
      // (a HOME without the agent's config makes some CLIs fetch providers first: minutes offline)
      agentWithoutSession(wrapper, ctx.bin(), sid, freshHome('home-task-no-session'));
      const env = agentEnv(homeT);
      env['PATH'] = `${wrapper}:${env['PATH']}`;
      fellBack = await entire(['resume', '--task', taskId, '--exec', '--', ...execArgs(driver, PROMPTS.taskFresh)], env);
      await hookWorkersDone(repo.dir);
    });

    it('the task turn ran and its commit is linked to a checkpoint (precondition)', () => {
      expect(first.status, info(first)).toBe(0);
      expect(sid, 'session id').not.toBe('');
      expect(taskCommit, `no "Add task.txt" commit:\n${repo.git(['log', '--format=%h %s'])}\n${info(first)}`).not.toBeNull();
      expect(slotOf(repo, linkedIds(repo, taskCommit!), sid), 'no slot of the session on the commit').not.toBeNull();
    });

    it('the hooks recorded the task: entire tasks lists the thread under it', () => {
      expect(tasksOut.status, info(tasksOut)).toBe(0);
      const tasks = (JSON.parse(tasksOut.stdout) as { tasks: { task_id: string; threads: { session_id: string; agent: string }[] }[] }).tasks;
      const task = tasks.find((t) => t.task_id === taskId);
      expect(task, tasksOut.stdout).toBeDefined();
      expect(task!.threads.map((t) => [t.session_id, t.agent])).toContainEqual([sid, driver.displayName]);
    });

    it("resume --task --exec restores the transcript and runs the agent's headless resume: the model is sent the first turn", () => {
      expect(resumed.status, info(resumed)).toBe(0);
      expect(resumed.stdout + resumed.stderr).toContain(`Restored transcript of session ${sid}`);
      expect(resumed.stdout).toContain(`To continue this session, run:\n  ${driver.resumeHint(sid)}\n`);
      const req = requestsOf('TASKCONT')[0];
      expect(req, `no request for the continue prompt; ${info(resumed)}`).toBeDefined();
      expect(conversationHas(req!.conversation!, 'ETIER-TASK '), 'the first turn is not in the request').toBe(true);
      expect(resumed.stdout).toContain('Task continued (context present).');
    });

    it('when the agent reports the session missing, the fallback starts a new thread whose first prompt holds the register', () => {
      expect(fellBack.stdout, info(fellBack)).toContain(`Cannot resume ${driver.displayName} session ${sid}: `);
      expect(fellBack.stdout).toContain('Start a new session with its context:');
      expect(fellBack.status, info(fellBack)).toBe(0);
      const reqs = requestsOf('TASKFRESH');
      expect(reqs.length, `no request for the fallback's prompt; ${info(fellBack)}`).toBeGreaterThan(0);
      const users = reqs[0]!.conversation!.messages.filter((m) => m.role === 'user');
      const ask = users.find((m) => m.texts.some((t) => t.includes('ETIER-TASKFRESH')));
      expect(ask, JSON.stringify(users).slice(0, 3000)).toBeDefined();
      const text = ask!.texts.join('\n');
      expect(text).toContain('Continue the work of an earlier');
      expect(text).toContain('## Execution Register');
      expect(text).toContain('- **Goal:** ETIER-TASK create task.txt');
      // a new thread: the first turn comes only inside the register, never as a turn of its own
      const replayed = users.filter((m) => m !== ask && conversationHas({ messages: [m] }, 'ETIER-TASK '));
      expect(replayed, JSON.stringify(replayed).slice(0, 2000)).toEqual([]);
      expect(fellBack.stdout).toContain('Fresh start (register present).');
    });
  });
}
