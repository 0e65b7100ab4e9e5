/**
 * Gemini CLI in the real-agent tier: the shared scenarios (./suite.ts), then
 * what is Gemini's own: its shell commits with hooks off (SPEC-2 §B.8), so a
 * hook-less agent commit followed, in the same turn, by a commit with hooks on
 * must still be linked, by that commit's post-commit: the candidate paths come
 * from the live turn's transcript, not only `files_touched` (issue 25, point 8).
 */
import { randomUUID } from 'node:crypto';
import { symlinkSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { geminiDriver as driver } from './drivers/gemini.js';
import { startModelServer, type ModelServer } from './model-server.js';
import { PROMPTS, README_START } from './scripts.js';
import { defineAgentSuite } from './suite.js';
import { Repo, World, hookWorkersDone, run, type ProcResult } from './world.js';
import { commitWithSubject, hookLog, linkedIds, slotOf, trailerIds } from './checkpoints.js';

defineAgentSuite(driver);

const API_KEY = 'sk-etier-test-0123456789abcdefghijklmnopqrstuvwxyz';
const cli = inject('agentClis').agents[driver.key];
const only = (process.env['ENTIRE_AGENTS_ONLY'] ?? '').split(',').filter((k) => k !== '');

describe.skipIf(only.length > 0 && !only.includes(driver.key))(`${driver.displayName}: a hook-less commit, then a hooked one, in one turn (issue 25, point 8; real CLI)`, () => {
  let world: World;
  let server: ModelServer;
  let repo: Repo;
  let agent: ProcResult;
  let sid = '';
  let aCommit: string | null = null;
  let bCommit: string | null = null;
  let doctorOut = '';

  beforeAll(async () => {
    if (cli === undefined) throw new Error(`${driver.key} is not installed`);
    world = new World(`entire-agents-${driver.key}-own-`);
    symlinkSync(cli.bin, join(world.bin, basename(cli.bin)));
    server = await startModelServer({ dialects: [driver.dialect] });
    const home = world.home('home');
    repo = world.repo('project-hookless', home, README_START);
    driver.prepareHome(home, [repo.dir], API_KEY, server.url);
    const en = repo.entire(['enable', '--agent', driver.key]);
    if (en.status !== 0) throw new Error(`entire enable --agent ${driver.key} failed: ${en.stdout}${en.stderr}`);
    repo.git(['add', ...driver.enableFiles.filter((f) => repo.exists(f))]);
    repo.git(['commit', '-q', '-m', 'enable entire']);
    repo.git(['checkout', '-q', '-b', 'feature']);
    agent = await run(driver.startArgv(cli.bin, PROMPTS.hooklessThenHooked, randomUUID()), {
      cwd: repo.dir,
      env: world.env(home, driver.env(server.url, API_KEY)),
      timeoutMs: 150_000,
    });
    await hookWorkersDone(repo.dir);
    sid = driver.sessionIdOf(agent, '');
    aCommit = commitWithSubject(repo, 'Add a.go');
    bCommit = commitWithSubject(repo, 'Add b.go');
    doctorOut = repo.entire(['doctor', '--json']).stdout;
  });

  afterAll(async () => {
    await server?.close();
    world?.cleanup();
  });

  const runInfo = () => `exit ${agent.status}\nstdout: ${agent.stdout.slice(-2000)}\nstderr: ${agent.stderr.slice(-3000)}\nlog: ${repo.git(['log', '--format=%h %s'])}`;

  it('the agent committed a.go with hooks off, then b.go with hooks on (precondition)', () => {
    expect(agent.status, runInfo()).toBe(0);
    expect(sid, 'session id').not.toBe('');
    expect(aCommit, runInfo()).not.toBeNull();
    expect(bCommit, runInfo()).not.toBeNull();
    expect(repo.git(['rev-parse', `${bCommit}^`]).trim()).toBe(aCommit);
    expect(trailerIds(repo.git(['log', '-1', '--format=%B', aCommit!])), 'hooks off: no trailer').toEqual([]);
    expect(trailerIds(repo.git(['log', '-1', '--format=%B', bCommit!])), 'hooks on: a trailer').toHaveLength(1);
  });

  it("a.go's commit is linked by a note to a checkpoint of the session holding a.go and the prompt", () => {
    const ids = linkedIds(repo, aCommit ?? 'HEAD');
    expect(ids, runInfo()).toHaveLength(1);
    const slot = slotOf(repo, ids, sid);
    expect(slot, `no slot for session ${sid} in ${ids.join(', ')}`).not.toBeNull();
    expect(slot!.metadata['agent']).toBe(driver.displayName);
    expect(slot!.metadata['files_touched']).toEqual(['a.go']);
    expect(slot!.prompt).toContain(PROMPTS.hooklessThenHooked);
    expect(new Set([...ids, ...linkedIds(repo, bCommit ?? 'HEAD')]).size, 'two checkpoints').toBe(2);
  });

  it("b.go's post-commit linked it, before the turn ended", () => {
    const linked = hookLog(repo).filter((l) => l.msg === 'linked a commit made without hooks');
    expect(linked.map((l) => l.hook), JSON.stringify(linked)).toEqual(['post-commit']);
  });

  it('entire doctor lists no unlinked commit', () => {
    const doc = JSON.parse(doctorOut) as { findings: { kind: string }[] };
    expect(doc.findings.filter((f) => f.kind === 'unlinked-commit' || f.kind === 'dangling-trailer')).toEqual([]);
  });
});
