/**
 * SPEC-2 §F.3: `entire resume --exec` when the agent itself reports the session missing (the
 * restored transcript is not where it looks, or it was deleted): a stand-in `claude` on PATH
 * answers `-r` as claude 2.1 does (stderr, exit 1), and the fallback's new session gets the seed
 * in front of the prompt the args carried. Each adapter's detection and argv mapping is checked
 * on the facts recorded in docs/agents.md.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { chmodSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupAll, tempDir } from '../helpers/repo.js';
import { FakeClaude } from '../helpers/agent.js';
import { enabledRepo, commit, headMessage, trailerIds } from '../e2e/helpers.js';
import { getAgent } from '../../src/agents/registry.js';

afterAll(cleanupAll);

/** A `claude` that has no conversation for `-r <sid>` and records the argv of any other run. */
function claudeWithoutSessions(): { dir: string; log: string } {
  const dir = tempDir('fake-claude-');
  const log = join(dir, 'argv.txt');
  writeFileSync(
    join(dir, 'claude'),
    `#!/bin/sh
if [ "$1" = -r ]; then echo "No conversation found with session ID: $2" >&2; exit 1; fi
for a in "$@"; do printf '%s\\0' "$a"; done > '${log}'
exit 0
`,
  );
  chmodSync(join(dir, 'claude'), 0o755);
  return { dir, log };
}

describe('resume --exec: the agent reports the session missing (SPEC-2 §F.3)', () => {
  it('falls back to a new headless session whose first prompt is the seed, then the prompt of the args', () => {
    const r = enabledRepo();
    const a = new FakeClaude(r);
    a.hookEnv = { ENTIRE_TASK_ID: 'T-nf' };
    a.prompt('Create c.txt with the answer');
    a.write('c.txt', '42\n');
    a.say('Created c.txt.');
    expect(a.stop().status).toBe(0);
    r.git(['add', 'c.txt']);
    expect(commit(r, ['-m', 'c']).status).toBe(0);
    const [id] = trailerIds(headMessage(r));
    rmSync(a.transcriptPath);
    const bin = claudeWithoutSessions();
    const env = { PATH: `${bin.dir}:${process.env['PATH']}` };

    const res = r.entire(['resume', '--task', 'T-nf', '--exec', '--', '-p', 'continue please', '--model', 'x'], { env });
    expect(res.status, res.stderr).toBe(0);
    // the agent's own message reaches the user, then ours
    expect(res.stderr).toContain(`No conversation found with session ID: ${a.sessionId}`);
    expect(res.stdout).toContain(`To continue this session, run:\n  claude -r ${a.sessionId}\n`);
    expect(res.stdout).toContain(`Cannot resume Claude Code session ${a.sessionId}: claude has no such conversation.`);
    expect(res.stdout).toContain('Start a new session with its context:');
    const argv = readFileSync(bin.log, 'utf8').split('\0').slice(0, -1);
    expect(argv[0]).toBe('-p');
    expect(argv.slice(2)).toEqual(['--model', 'x']);
    // the context is quoted data with an end marker (issue 25 #3a)
    expect(argv[1]).toMatch(new RegExp(`^Continue the work of an earlier Claude Code session \\(Entire checkpoint ${id}\\)\\. Its context:\\n`));
    expect(argv[1]).toContain('\n\n> ## Execution Register\n');
    expect(argv[1]).toContain('> - **Goal:** Create c.txt with the answer');
    expect(argv[1]).toMatch(/\n\(end of Entire notes\)\n\ncontinue please$/);
  });

  it('a failing run that is not a missing session is passed through: its status, no fallback', () => {
    const r = enabledRepo();
    const a = new FakeClaude(r);
    a.hookEnv = { ENTIRE_TASK_ID: 'T-err' };
    a.prompt('Create d.txt');
    a.write('d.txt', 'd\n');
    a.say('ok');
    expect(a.stop().status).toBe(0);
    r.git(['add', 'd.txt']);
    expect(commit(r, ['-m', 'd']).status).toBe(0);
    const dir = tempDir('fake-claude-err-');
    writeFileSync(join(dir, 'claude'), '#!/bin/sh\necho "API Error: 529 overloaded" >&2\nexit 3\n');
    chmodSync(join(dir, 'claude'), 0o755);
    const res = r.entire(['resume', '--task', 'T-err', '--exec', '--', '-p', 'go on'], { env: { PATH: `${dir}:${process.env['PATH']}` } });
    expect(res.status).toBe(3);
    expect(res.stderr).toContain('API Error: 529 overloaded');
    expect(res.stdout).not.toContain('Cannot resume');
  });
});

describe('threads linked by a note (SPEC-2 §D.3, §D.5)', () => {
  it("a commit the agent's shell made with hooks off is found by --task and --commit through its note", () => {
    const r = enabledRepo();
    const a = new FakeClaude(r);
    a.hookEnv = { ENTIRE_TASK_ID: 'T-note' };
    a.prompt('Create e.txt and commit it');
    a.write('e.txt', 'e\n');
    r.git(['add', 'e.txt']);
    // as Gemini CLI's shell does: git with hooks off, no trailer
    expect(r.gitResult(['-c', 'core.hooksPath=/dev/null', 'commit', '-q', '-m', 'e']).status).toBe(0);
    a.bash('git commit -m e');
    a.say('Committed e.txt.');
    expect(a.stop().status).toBe(0);
    expect(headMessage(r)).not.toContain('Entire-Checkpoint:');
    const note = r.gitResult(['notes', '--ref=refs/notes/entire', 'show', 'HEAD']);
    expect(note.status, 'the turn end links the commit by a note').toBe(0);
    const [id] = note.stdout.match(/[0-9a-f]{12}/) ?? [];
    // the live state is gone (another clone): only the note leads to the thread
    rmSync(join(r.dir, '.git', 'entire-sessions'), { recursive: true, force: true });
    for (const args of [['--task', 'T-note'], ['--commit', 'HEAD']]) {
      const list = r.entire(['resume', ...args, '--list', '--json']);
      expect(list.status, list.stderr).toBe(0);
      expect((JSON.parse(list.stdout) as { threads: unknown[] }).threads, args.join(' ')).toEqual([expect.objectContaining({ session_id: a.sessionId, task_id: 'T-note', checkpoints: [id] })]);
    }
  });
});

