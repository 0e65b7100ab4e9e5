/**
 * Codex CLI: the shared scenarios (suite.ts; hooks run with
 * `--dangerously-bypass-hook-trust`), then the real trust path (SPEC-2 §C.1,
 * C3): with the real `codex` on PATH, `enable` reports the untrusted project
 * as `codex app-server` sees it, `--approve-agent-hooks` (confirmed at a
 * terminal) has Codex trust the project and approve each handler, after
 * which a plain `codex exec` runs our hooks; `enable` twice changes nothing;
 * `disable --uninstall` keeps a foreign handler.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { codexConfig, codexDriver, CODEX_KEY_VAR } from './drivers/codex.js';
import { defineAgentSuite } from './suite.js';
import { startModelServer, type ModelServer } from './model-server.js';
import { PROMPTS, README_START } from './scripts.js';
import { World, run, type Repo } from './world.js';
import { hookLog, statusSessions } from './checkpoints.js';

defineAgentSuite(codexDriver);

const cli = inject('agentClis').agents['codex'];

/** Until no session lock is held in the repository (bounded; a condition, not a fixed time). */
async function sessionLocksReleased(dir: string, timeoutMs = 60_000): Promise<void> {
  const sessions = join(dir, '.git', 'entire-sessions');
  const deadline = Date.now() + timeoutMs;
  const held = () => (existsSync(sessions) ? readdirSync(sessions).filter((n) => n.endsWith('.lock')) : []);
  while (held().length > 0) {
    if (Date.now() > deadline) throw new Error(`session locks still held after ${timeoutMs} ms: ${held().join(', ')}`);
    await new Promise((res) => setTimeout(res, 20));
  }
}
const only = (process.env['ENTIRE_AGENTS_ONLY'] ?? '').split(',').filter((k) => k !== '');

