/**
 * The real-agent scenarios (SPEC-2 §G G1, G2; §B.3, §B.5), for one driver.
 * Each scenario runs the real CLI once or twice in `beforeAll` and keeps what
 * users would see (git, `entire` output); each `it` then asserts one thing
 * about it, so a failure names exactly what broke. Agents' CLI runs are slow
 * (seconds each): scenarios share runs and run one after another.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, statSync, symlinkSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startModelServer, type LoggedRequest, type ModelServer } from './model-server.js';
import { PROMPTS, README_EDITED, README_START, USAGE_PER_CALL, conversationHas } from './scripts.js';
import { Repo, World, hookWorkersDone, run } from './world.js';
import { DriftCollector, writeDriftReport } from './drift.js';
import { defineTaskResume } from './task-resume.js';
import type { AgentDriver, AgentRun } from './drivers/types.js';
import {
  checkpointExists,
  commitWithSubject,
  hookLog,
  linkedIds,
  shadowSteps,
  slotOf,
  slots as slotsOf,
  statusSessions,
  trailersOnBranches,
  type LogLine,
} from './checkpoints.js';

const API_KEY = 'sk-etier-test-0123456789abcdefghijklmnopqrstuvwxyz';
const RUN_TIMEOUT_MS = 150_000;
/** SPEC-2 §B.4: the default cap of the turn-end flush wait. */
const FLUSH_CAP_MS = 3000;

