/**
 * Copilot CLI in the real-agent tier: the shared scenarios (./suite.ts), then
 * what is Copilot's own (SPEC-2 §C.3, C4): repository hooks load only in a
 * trusted folder (and `enable` says so until then), `enable` twice changes
 * nothing, and `disable --uninstall` keeps the team's hooks running.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { copilotCliDriver as driver } from './drivers/copilot-cli.js';
import { startModelServer, type ModelServer } from './model-server.js';
import { README_START } from './scripts.js';
import { defineAgentSuite } from './suite.js';
import { Repo, World, run, type ProcResult } from './world.js';

defineAgentSuite(driver);

const API_KEY = 'sk-etier-test-0123456789abcdefghijklmnopqrstuvwxyz';
const cli = inject('agentClis').agents[driver.key];
const only = (process.env['ENTIRE_AGENTS_ONLY'] ?? '').split(',').filter((k) => k !== '');

describe.skipIf(only.length > 0 && !only.includes(driver.key))(`${driver.displayName}: trust, enable twice, uninstall (real CLI)`, () => {
  let world: World;
  let server: ModelServer;
  let repo: Repo;
  let home: string;
  const teamLog = () => join(world.base, 'team-hook.log');
  const teamHooks = () => `{"version":1,"hooks":{"agentStop":[{"type":"command","bash":"echo ran >> ${teamLog()}","timeoutSec":10}]}}\n`;
  const sessionStates = () => {
    const dir = join(repo.dir, '.git', 'entire-sessions');
    return existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith('.json')) : [];
  };
  /** `entire hooks …` calls the agent made (the world's shim records each). */
  const entireHookCalls = () => (existsSync(world.hookCapture) ? readFileSync(world.hookCapture, 'utf8').split('\n').filter((l) => l !== '').length : 0);
  const teamRuns = () => (existsSync(teamLog()) ? readFileSync(teamLog(), 'utf8').split('\n').filter((l) => l === 'ran').length : 0);

  /**
   * One headless run in `repo`; `trustAll` false leaves COPILOT_ALLOW_ALL out (the folder's trust
   * then decides). Returns once no session lock is held: hook work may outlive the agent.
   */
  async function copilot(prompt: string, trustAll: boolean): Promise<ProcResult> {
    const env = world.env(home, driver.env(server.url, API_KEY));
    if (!trustAll) delete env['COPILOT_ALLOW_ALL'];
    const res = await run(driver.startArgv(cli!.bin, prompt, ''), { cwd: repo.dir, env, timeoutMs: 120_000 });
    const locks = join(repo.dir, '.git', 'entire-sessions');
    const held = () => (existsSync(locks) ? readdirSync(locks).filter((n) => n.endsWith('.lock')) : []);
    for (const deadline = Date.now() + 60_000; held().length > 0; ) {
      if (Date.now() > deadline) throw new Error(`session locks still held: ${held().join(', ')}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    return res;
  }

  let firstEnable = '';
  let secondEnable = '';
  let trustedEnable = '';
  let fileAfterFirst = '';
  let fileAfterSecond = '';
  let statusAfterFirst = '';
  let statusAfterSecond = '';
  let untrusted: ProcResult;
  let statesUntrusted: string[] = [];
  let teamRunsUntrusted = 0;
  let trusted: ProcResult;
  let statesTrusted: string[] = [];
  let teamRunsTrusted = 0;
  let hookCallsTrusted = 0;
  let uninstall = '';
  let afterUninstall: ProcResult;
  let hookCallsAfterUninstall = 0;
  let teamRunsAfterUninstall = 0;

  beforeAll(async () => {
    if (cli === undefined) throw new Error(`${driver.key} is not installed`);
    world = new World(`entire-agents-${driver.key}-own-`);
    server = await startModelServer({ dialects: [driver.dialect] });
    home = world.home('home');
    repo = world.repo('project-trust', home, README_START);
    mkdirSync(join(repo.dir, '.github', 'hooks'), { recursive: true });
    writeFileSync(join(repo.dir, '.github', 'hooks', 'team.json'), teamHooks());
    repo.git(['add', '.github']);
    repo.git(['commit', '-q', '-m', 'team hooks']);

    const en1 = repo.entire(['enable', '--agent', driver.key]);
    firstEnable = en1.stdout + en1.stderr;
    fileAfterFirst = repo.read('.github/hooks/entire.json');
    statusAfterFirst = repo.git(['status', '--porcelain', '--untracked-files=all']);
    const en2 = repo.entire(['enable', '--agent', driver.key]);
    secondEnable = en2.stdout + en2.stderr;
    fileAfterSecond = repo.read('.github/hooks/entire.json');
    statusAfterSecond = repo.git(['status', '--porcelain', '--untracked-files=all']);

    // not trusted: the CLI runs, our hooks (and the team's) do not
    untrusted = await copilot('say hello', false);
    statesUntrusted = sessionStates();
    teamRunsUntrusted = teamRuns();

    // trusted as the CLI records a folder trusted "for future sessions"
    mkdirSync(join(home, '.copilot'), { recursive: true });
    writeFileSync(join(home, '.copilot', 'config.json'), JSON.stringify({ trustedFolders: [repo.dir] }, null, 2));
    const en3 = repo.entire(['enable', '--agent', driver.key]);
    trustedEnable = en3.stdout + en3.stderr;
    trusted = await copilot('say hello', false);
    statesTrusted = sessionStates();
    teamRunsTrusted = teamRuns();
    hookCallsTrusted = entireHookCalls();

    const un = repo.entire(['disable', '--uninstall', '--force']);
    uninstall = un.stdout + un.stderr;
    afterUninstall = await copilot('say hello', false);
    hookCallsAfterUninstall = entireHookCalls();
    teamRunsAfterUninstall = teamRuns();
  });

  afterAll(async () => {
    await server?.close();
    world?.cleanup();
  });

  it('enable in an untrusted folder says the hooks need trust, and how to grant it', () => {
    expect(firstEnable).toContain(`! Copilot CLI runs these hooks only in a trusted folder: start \`copilot\` in ${repo.dir}`);
  });

  it('…and indeed: untrusted, the CLI answers but runs no repository hook', () => {
    expect(untrusted.status, untrusted.stderr).toBe(0);
    expect(statesUntrusted).toEqual([]);
    expect(teamRunsUntrusted).toBe(0);
  });

  it('trusted through config.json trustedFolders: enable says nothing more, and the hooks run', () => {
    expect(trustedEnable).not.toContain('trusted folder');
    expect(trusted.status, trusted.stderr).toBe(0);
    expect(statesTrusted).toHaveLength(1);
    expect(hookCallsTrusted).toBe(4); // session-start, user-prompt-submitted, agent-stop, session-end
    expect(teamRunsTrusted).toBe(1);
  });

  it('enable twice changes nothing (C4)', () => {
    expect(secondEnable).toContain('Copilot CLI hooks installed (.github/hooks/entire.json)');
    expect(fileAfterSecond).toBe(fileAfterFirst);
    expect(statusAfterSecond).toBe(statusAfterFirst);
  });

  it('disable --uninstall removes our hooks and keeps the team\'s, which still run', () => {
    expect(uninstall).not.toMatch(/error/i);
    expect(repo.exists('.github/hooks/entire.json')).toBe(false);
    expect(repo.read('.github/hooks/team.json')).toBe(teamHooks());
    expect(afterUninstall.status, afterUninstall.stderr).toBe(0);
    expect(teamRunsAfterUninstall).toBe(2);
    expect(hookCallsAfterUninstall).toBe(hookCallsTrusted);
  });
});
