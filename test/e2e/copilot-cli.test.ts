/**
 * Copilot CLI 1.0.102 end to end through the built CLI (SPEC-2 §C.3, C1, C4,
 * C5): `enable --agent copilot-cli`, then the real hook payloads replayed
 * (test/fixtures/real-agents/copilot-cli/, their paths moved to this test's
 * directories) against the real events file, in both orders the CLI sends
 * the turn's first two hooks, and concurrently.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CLI, cleanupAll, FIXTURES, makeRepo, type TempRepo } from '../helpers/repo.js';
import { shadowBranches, stateOf, expectClean } from './helpers.js';

afterAll(cleanupAll);

const REAL = join(FIXTURES, 'real-agents', 'copilot-cli');
const SID = '81fca3c4-a042-4aaf-8375-86dabc9dca40';
const PROMPT = 'Please say hello: create hello.txt and commit it.';

interface Payload {
  run: string;
  event: string;
  stdin: Record<string, unknown>;
}

const VERB: Record<string, string> = {
  sessionStart: 'session-start',
  userPromptSubmitted: 'user-prompt-submitted',
  agentStop: 'agent-stop',
  sessionEnd: 'session-end',
};

function copilotRepo(): { r: TempRepo; home: string; enableOut: string } {
  const r = makeRepo();
  const home = join(dirname(r.dir), 'copilot-home');
  r.write('README.md', 'A demo repo.\n');
  r.commitAll('readme');
  const en = r.entire(['enable', '--agent', 'copilot-cli']);
  expect(en.status, en.stderr).toBe(0);
  return { r, home, enableOut: en.stdout };
}

/** The captured payloads of the new session, paths moved: repo → r.dir, the CLI's home → `home`. */
function payloads(r: TempRepo, home: string): Payload[] {
  return readFileSync(join(REAL, 'hook-payloads.jsonl'), 'utf8')
    .split('/tmp/ra/dp1/out/copilot-home')
    .join(home)
    .split('/tmp/ra/dp1/repo')
    .join(r.dir)
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Payload)
    .filter((p) => p.run === 'copilot -p (new session)' && VERB[p.event] !== undefined);
}

/** The sample events file as this session's, up to `lines` lines. */
function writeEvents(r: TempRepo, home: string, lines?: number): string {
  const text = readFileSync(join(REAL, 'events-sample.jsonl'), 'utf8')
    .split('ee026e9a-1607-4031-a8f3-2deb5c0e846d')
    .join(SID)
    .split('/tmp/ra/cp1/repo')
    .join(r.dir);
  const dir = join(home, 'session-state', SID);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'events.jsonl');
  const all = text.split('\n');
  writeFileSync(file, lines === undefined ? text : all.slice(0, lines).join('\n') + '\n');
  return file;
}

function hook(r: TempRepo, home: string, p: Payload, env: Record<string, string> = {}) {
  const res = r.entire(['hooks', 'copilot-cli', VERB[p.event]!], { input: JSON.stringify(p.stdin), env: { COPILOT_HOME: home, ...env } });
  expect(res.status, res.stderr).toBe(0);
  expect(res.stderr).toBe('');
  return res;
}

function hookAsync(r: TempRepo, home: string, p: Payload): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'hooks', 'copilot-cli', VERB[p.event]!], { cwd: r.dir, env: { ...r.env, COPILOT_HOME: home } });
    child.on('error', reject);
    child.on('exit', (code) => resolve(code ?? -1));
    child.stdin.end(JSON.stringify(p.stdin));
  });
}

function sessionFiles(r: TempRepo): string[] {
  return readdirSync(join(r.dir, '.git', 'entire-sessions')).filter((n) => n.endsWith('.json'));
}

describe('entire debug transcript on the real events file (C1)', () => {
  it("gives the README's expected values, model included; the agent is recognised without --agent", () => {
    const { r } = copilotRepo();
    for (const args of [['--agent', 'copilot-cli'], []]) {
      const res = r.entire(['debug', 'transcript', join(REAL, 'events-sample.jsonl'), ...args]);
      expect(res.status, res.stderr).toBe(0);
      expect(JSON.parse(res.stdout)).toEqual({
        position: 46,
        last_identifier: '16345e9d-a4ae-4fd8-acc6-35b62e9b0e97',
        modified_files: ['hello.txt', 'README.md'],
        prompts: [PROMPT],
        token_usage: { input_tokens: 5400, cache_creation_tokens: 0, cache_read_tokens: 0, output_tokens: 160, api_call_count: 4 },
        model: 'gpt-4.1',
      });
    }
  });
});