describe("each adapter's not-found detection and headless argv (docs/agents.md)", () => {
  const SID = '11111111-2222-4333-8444-555555555555';
  const cases: { key: string; missing: { status: number; stderr: string }; other: { status: number; stderr: string } }[] = [
    { key: 'claude-code', missing: { status: 1, stderr: `No conversation found with session ID: ${SID}\n` }, other: { status: 1, stderr: 'API Error: 500\n' } },
    { key: 'gemini', missing: { status: 42, stderr: 'Error resuming session: No previous sessions found for this project.\n' }, other: { status: 1, stderr: 'Error when talking to Gemini API\n' } },
    { key: 'codex', missing: { status: 1, stderr: `Error: thread/resume: thread/resume failed: no rollout found for thread id ${SID} (code -32600)\n` }, other: { status: 1, stderr: 'Error: stream error\n' } },
    { key: 'opencode', missing: { status: 1, stderr: '\u001b[91m\u001b[1mError: \u001b[0mSession not found\n' }, other: { status: 1, stderr: 'Error: provider failed\n' } },
    { key: 'copilot-cli', missing: { status: 1, stderr: `Error: No session, task, or name matched '${SID}'.\n` }, other: { status: 1, stderr: 'Error: model call failed\n' } },
  ];
  for (const c of cases) {
    it(`${c.key}: reports a missing session, not other failures or success`, async () => {
      const a = await getAgent(c.key);
      expect(a.resumeFailure?.(c.missing)).toMatch(/\S/);
      expect(a.resumeFailure?.(c.other)).toBeNull();
      expect(a.resumeFailure?.({ status: 0, stderr: c.missing.stderr.replace(/^.*$/m, 'the user pasted it') })).toBeNull();
    });
  }

  it('the argv `--exec` runs: appended where the resume command takes them, the headless form where it is a TUI', async () => {
    const exec = async (key: string, args: string[]) => {
      const a = await getAgent(key);
      return a.execResumeArgv?.(SID, args) ?? [...a.resumeArgv(SID), ...args];
    };
    expect(await exec('claude-code', ['-p', 'go'])).toEqual(['claude', '-r', SID, '-p', 'go']);
    expect(await exec('gemini', ['-p', 'go'])).toEqual(['gemini', '--resume', SID, '-p', 'go']);
    expect(await exec('copilot-cli', ['-p', 'go'])).toEqual(['copilot', `--resume=${SID}`, '-p', 'go']);
    expect(await exec('codex', ['--json', 'go'])).toEqual(['codex', 'exec', 'resume', SID, '--json', 'go']);
    expect(await exec('codex', [])).toEqual(['codex', 'resume', '--', SID]);
    expect(await exec('opencode', ['go', 'on'])).toEqual(['opencode', 'run', '--session', SID, 'go', 'on']);
    expect(await exec('opencode', [])).toEqual(['opencode', '-s', SID]);
  });

  it('the fallback argv: the seed before the prompt of the args, in the headless start form', async () => {
    const start = async (key: string, args: string[]) => (await getAgent(key)).startExecArgv!('SEED', args);
    expect(await start('claude-code', ['-p', 'go', '--model', 'm'])).toEqual(['claude', '-p', 'SEED\n\ngo', '--model', 'm']);
    expect(await start('gemini', ['-p', 'go', '-m', 'm'])).toEqual(['gemini', '-p', 'SEED\n\ngo', '-m', 'm']);
    expect(await start('gemini', ['--prompt=go'])).toEqual(['gemini', '--prompt=SEED\n\ngo']);
    expect(await start('copilot-cli', ['-p', 'go', '--allow-all-tools'])).toEqual(['copilot', '-p', 'SEED\n\ngo', '--allow-all-tools']);
    expect(await start('codex', ['--json', 'go'])).toEqual(['codex', 'exec', '--json', 'SEED\n\ngo']);
    expect(await start('opencode', ['--format', 'json', 'go', 'on'])).toEqual(['opencode', 'run', 'SEED', '--format', 'json', 'go', 'on']);
    // no prompt among the args: the interactive start form, the args after it
    expect(await start('gemini', ['--yolo'])).toEqual(['gemini', '-i', 'SEED', '--yolo']);
    // and the printed (interactive) forms of SPEC-2 §F.3
    const printed = await Promise.all(['claude-code', 'gemini', 'codex', 'opencode', 'copilot-cli'].map(async (k) => (await getAgent(k)).startArgv?.('SEED')));
    expect(printed).toEqual([['claude', 'SEED'], ['gemini', '-i', 'SEED'], ['codex', 'SEED'], ['opencode', '--prompt', 'SEED'], ['copilot', '-i', 'SEED']]);
  });
});
