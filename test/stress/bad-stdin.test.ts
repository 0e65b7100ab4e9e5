/**
 * Bad hook input (issue 6 §3): every hook verb of every agent, and every git
 * hook, fed empty, truncated, non-JSON, deeply nested, 100 MB and non-UTF-8
 * stdin, plus session ids with `/`, `..` and 300 characters. Each run exits
 * 0 with at most one stderr line and no stack trace, leaves a clear log
 * line, and writes nothing outside `.git/` and `.entire/` (the work tree and
 * HOME are fingerprinted before and after; the user cache dir is allowed).
 */
import { describe, it, expect, afterAll, beforeAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { CLI, cleanupAll, type TempRepo } from '../helpers/repo.js';
import { FakeClaude } from '../helpers/agent.js';
import { enabledRepo } from '../e2e/helpers.js';
import { getAgent, listAgents } from '../../src/agents/registry.js';
import { count, expectQuiet, logLines, snapshot, diffSnapshots, expectFsck, statesParse, leftovers } from './helpers.js';

afterAll(cleanupAll);

const MB100 = (() => {
  const b = Buffer.alloc(100 * 1024 * 1024, 0x61);
  Buffer.from('{"session_id":"big","prompt":"').copy(b, 0);
  return b;
})();
const DEPTH = 100_000;
const nested = '['.repeat(DEPTH) + ']'.repeat(DEPTH);

function inputs(agent: FakeClaude): Record<string, string | Buffer> {
  const base = { session_id: agent.sessionId, transcript_path: agent.transcriptPath, cwd: agent.cwd };
  const full = JSON.stringify({ ...base, prompt: 'hello', tool_use_id: 'toolu_1', tool_input: { description: 'd' } });
  return {
    empty: '',
    truncated: full.slice(0, Math.floor(full.length / 2)),
    'non-JSON': 'this is not json\n\x00\x01',
    'JSON array': '[1,2,3]',
    'deeply nested': `{"session_id":"${agent.sessionId}","conversation_id":"c1","tool_use_id":"toolu_1","tool_input":{"x":${nested}},"tool_response":${nested},"prompt":"p"}`,
    'deeply nested top level': nested,
    '100 MB': MB100,
    'non-UTF-8': Buffer.concat([Buffer.from(`{"session_id":"${agent.sessionId}","conversation_id":"c\xff","prompt":"`), Buffer.from([0xc3, 0x28, 0xff, 0xfe, 0xed, 0xa0, 0x80]), Buffer.from('","transcript_path":"'), Buffer.from([0xff, 0x2f]), Buffer.from('"}')]),
    'wrong types': JSON.stringify({ session_id: 42, transcript_path: ['x'], tool_input: 'str', prompt: { a: 1 } }),
    'session id with /': JSON.stringify({ ...base, session_id: '../../../outside/evil', conversation_id: 'a/b', prompt: 'p', tool_use_id: 'toolu_1' }),
    'session id ..': JSON.stringify({ ...base, session_id: '..', conversation_id: '..', prompt: 'p', tool_use_id: 'toolu_1' }),
    'session id of 300 chars': JSON.stringify({ ...base, session_id: 's'.repeat(300), conversation_id: 'c'.repeat(300), prompt: 'p', tool_use_id: 'toolu_1' }),
    'session id of 200 chars': JSON.stringify({ ...base, session_id: 'm'.repeat(200), conversation_id: 'm'.repeat(200), prompt: 'p', tool_use_id: 'toolu_1' }),
    'tool_use_id with ../': JSON.stringify({ ...base, tool_use_id: '../../x', tool_input: { description: 'd' }, tool_response: { agentId: '../../../etc/passwd' } }),
    'transcript path outside': JSON.stringify({ ...base, transcript_path: '/etc/passwd', prompt: 'p' }),
  };
}

let r: TempRepo;
let agent: FakeClaude;
const skipCache = (rel: string) => rel === '.cache/entire' || rel.startsWith('.cache/entire/');
const skipOurs = (rel: string) => rel === '.git' || rel === '.entire' || rel.startsWith('.git/') || rel.startsWith('.entire/');

beforeAll(() => {
  r = enabledRepo();
  agent = new FakeClaude(r);
  agent.prompt('a live session');
  agent.write('a.go', 'package a\n');
  agent.say('ok');
  agent.stop();
});

function runHook(args: string[], input: string | Buffer, what: string): void {
  // pre-push announces itself (SPEC §6.9), then at most one warning line
  const maxLines = args[2] === 'pre-push' ? 2 : 1;
  count('bad inputs');
  const treeBefore = snapshot(r.dir, skipOurs);
  const homeBefore = snapshot(r.home, skipCache);
  const logBefore = logLines(r).length;
  const res = spawnSync(process.execPath, [CLI, ...args], { cwd: r.dir, env: r.env, input, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  // a hook that stops reading an oversized input closes the pipe: EPIPE for the writer only
  if (res.error) expect((res.error as NodeJS.ErrnoException).code, `${what}: ${String(res.error)}`).toBe('EPIPE');
  expect(res.status, `${what}: exit status; stderr: ${res.stderr}`).toBe(0);
  expectQuiet(res.stderr, what, maxLines);
  const logs = logLines(r).slice(logBefore);
  expect(logs.length, `${what}: nothing logged`).toBeGreaterThan(0);
  if (res.stderr.trim() !== '') {
    expect(
      logs.some((l) => (l['level'] === 'ERROR' || l['level'] === 'WARN') && typeof l['error'] === 'string' && l['error'] !== ''),
      `${what}: the failure on stderr has no log line with its cause: ${JSON.stringify(logs)}`,
    ).toBe(true);
  }
  expect(diffSnapshots(treeBefore, snapshot(r.dir, skipOurs)), `${what}: wrote into the work tree`).toEqual([]);
  expect(diffSnapshots(homeBefore, snapshot(r.home, skipCache)), `${what}: wrote into HOME`).toEqual([]);
}

const HOOK_VERBS: Array<[string, readonly string[]]> = await Promise.all(listAgents().map(async (a) => [a.key, (await getAgent(a.key)).hookVerbs] as [string, readonly string[]]));

describe('every agent hook verb with bad stdin', () => {
  for (const [group, verbs] of HOOK_VERBS) {
    it(`${group}: ${verbs.length} verbs`, () => {
      for (const verb of verbs) {
        for (const [kind, input] of Object.entries(inputs(agent))) runHook(['hooks', group, verb], input, `${group} ${verb} <${kind}>`);
      }
      expectFsck(r);
      statesParse(r);
      expect(leftovers(r)).toEqual([]);
    });
  }

  it('an unknown verb and an unknown agent', () => {
    for (const [kind, input] of Object.entries({ empty: '', json: '{"session_id":"x"}' })) {
      runHook(['hooks', 'claude-code', 'no-such-verb'], input, `unknown verb <${kind}>`);
    }
  });
});

describe('git hook verbs with bad arguments and stdin', () => {
  it('prepare-commit-msg, commit-msg, post-commit, pre-push', () => {
    const dir = join(r.dir, '.git');
    const cases: [string[], string][] = [
      [['hooks', 'git', 'prepare-commit-msg'], 'no file argument'],
      [['hooks', 'git', 'prepare-commit-msg', join(dir, 'no-such-file')], 'missing message file'],
      [['hooks', 'git', 'prepare-commit-msg', dir], 'message file is a directory'],
      [['hooks', 'git', 'prepare-commit-msg', join(dir, 'no-such-file'), 'commit', 'not-a-rev'], 'bad revision'],
      [['hooks', 'git', 'commit-msg'], 'commit-msg without a file'],
      [['hooks', 'git', 'commit-msg', dir], 'commit-msg with a directory'],
      [['hooks', 'git', 'post-commit', 'extra', 'args'], 'post-commit with junk args'],
      [['hooks', 'git', 'pre-push'], 'pre-push without a remote'],
      [['hooks', 'git', 'pre-push', 'no-such-remote', '/no/such/url'], 'pre-push to a missing remote'],
      [['hooks', 'git', 'no-such-hook'], 'unknown git hook'],
    ];
    for (const [args, what] of cases) {
      for (const [kind, input] of Object.entries({ empty: '', garbage: 'x\x00y\n', '100 MB': MB100 })) runHook(args, input, `${what} <${kind}>`);
    }
    expectFsck(r);
  });
});