describe.skipIf(cli === undefined || (only.length > 0 && !only.includes('codex')))('Codex hook trust, through the real codex app-server (C3)', () => {
  let world: World;
  let server: ModelServer;
  let repo: Repo;
  let home: string;
  const out: Record<string, { status: number | null; stdout: string; stderr: string }> = {};
  let hooksAfterFirst = '';
  let hooksAfterSecond = '';
  let approvedConfig = '';
  let exec: { status: number | null; stdout: string; stderr: string } = { status: null, stdout: '', stderr: '' };
  let sessionsAfterExec: Record<string, unknown>[] = [];
  let stopLogged = false;
  let uninstalled: unknown;

  beforeAll(async () => {
    world = new World('entire-agents-codex-trust-');
    server = await startModelServer({ dialects: [codexDriver.dialect], logFile: join(world.base, 'model-requests.jsonl') });
    home = world.home('home-trust');
    repo = world.repo('project-trust', home, README_START);
    // a user of the scripted provider who has not trusted this project yet
    mkdirSync(join(home, '.codex'), { recursive: true });
    writeFileSync(join(home, '.codex', 'config.toml'), codexConfig(server.url, []));
    repo.env = { ...repo.env, PATH: `${dirname(cli!.bin)}:${repo.env['PATH']}`, [CODEX_KEY_VAR]: 'sk-etier-trust' };
    const entire = (name: string, args: string[], env: Record<string, string> = {}) => {
      const saved = repo.env;
      repo.env = { ...repo.env, ...env };
      const r = repo.entire(args);
      repo.env = saved;
      out[name] = { status: r.status, stdout: r.stdout, stderr: r.stderr };
    };
    entire('first', ['enable', '--agent', 'codex']);
    hooksAfterFirst = repo.read('.codex/hooks.json');
    entire('statusBefore', ['status']);
    entire('doctorBefore', ['doctor', '--json']);
    entire('approveNoTty', ['enable', '--agent', 'codex', '--approve-agent-hooks']);
    entire('approve', ['enable', '--agent', 'codex', '--approve-agent-hooks'], { ENTIRE_TEST_TTY: '1', ENTIRE_TEST_TTY_ANSWER: 'y' });
    approvedConfig = readFileSync(join(home, '.codex', 'config.toml'), 'utf8');
    entire('second', ['enable', '--agent', 'codex']);
    hooksAfterSecond = repo.read('.codex/hooks.json');
    entire('statusAfter', ['status']);
    repo.git(['add', '.codex/hooks.json', '.entire/settings.json', '.entire/.gitignore']);
    repo.git(['commit', '-q', '-m', 'enable entire']);
    // no --dangerously-bypass-hook-trust: the approvals are what lets our hooks run
    exec = await run([cli!.bin, 'exec', '--json', '--dangerously-bypass-approvals-and-sandbox', `${PROMPTS.standard} (${randomUUID()})`], {
      cwd: repo.dir,
      env: repo.env,
      timeoutMs: 150_000,
    });
    // a turn-end hook may leave its work to a detached worker that outlives the agent: wait for its lock
    await sessionLocksReleased(repo.dir);
    sessionsAfterExec = statusSessions(repo);
    stopLogged = hookLog(repo).some((l) => l.msg === 'hook completed' && l.hook === 'codex stop');
    // a foreign handler beside ours, then uninstall
    const doc = JSON.parse(repo.read('.codex/hooks.json'));
    doc.hooks.Stop.unshift({ hooks: [{ type: 'command', command: 'echo foreign', timeout: 5 }] });
    writeFileSync(join(repo.dir, '.codex', 'hooks.json'), JSON.stringify(doc, null, 2) + '\n');
    entire('uninstall', ['disable', '--uninstall', '--force']);
    uninstalled = JSON.parse(repo.read('.codex/hooks.json'));
  });

  afterAll(async () => {
    await server?.close();
    world?.cleanup();
  });

  const bangs = (s: string) => s.split('\n').filter((l) => l.startsWith('! Codex'));

  it('enable in an untrusted project says so, as Codex decides it; status and doctor report it', () => {
    expect(out['first']!.status, out['first']!.stderr).toBe(0);
    expect(bangs(out['first']!.stdout)).toEqual([
      '! Codex ignores .codex/hooks.json until this project is trusted',
      '! Codex runs 4 Entire hook(s) only after you approve them in codex (/hooks), or run: entire enable --agent codex --approve-agent-hooks',
    ]);
    expect(bangs(out['statusBefore']!.stdout)).toHaveLength(2);
    const findings = (JSON.parse(out['doctorBefore']!.stdout) as { findings: { kind: string }[] }).findings.map((f) => f.kind);
    expect(findings).toContain('agent-hooks-untrusted');
  });

  it('--approve-agent-hooks writes nothing without a terminal; confirmed, Codex trusts the project and approves each handler', () => {
    expect(out['approveNoTty']!.stdout).toContain('nothing was approved');
    expect(out['approve']!.status, out['approve']!.stderr).toBe(0);
    expect(out['approve']!.stdout).toContain(`✓ Codex trusts ${repo.dir}`);
    expect(out['approve']!.stdout).toContain('✓ Codex approved 4 Entire hook(s)');
    expect(approvedConfig).toContain(`[projects.${JSON.stringify(repo.dir)}]`);
    expect(approvedConfig.match(/trusted_hash = "sha256:[0-9a-f]{64}"/g)).toHaveLength(4);
    // the user's own settings survive Codex's rewrite
    expect(approvedConfig).toContain('model_provider = "local"');
  });

  it('enable twice changes nothing, and then reports no gap', () => {
    expect(hooksAfterSecond).toBe(hooksAfterFirst);
    expect(bangs(out['second']!.stdout)).toEqual([]);
    expect(bangs(out['statusAfter']!.stdout)).toEqual([]);
  });

  it('a plain codex exec then runs our hooks: the session is recorded with its prompt', () => {
    expect(exec.status, `${exec.stdout.slice(-2000)}\n${exec.stderr.slice(-2000)}`).toBe(0);
    const s = sessionsAfterExec.find((x) => x['agent'] === 'Codex');
    expect(s, JSON.stringify(sessionsAfterExec)).toBeDefined();
    expect(String(s!['first_prompt'])).toContain(PROMPTS.standard);
    expect(stopLogged, 'a "codex stop" hook in the log').toBe(true);
  });

  it('disable --uninstall removes only our handlers', () => {
    expect(out['uninstall']!.status, out['uninstall']!.stderr).toBe(0);
    expect(uninstalled).toEqual({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'echo foreign', timeout: 5 }] }] } });
  });
});