describe('enable --agent copilot-cli (C4)', () => {
  it('writes only .github/hooks/entire.json (besides Entire\'s own files), says trust is needed, and a rerun changes nothing', () => {
    const r = makeRepo();
    r.write('.github/hooks/team.json', '{"version":1,"hooks":{"agentStop":[{"type":"command","bash":"./audit.sh"}]}}\n');
    r.write('.github/workflows/ci.yml', 'on: push\n');
    r.commitAll('team files');
    const en = r.entire(['enable', '--agent', 'copilot-cli']);
    expect(en.status, en.stderr).toBe(0);
    expect(en.stdout).toContain('✓ Copilot CLI hooks installed (.github/hooks/entire.json)');
    expect(en.stdout).toContain(`! Copilot CLI runs these hooks only in a trusted folder: start \`copilot\` in ${r.dir}`);
    const changed = r
      .git(['status', '--porcelain', '--untracked-files=all'])
      .trim()
      .split('\n')
      .map((l) => l.slice(3))
      .filter((p) => !p.startsWith('.entire/'));
    expect(changed).toEqual(['.github/hooks/entire.json']);
    const text = readFileSync(join(r.dir, '.github/hooks/entire.json'), 'utf8');
    expect(JSON.parse(text).hooks.agentStop).toEqual([{ type: 'command', bash: 'entire hooks copilot-cli agent-stop', timeoutSec: 30 }]);
    const again = r.entire(['enable', '--agent', 'copilot-cli']);
    expect(again.status, again.stderr).toBe(0);
    expect(readFileSync(join(r.dir, '.github/hooks/entire.json'), 'utf8')).toBe(text);
    // trusted (as the CLI records it): no note
    mkdirSync(join(r.home, '.copilot'), { recursive: true });
    writeFileSync(join(r.home, '.copilot', 'config.json'), JSON.stringify({ trustedFolders: [r.dir] }));
    expect(r.entire(['enable', '--agent', 'copilot-cli']).stdout).not.toContain('trusted folder');
    // uninstall: ours go, the team's file stays byte-identical
    const dis = r.entire(['disable', '--uninstall', '--force']);
    expect(dis.status, dis.stderr).toBe(0);
    expect(r.git(['status', '--porcelain', '--untracked-files=all', '.github'])).toBe('');
    expect(readFileSync(join(r.dir, '.github/hooks/team.json'), 'utf8')).toBe('{"version":1,"hooks":{"agentStop":[{"type":"command","bash":"./audit.sh"}]}}\n');
  });
});

describe('a replayed headless turn (C5)', () => {
  it.each([
    ['session-start first', ['sessionStart', 'userPromptSubmitted']],
    ['user-prompt-submitted first (as on resume)', ['userPromptSubmitted', 'sessionStart']],
  ])('%s: one state, active, one turn; agent-stop → idle with a step', (_name, order) => {
    const { r, home } = copilotRepo();
    const ps = payloads(r, home);
    const by = (e: string) => ps.find((p) => p.event === e)!;
    writeEvents(r, home, 2);
    hook(r, home, by(order[0]!));
    hook(r, home, by(order[1]!));
    expect(sessionFiles(r)).toEqual([`${SID}.json`]);
    const s = stateOf(r, SID);
    expect(s).toMatchObject({ phase: 'active', agent_type: 'Copilot CLI', first_prompt: PROMPT, transcript_path: join(home, 'session-state', SID, 'events.jsonl') });
    const turn = s['turn_id'];
    expect(typeof turn).toBe('string');
    // a later session start changes neither the phase nor the turn
    hook(r, home, by('sessionStart'));
    expect(stateOf(r, SID)).toMatchObject({ phase: 'active', turn_id: turn });
    r.write('hello.txt', 'hello world\n');
    r.write('README.md', 'A demo repo.\n\nSee hello.txt.\n');
    writeEvents(r, home, 42); // up to agentStop's own record, as the CLI has written it when the hook runs
    hook(r, home, by('agentStop'), { ENTIRE_STOP_WAIT_MS: '3000' });
    const after = stateOf(r, SID);
    expect(after).toMatchObject({ phase: 'idle', checkpoint_count: 1 });
    expect([...(after['files_touched'] as string[])].sort()).toEqual(['README.md', 'hello.txt']);
    expect(shadowBranches(r)).toHaveLength(1);
    const log = readFileSync(join(r.dir, '.entire', 'logs', 'entire.log'), 'utf8');
    expect(log).toMatch(/"flush":"flushed"/);
    hook(r, home, by('sessionEnd'));
    expect(stateOf(r, SID)['phase']).toBe('ended');
    expectClean(r);
  });

  it('session-start and user-prompt-submitted run concurrently: one state, active, one turn', async () => {
    const { r, home } = copilotRepo();
    const ps = payloads(r, home);
    writeEvents(r, home, 2);
    const codes = await Promise.all([hookAsync(r, home, ps.find((p) => p.event === 'sessionStart')!), hookAsync(r, home, ps.find((p) => p.event === 'userPromptSubmitted')!)]);
    expect(codes).toEqual([0, 0]);
    expect(sessionFiles(r)).toEqual([`${SID}.json`]);
    expect(stateOf(r, SID)).toMatchObject({ phase: 'active', first_prompt: PROMPT });
  });
});