export function defineAgentSuite(driver: AgentDriver): void {
  const cli = inject('agentClis').agents[driver.key];
  const reportDir = inject('agentsReportDir');

  // left out on purpose (ENTIRE_AGENTS_ONLY) → skipped; not installed otherwise → the setup fails
  const only = (process.env['ENTIRE_AGENTS_ONLY'] ?? '').split(',').filter((k) => k !== '');
  const excluded = only.length > 0 && !only.includes(driver.key);

  describe.skipIf(excluded)(`${driver.displayName} ${cli?.version ?? '(not installed)'} (real CLI)`, () => {
    let world: World;
    let server: ModelServer;
    let homeA: string;
    const repos: Repo[] = [];
    const homes: string[] = [];
    const sessions: string[] = [];

    beforeAll(async () => {
      if (cli === undefined) throw new Error(`${driver.key} is not installed (ENTIRE_AGENTS_ONLY?)`);
      world = new World(`entire-agents-${driver.key}-`);
      // the agent's CLI on PATH, as its users have it: Entire runs some (`opencode export`, `import`)
      symlinkSync(cli.bin, join(world.bin, basename(cli.bin)));
      server = await startModelServer({ dialects: [driver.dialect], logFile: join(world.base, 'model-requests.jsonl') });
      homeA = world.home('home-a');
      homes.push(homeA);
      // every project of home A, trusted up front (B.8; Claude's trust dialog)
      driver.prepareHome(homeA, ['project-std', 'project-fg', 'project-bg'].map((n) => join(world.base, n)), API_KEY, server.url);
    });

    afterAll(async () => {
      if (world === undefined) return;
      const drift = new DriftCollector(driver);
      drift.addHookCapture(world.hookCapture);
      for (const home of homes) for (const sid of sessions) drift.addTranscripts(driver.transcriptFiles(home, sid));
      drift.addUnknownRoutes(server.unknown().map((r) => `${r.method} ${r.url}`));
      if (cli !== undefined) writeDriftReport(reportDir, drift.report(cli));
      await server.close();
      world.cleanup();
    });

    /** A repository with Entire enabled for this agent, on branch `feature`, the enable files committed. */
    function enabledRepo(name: string, home: string): Repo {
      const r = world.repo(name, home, README_START);
      const en = r.entire(['enable', '--agent', driver.key]);
      if (en.status !== 0) throw new Error(`entire enable --agent ${driver.key} failed: ${en.stdout}${en.stderr}`);
      r.git(['add', ...driver.enableFiles.filter((f) => r.exists(f))]);
      r.git(['commit', '-q', '-m', 'enable entire']);
      r.git(['checkout', '-q', '-b', 'feature']);
      repos.push(r);
      return r;
    }

    /** A new session with this prompt (the driver may impose the session id). */
    function startAgent(prompt: string, repo: Repo, home: string): Promise<AgentRun> {
      const imposed = randomUUID();
      return runAgent(driver.startArgv(cli!.bin, prompt, imposed), repo, home, imposed);
    }

    async function runAgent(argv: string[], repo: Repo, home: string, imposedSid: string): Promise<AgentRun> {
      const env = world.env(home, driver.env(server.url, API_KEY));
      const res = await run(argv, { cwd: repo.dir, env, timeoutMs: RUN_TIMEOUT_MS });
      await hookWorkersDone(repo.dir);
      const sessionId = driver.sessionIdOf(res, imposedSid);
      if (sessionId !== '') sessions.push(sessionId);
      return { ...res, argv, sessionId };
    }

    const runInfo = (r: AgentRun) => `exit ${r.status}${r.signal ? ` (${r.signal})` : ''}\nstdout: ${r.stdout.slice(-2000)}\nstderr: ${r.stderr.slice(-3000)}`;
    /** The requests of one script, in order. */
    const requestsOf = (script: string): LoggedRequest[] => server.requests.filter((q) => q.plan?.script === script);
    const errorsIn = (log: LogLine[]) => log.filter((l) => l.level === 'ERROR');
    const perCall = driver.recordedUsagePerCall(USAGE_PER_CALL);
    function expectUsage(usage: unknown, minCalls: number): void {
      expect(usage, 'token_usage').toBeTypeOf('object');
      const u = usage as Record<string, number>;
      const n = u['api_call_count'] ?? 0;
      expect(n, 'api_call_count').toBeGreaterThanOrEqual(minCalls);
      expect({
        input_tokens: u['input_tokens'],
        cache_creation_tokens: u['cache_creation_tokens'] ?? 0,
        cache_read_tokens: u['cache_read_tokens'] ?? 0,
        output_tokens: u['output_tokens'],
      }).toEqual({
        input_tokens: perCall.input_tokens * n,
        cache_creation_tokens: perCall.cache_creation_tokens * n,
        cache_read_tokens: perCall.cache_read_tokens * n,
        output_tokens: perCall.output_tokens * n,
      });
    }

    /** The one model the requests of `script` named (undefined: none, or several). */
    function sentModel(script: string): string | undefined {
      const names = new Set(requestsOf(script).map(requestModel).filter((m): m is string => m !== undefined));
      return names.size === 1 ? [...names][0] : undefined;
    }
    /** What a checkpoint of the turn `script` ran should record as its model (issue 16). */
    function expectedModel(script: string): string | undefined {
      const sent = sentModel(script);
      return sent === undefined ? undefined : (driver.recordedModel?.(sent) ?? sent);
    }
    const modelInfo = (script: string) => `models sent by ${script}: ${JSON.stringify(requestsOf(script).map(requestModel))}`;

    describe('standard turn: write, commit mid-turn, edit, answer (G1)', () => {
      let repo: Repo;
      let agent: AgentRun;
      let sid = '';
      let agentCommit: string | null = null;
      let agentIds: string[] = [];
      let statusAfterTurn: Record<string, unknown>[] = [];
      let humanCommit = '';
      let humanCommitOut = '';

      beforeAll(async () => {
        repo = enabledRepo('project-std', homeA);
        agent = await startAgent(PROMPTS.standard, repo, homeA);
        sid = agent.sessionId;
        agentCommit = commitWithSubject(repo, 'Add hello.txt');
        agentIds = agentCommit === null ? [] : linkedIds(repo, agentCommit);
        statusAfterTurn = statusSessions(repo);
        // a person commits the agent's README edit afterwards
        repo.gitResult(['add', 'README.md']);
        const c = repo.gitResult(['commit', '-m', 'Mention hello.txt in the README']);
        humanCommitOut = c.stdout + c.stderr;
        humanCommit = c.status === 0 ? repo.git(['rev-parse', 'HEAD']).trim() : '';
      });

      it('the agent ran the scripted turn (precondition)', () => {
        expect(agent.status, runInfo(agent)).toBe(0);
        expect(sid, 'session id').not.toBe('');
        expect(driver.answerOf(agent), runInfo(agent)).toContain('Done: hello.txt is committed');
        expect(agentCommit, `no "Add hello.txt" commit:\n${repo.git(['log', '--format=%h %s'])}\n${runInfo(agent)}`).not.toBeNull();
        expect(repo.git(['show', '--name-only', '--format=', agentCommit!]).trim()).toBe('hello.txt');
        expect(repo.read('README.md')).toBe(README_EDITED);
      });

      // an agent whose shell commits with hooks off is linked at turn end by SPEC-2 §D.3 (a note)
      const linkedAgentCommit = it;

      linkedAgentCommit("the agent's mid-turn commit is linked to a checkpoint (trailer; a note for hook-less commits, D.3)", () => {
        expect(agentIds, `commit message:\n${repo.git(['log', '-1', '--format=%B', agentCommit ?? 'HEAD'])}`).not.toEqual([]);
        for (const id of agentIds) expect(checkpointExists(repo, id), `checkpoint ${id}`).toBe(true);
        // hooks off: the commit is never rewritten, the note links it
        if (!driver.agentCommitsRunHooks) expect(repo.git(['log', '-1', '--format=%B', agentCommit ?? 'HEAD'])).not.toContain('Entire-Checkpoint:');
      });

      linkedAgentCommit("that checkpoint's slot names the agent, the session, the prompt, files_touched [hello.txt] and token usage", () => {
        const slot = slotOf(repo, agentIds, sid);
        expect(slot, `no slot for session ${sid} in ${agentIds.join(', ') || '(no checkpoint)'}`).not.toBeNull();
        expect(slot!.metadata['agent']).toBe(driver.displayName);
        expect(slot!.metadata['files_touched']).toEqual(['hello.txt']);
        expect(slot!.prompt).toContain(PROMPTS.standard);
        // at least the two calls before the commit (write, shell)
        expectUsage(slot!.metadata['token_usage'], 2);
      });

      linkedAgentCommit('after the turn, that checkpoint holds the real transcript up to the final answer', () => {
        const slot = slotOf(repo, agentIds, sid);
        expect(slot, 'no slot (see the linking test)').not.toBeNull();
        const raw = repo.entire(['explain', '--checkpoint', slot!.id, '--session', sid, '--raw-transcript']);
        expect(raw.status, raw.stderr).toBe(0);
        expect(raw.stdout).toContain('Done: hello.txt is committed');
        const real = driver.transcriptFiles(homeA, sid).map((f) => readFileSync(f, 'utf8'));
        // the stored copy is the agent's file as it stood at turn end, secrets (and whatever
        // the entropy rule takes for one) replaced by REDACTED
        const problems = real.map((t) => prefixProblem(raw.stdout, t));
        expect(problems.some((p) => p === null), problems.join('\n')).toBe(true);
      });

      it('the turn-end hook found the transcript flushed, without waiting for the cap (B.4)', () => {
        const ends = hookLog(repo).filter((l) => l.msg === 'hook completed' && l.hook === `${driver.key} ${driver.turnEndVerb}`);
        expect(ends.length, 'turn-end hook log lines').toBeGreaterThan(0);
        for (const l of ends) {
          expect(l['flush_wait_ms'], `log line: ${JSON.stringify(l)}`).toBeTypeOf('number');
          expect(l['flush_wait_ms'] as number, `log line: ${JSON.stringify(l)}`).toBeLessThan(FLUSH_CAP_MS);
        }
      });

      it('entire status lists the ended session with its uncommitted README.md edit', () => {
        const s = statusAfterTurn.find((x) => x['session_id'] === sid);
        expect(s, JSON.stringify(statusAfterTurn)).toBeDefined();
        expect(s!['agent']).toBe(driver.displayName);
        expect(s!['first_prompt']).toBe(PROMPTS.standard);
        expect(s!['files_touched']).toContain('README.md');
      });

      it('a later human commit of README.md links the same session', () => {
        expect(humanCommit, humanCommitOut).not.toBe('');
        const ids = linkedIds(repo, humanCommit);
        expect(ids, humanCommitOut).not.toEqual([]);
        const slot = slotOf(repo, ids, sid);
        expect(slot, `no slot for session ${sid} in ${ids.join(', ')}`).not.toBeNull();
        expect(slot!.metadata['agent']).toBe(driver.displayName);
        expect(slot!.metadata['files_touched']).toEqual(['README.md']);
      });

      it("the session's checkpoints record its prompt, and every model call of the turn exactly once", () => {
        const humanSlot = slotOf(repo, humanCommit ? linkedIds(repo, humanCommit) : [], sid);
        expect(humanSlot, 'no slot (see the previous test)').not.toBeNull();
        expect(humanSlot!.prompt).toContain(PROMPTS.standard);
        // a mid-turn checkpoint covers the turn up to its end (finalize); the later commit the rest
        const slots = [slotOf(repo, agentIds, sid), humanSlot].filter((x, i, all) => x !== null && all.findIndex((y) => y?.id === x.id) === i);
        const sum: Record<string, number> = {};
        for (const s of slots) {
          for (const [k, v] of Object.entries((s!.metadata['token_usage'] ?? {}) as Record<string, unknown>)) {
            if (typeof v === 'number') sum[k] = (sum[k] ?? 0) + v;
          }
        }
        const calls = requestsOf('STD').length;
        expect(sum['api_call_count'], `token_usage of ${slots.map((s) => `${s!.id}: ${JSON.stringify(s!.metadata['token_usage'])}`).join('; ')}`).toBe(calls);
        expectUsage(sum, calls);
      });

      it('both checkpoints record the model the CLI called, and explain shows it (issue 16)', () => {
        const want = expectedModel('STD');
        expect(want, modelInfo('STD')).toBeDefined();
        const humanSlot = slotOf(repo, humanCommit ? linkedIds(repo, humanCommit) : [], sid);
        expect(humanSlot, 'no slot (see the linking tests)').not.toBeNull();
        expect(humanSlot!.metadata['model'], modelInfo('STD')).toBe(want);
        const agentSlot = slotOf(repo, agentIds, sid);
        expect(agentSlot, 'no slot (see the linking tests)').not.toBeNull();
        expect(agentSlot!.metadata['model'], modelInfo('STD')).toBe(want);
        const ex = repo.entire(['explain', '--checkpoint', humanSlot!.id]);
        expect(ex.status, ex.stderr).toBe(0);
        expect(ex.stdout).toContain(`Model: ${want}`);
      });

      it('entire explain shows the prompt for the human commit (and the agent commit)', () => {
        // the agent's own commit: by its trailer, or by its note when its shell ran no hooks (SPEC-2 §D.3, §D.5)
        const revs = [humanCommit || 'HEAD', agentCommit ?? 'HEAD'];
        for (const rev of revs) {
          const ex = repo.entire(['explain', '--commit', rev]);
          expect(ex.status, ex.stderr).toBe(0);
          expect(ex.stdout, `explain --commit ${rev}`).toContain(`Agent: ${driver.displayName}`);
          expect(ex.stdout, `explain --commit ${rev}`).toContain(PROMPTS.standard);
        }
      });

      describe('resume in a clone under another directory name, fresh agent home (G2)', () => {
        let clone: Repo;
        let homeB: string;
        let pushOut = '';
        let resumeOut: { status: number | null; stdout: string; stderr: string } = { status: null, stdout: '', stderr: '' };
        let restoreProblems: string[] = [];
        let resumed: AgentRun;
        let statusAfterResume: Record<string, unknown>[] = [];
        let notesCommit = '';
        let notesCommitOut = '';

        beforeAll(async () => {
          const remote = join(world.base, 'remote.git');
          repo.git(['init', '-q', '--bare', '-b', 'main', remote]);
          repo.git(['remote', 'add', 'origin', remote]);
          const push = repo.gitResult(['push', 'origin', 'main', 'feature']);
          pushOut = push.stdout + push.stderr;
          homeB = world.home('home-b');
          homes.push(homeB);
          const cloneDir = join(world.base, 'Resumed.Clone');
          clone = new Repo(cloneDir, world.env(homeB));
          clone.git(['clone', '-q', remote, cloneDir]);
          clone.git(['config', 'user.name', 'Other Person']);
          clone.git(['config', 'user.email', 'other@example.com']);
          repos.push(clone);
          driver.prepareHome(homeB, [cloneDir], API_KEY, server.url);
          const en = clone.entire(['enable', '--agent', driver.key]);
          if (en.status !== 0) throw new Error(`enable in the clone failed: ${en.stdout}${en.stderr}`);
          resumeOut = clone.entire(['resume', 'feature']);
          // judged before the agent runs: it may register or migrate things itself
          const m = new RegExp(`Restored transcript of session ${sid} to (.+)$`, 'm').exec(resumeOut.stdout + resumeOut.stderr);
          restoreProblems = m ? driver.restoreProblems(homeB, clone.dir, sid, m[1]!.trim()) : [`no "Restored transcript" line:\n${resumeOut.stdout}${resumeOut.stderr}`];
          resumed = await runAgent(driver.resumeArgv(cli!.bin, sid, PROMPTS.second), clone, homeB, sid);
          statusAfterResume = statusSessions(clone);
          clone.gitResult(['add', 'notes.txt']);
          const c = clone.gitResult(['commit', '-m', 'Add the notes']);
          notesCommitOut = c.stdout + c.stderr;
          notesCommit = c.status === 0 ? clone.git(['rev-parse', 'HEAD']).trim() : '';
        });

        it('pushing the branch published the checkpoints', () => {
          expect(clone.git(['branch', '-r']), pushOut).toContain('origin/entire/checkpoints/v1');
        });

        it('entire resume restores the session and prints the agent command that continues it', () => {
          expect(resumeOut.status, resumeOut.stderr).toBe(0);
          expect(resumeOut.stdout + resumeOut.stderr).toContain(`Restored transcript of session ${sid}`);
          expect(resumeOut.stdout).toContain(driver.resumeHint(sid));
        });

        it('the transcript is restored where the agent looks for it in this clone', () => {
          expect(restoreProblems.join('\n')).toBe('');
        });

        it("the agent's own headless resume continues the thread: the model is sent the earlier conversation", () => {
          expect(resumed.status, runInfo(resumed)).toBe(0);
          const first = requestsOf('SECOND')[0];
          expect(first, `no request for the second prompt; ${runInfo(resumed)}`).toBeDefined();
          expect(conversationHas(first!.conversation!, 'ETIER-STD'), 'the first turn is not in the request').toBe(true);
          expect(driver.answerOf(resumed)).toContain('context present');
        });

        it('…in the same session: Entire tracks it under the same id and a commit of its work links it', () => {
          expect(resumed.sessionId).toBe(sid);
          const s = statusAfterResume.find((x) => x['session_id'] === sid);
          expect(s, `status sessions: ${JSON.stringify(statusAfterResume)}`).toBeDefined();
          expect(statusAfterResume.map((x) => x['session_id'])).toEqual([sid]);
          expect(notesCommit, notesCommitOut).not.toBe('');
          const slot = slotOf(clone, linkedIds(clone, notesCommit), sid);
          expect(slot, `no slot for ${sid}: ${notesCommitOut}`).not.toBeNull();
          expect(slot!.metadata['files_touched']).toEqual(['notes.txt']);
          expect(slot!.prompt).toContain(PROMPTS.second);
          const want = expectedModel('SECOND');
          expect(want, modelInfo('SECOND')).toBeDefined();
          expect(slot!.metadata['model'], modelInfo('SECOND')).toBe(want);
        });
      });
    });

    defineTaskResume({ driver, bin: () => cli!.bin, world: () => world, server: () => server, apiKey: API_KEY, enabledRepo, homes, sessions });

    if (driver.subagents) {
      describe('foreground subagent (B.3)', () => {
        let repo: Repo;
        let agent: AgentRun;
        let steps: ReturnType<typeof shadowSteps> = [];
        let commitOut = '';
        let commit = '';
        let statusAfter: Record<string, unknown>[] = [];

        beforeAll(async () => {
          repo = enabledRepo('project-fg', homeA);
          agent = await startAgent(PROMPTS.foreground, repo, homeA);
          steps = shadowSteps(repo);
          statusAfter = statusSessions(repo);
          repo.gitResult(['add', 'fg.txt']);
          const c = repo.gitResult(['commit', '-m', 'Add fg.txt']);
          commitOut = c.stdout + c.stderr;
          commit = c.status === 0 ? repo.git(['rev-parse', 'HEAD']).trim() : '';
        });

        it('the subagent ran and wrote fg.txt (precondition)', () => {
          expect(agent.status, runInfo(agent)).toBe(0);
          expect(requestsOf('SUBFG').length, 'subagent model requests').toBeGreaterThan(0);
          expect(repo.exists('fg.txt')).toBe(true);
        });

        it('a task step with the subagent transcript is on the shadow branch', () => {
          const task = steps.find((s) => s.body.includes(`Entire-Metadata-Task: .entire/metadata/${agent.sessionId}/tasks/`));
          expect(task, steps.map((s) => `${s.subject}\n${s.body}`).join('\n---\n')).toBeDefined();
          // the subagent's own transcript (JSONL, or a child session's export document)
          const file = task!.paths.find((p) => /^\.entire\/metadata\/[^/]+\/tasks\/[A-Za-z0-9_-]+\/agent-[A-Za-z0-9_-]+\.jsonl?$/.test(p));
          expect(file, task!.paths.join('\n')).toBeDefined();
          expect(task!.paths).toContain('fg.txt');
          // …and it is the subagent's conversation: its prompt and its answer
          const stored = repo.git(['show', `${task!.sha}:${file}`]);
          expect(stored).toContain('ETIER-SUBFG');
          expect(stored).toContain('subagent finished fg');
        });

        it('the subagent is never a session of its own (one session state, one slot)', () => {
          expect(statusAfter.map((x) => x['session_id']), JSON.stringify(statusAfter)).toEqual([agent.sessionId]);
          const slots = commit ? linkedIds(repo, commit).flatMap((id) => slotsOf(repo, id)) : [];
          expect(slots.map((x) => x.metadata['session_id'])).toEqual([agent.sessionId]);
        });

        it("committing the subagent's file links the session, with its files and the subagent's tokens", () => {
          expect(commit, commitOut).not.toBe('');
          const slot = slotOf(repo, linkedIds(repo, commit), agent.sessionId);
          expect(slot, commitOut).not.toBeNull();
          expect(slot!.metadata['files_touched']).toEqual(['fg.txt']);
          const usage = slot!.metadata['token_usage'] as Record<string, unknown> | undefined;
          if (driver.subagentTokens === 'separate') {
            // the subagent script makes two calls (write, answer)
            expect((usage?.['subagent_tokens'] as Record<string, unknown> | undefined)?.['api_call_count'], JSON.stringify(usage)).toBe(2);
          } else {
            // the session's file records the subagent's calls with its own: all four of the turn
            expect(usage?.['api_call_count'], JSON.stringify(usage)).toBe(requestsOf('FG').length + requestsOf('SUBFG').length);
          }
        });
      });

    }

    if (driver.backgroundSubagents) {
      describe('background subagent that writes after the first Stop (B.5, B3)', () => {
        let repo: Repo;
        let agent: AgentRun;
        let steps: ReturnType<typeof shadowSteps> = [];
        let statusAfter: Record<string, unknown>[] = [];
        let commitOut = '';
        let commit = '';

        beforeAll(async () => {
          repo = enabledRepo('project-bg', homeA);
          agent = await startAgent(PROMPTS.background, repo, homeA);
          steps = shadowSteps(repo);
          statusAfter = statusSessions(repo);
          repo.gitResult(['add', 'bg.txt']);
          const c = repo.gitResult(['commit', '-m', 'Add bg.txt']);
          commitOut = c.stdout + c.stderr;
          commit = c.status === 0 ? repo.git(['rev-parse', 'HEAD']).trim() : '';
        });

        it('the background subagent wrote bg.txt after the first Stop (precondition)', () => {
          expect(agent.status, runInfo(agent)).toBe(0);
          expect(repo.exists('bg.txt'), runInfo(agent)).toBe(true);
          const firstStop = hookLog(repo).find((l) => l.msg === 'hook completed' && l.hook === `${driver.key} ${driver.turnEndVerb}`);
          expect(firstStop?.time, 'no turn-end hook in the log').toBeDefined();
          // ordering of two recorded events, not a duration: the scenario needs the write to come second
          expect(statSync(join(repo.dir, 'bg.txt')).mtimeMs).toBeGreaterThan(Date.parse(firstStop!.time!));
          // the completion came back as a second turn
          expect(driver.answerOf(agent)).toContain('Done: the background subagent wrote bg.txt.');
        });

        it('a subagent step records the background task once it completes (B.5)', () => {
          const task = steps.find((s) => s.body.includes(`Entire-Metadata-Task: .entire/metadata/${agent.sessionId}/tasks/`));
          expect(task, steps.map((s) => `${s.subject}\n${s.body}`).join('\n---\n') || '(no shadow steps)').toBeDefined();
          expect(task!.paths).toContain('bg.txt');
        });

        it("committing the background agent's file links the session with bg.txt in files_touched (B3)", () => {
          expect(commit, commitOut).not.toBe('');
          const ids = linkedIds(repo, commit);
          expect(ids, `commit message:\n${repo.git(['log', '-1', '--format=%B', commit || 'HEAD'])}`).not.toEqual([]);
          const slot = slotOf(repo, ids, agent.sessionId);
          expect(slot, `no slot for ${agent.sessionId}`).not.toBeNull();
          expect(slot!.metadata['files_touched']).toContain('bg.txt');
        });

        it('the <task-notification> is never taken for a prompt', () => {
          const s = statusAfter.find((x) => x['session_id'] === agent.sessionId);
          if (s !== undefined) expect(s['first_prompt']).toBe(PROMPTS.background);
          for (const step of steps) expect(step.subject).not.toContain('<task-notification>');
          const slot = slotOf(repo, commit ? linkedIds(repo, commit) : [], agent.sessionId);
          if (slot !== null) expect(slot.prompt).not.toContain('<task-notification>');
          const ex = repo.entire(['explain', '--commit', commit || 'HEAD']);
          expect(ex.stdout).not.toMatch(/Prompt: .*<task-notification>/);
        });
      });
    }

    describe('every repository of the run', () => {
      it('has no dangling trailer: every Entire-Checkpoint on the branches resolves', () => {
        for (const r of repos) {
          const bad = trailersOnBranches(r).filter((t) => !t.resolves);
          expect(bad, r.dir).toEqual([]);
          const doctor = r.entire(['doctor']);
          expect(doctor.stdout + doctor.stderr, `entire doctor in ${r.dir}`).not.toContain('dangling-trailer');
        }
      });

      it('hooks logged no errors', () => {
        for (const r of repos) expect(errorsIn(hookLog(r)), r.dir).toEqual([]);
      });

      it('the CLI called only model-API routes the scripted server knows (drift shows here)', () => {
        expect(server.unknown().map((q) => `${q.method} ${q.url}`)).toEqual([]);
      });
    });
  });
}

/** The model a request names: its JSON body's `model`, else a Gemini URL's `/models/<model>:`. */
function requestModel(q: LoggedRequest): string | undefined {
  const body = q.body;
  if (body !== null && typeof body === 'object' && typeof (body as Record<string, unknown>)['model'] === 'string') return (body as Record<string, string>)['model'];
  return /\/models\/([^:/?]+):/.exec(q.url)?.[1];
}

/**
 * null if `stored` is `real`'s beginning, line for line, where a stored line
 * may have REDACTED in place of any text; else where they part.
 */
function prefixProblem(stored: string, real: string): string | null {
  const a = stored.replace(/\n$/, '').split('\n');
  const b = real.split('\n');
  if (a.length > b.length) return `stored has ${a.length} lines, the real file ${b.length}`;
  for (let i = 0; i < a.length; i++) {
    if (a[i] === b[i]) continue;
    const pattern = new RegExp(`^${a[i]!.split('REDACTED').map((x) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.+?')}$`, 's');
    if (!pattern.test(b[i]!)) return `line ${i + 1} differs:\n  stored: ${a[i]!.slice(0, 600)}\n  real:   ${b[i]!.slice(0, 600)}`;
  }
  return null;
}
