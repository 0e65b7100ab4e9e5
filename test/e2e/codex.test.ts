/**
 * Codex CLI 0.169.0 end to end through the built CLI (SPEC-2 §C.1, C2, C7,
 * C8): the real hook payloads of a `codex exec` session and its `codex exec
 * resume` replayed in order against the real rollout as it grew (both from
 * test/fixtures/real-agents/codex/, `/tmp/ra/dc1` moved to this test's
 * directory), with the agent's file changes and its mid-turn commit in
 * between; then `resume` into a fresh Codex home.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { cleanupAll, FIXTURES, makeRepo, repoAt, tempDir, testEnv, type TempRepo } from '../helpers/repo.js';
import { commit, headMessage, trailerIds, showCheckpointFile, stateOf } from './helpers.js';

afterAll(cleanupAll);

const REAL = join(FIXTURES, 'real-agents', 'codex');
const SID = '01a21444-58d9-7c40-94d2-8eb005a2dc4d';
const PROMPT = 'Please say hello: create hello.txt and commit it.';
const ROLLOUT_NAME = `rollout-2026-11-25T19-52-33-${SID}.jsonl`;

interface Payload {
  run: string;
  event: string;
  stdin: Record<string, unknown>;
}

const VERB: Record<string, string> = {
  SessionStart: 'session-start',
  UserPromptSubmit: 'user-prompt-submit',
  Stop: 'stop',
  SessionEnd: 'session-end',
};

/** The capture's `/tmp/ra/dc1/` (holding `repo/` and `out/codex-home/`) moved to `base`. */
const relocated = (text: string, base: string) => text.split('/tmp/ra/dc1/').join(`${base}/`);

interface Replay {
  r: TempRepo;
  base: string;
  env: Record<string, string>;
  rollout: string;
  lines: string[];
  payloads: Payload[];
  /** Run the captured hook of `event` in `run` (new | resume). */
  hook(run: 'new' | 'resume', event: string): ReturnType<TempRepo['entire']>;
  /** The rollout as it stood after its first `n` lines. */
  grow(n: number): void;
}

function codexReplay(): Replay {
  const r = makeRepo();
  const base = dirname(r.dir);
  r.write('README.md', '# demo\n\nA demo repo.\n');
  r.commitAll('readme');
  const env = { CODEX_HOME: join(base, 'out', 'codex-home') };
  const en = r.entire(['enable', '--agent', 'codex'], { env });
  expect(en.status, en.stderr).toBe(0);
  r.git(['add', '.entire/settings.json', '.entire/.gitignore', '.codex/hooks.json']);
  r.git(['commit', '-q', '--no-verify', '-m', 'enable entire']);
  const rollout = join(env.CODEX_HOME, 'sessions', '2026', '11', '25', ROLLOUT_NAME);
  mkdirSync(dirname(rollout), { recursive: true });
  const lines = relocated(readFileSync(join(REAL, 'rollout-sample.jsonl'), 'utf8'), base).split('\n');
  const payloads = relocated(readFileSync(join(REAL, 'hook-payloads.jsonl'), 'utf8'), base)
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Payload);
  return {
    r,
    base,
    env,
    rollout,
    lines,
    payloads,
    hook(run, event) {
      const p = payloads.find((x) => x.event === event && (run === 'new') === x.run.startsWith('new'))!;
      // Stop waits (capped) for the answer on disk, as the real hook would
      const res = r.entire(['hooks', 'codex', VERB[event]!], { input: JSON.stringify(p.stdin), env: event === 'Stop' ? { ...env, ENTIRE_STOP_WAIT_MS: '3000' } : env });
      expect(res.status, res.stderr).toBe(0);
      expect(res.stderr).toBe('');
      return res;
    },
    grow(n) {
      writeFileSync(rollout, lines.slice(0, n).join('\n') + '\n');
    },
  };
}

/** Turn 1 as Codex ran it: write hello.txt, commit it from the shell mid-turn, edit README.md, answer. */
function firstTurn(x: Replay, opts: { stop?: boolean } = {}): { agentCommit: string } {
  x.grow(7);
  x.hook('new', 'SessionStart');
  x.grow(9);
  x.hook('new', 'UserPromptSubmit');
  x.r.write('hello.txt', 'hello world\n');
  x.grow(16);
  x.r.git(['add', 'hello.txt']);
  const c = commit(x.r, ['-m', 'Add hello.txt'], { env: x.env });
  expect(c.status, c.stderr).toBe(0);
  const agentCommit = x.r.git(['rev-parse', 'HEAD']).trim();
  x.r.write('README.md', '# demo\n\nA demo repo.\n\nSee hello.txt.\n');
  x.grow(30);
  if (opts.stop !== false) x.hook('new', 'Stop');
  x.grow(31);
  return { agentCommit };
}

function shadowBranches(r: TempRepo): string[] {
  return r
    .git(['for-each-ref', '--format=%(refname:short)', 'refs/heads/entire/'])
    .trim()
    .split('\n')
    .filter((b) => b !== '' && b !== 'entire/checkpoints/v1');
}

function logLines(r: TempRepo): Array<Record<string, unknown>> {
  return readFileSync(join(r.dir, '.entire', 'logs', 'entire.log'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('C2: the replayed session and its resume', () => {
  it('one state, a step per Stop, slots and checkpoint commits naming Codex, the mid-turn commit linked and finalized', () => {
    const x = codexReplay();
    const { agentCommit } = firstTurn(x);
    const [midId] = trailerIds(headMessage(x.r, agentCommit));
    expect(midId).toMatch(/^[0-9a-f]{12}$/);
    x.hook('new', 'SessionEnd');
    expect(stateOf(x.r, SID)).toMatchObject({ phase: 'ended', agent_type: 'Codex', first_prompt: PROMPT, transcript_path: x.rollout });

    // codex exec resume: the same rollout grows
    x.grow(34);
    x.hook('resume', 'SessionStart');
    x.grow(36);
    x.hook('resume', 'UserPromptSubmit');
    x.r.write('hello.txt', 'hello again\n');
    x.grow(45);
    x.hook('resume', 'Stop');
    x.grow(46);
    x.hook('resume', 'SessionEnd');

    const sessions = readdirSync(join(x.r.dir, '.git', 'entire-sessions')).filter((n) => n.endsWith('.json'));
    expect(sessions).toEqual([`${SID}.json`]);
    expect(stateOf(x.r, SID)).toMatchObject({ phase: 'ended', agent_type: 'Codex' });

    // both Stops came after the mid-turn commit: two steps on its shadow branch
    const [shadow] = shadowBranches(x.r);
    expect(shadowBranches(x.r)).toHaveLength(1);
    expect(Number(x.r.git(['rev-list', '--count', `${agentCommit}..${shadow}`]).trim())).toBe(2);
    const stops = logLines(x.r).filter((l) => l['msg'] === 'hook completed' && l['hook'] === 'codex stop');
    expect(stops.map((l) => l['flush'])).toEqual(['flushed', 'flushed']);

    // the mid-turn checkpoint: Codex, the prompt, hello.txt; finalized with the whole turn
    const md = JSON.parse(showCheckpointFile(x.r, midId!, '0/metadata.json')) as Record<string, unknown>;
    expect(md).toMatchObject({ session_id: SID, agent: 'Codex', files_touched: ['hello.txt'] });
    expect(showCheckpointFile(x.r, midId!, '0/prompt.txt')).toBe(PROMPT);
    expect(showCheckpointFile(x.r, midId!, '0/full.jsonl')).toContain('Created hello.txt, committed it, and updated README.md.');
    expect(x.r.git(['log', '--format=%B', 'entire/checkpoints/v1'])).toContain('Entire-Agent: Codex');
    expect(x.r.git(['log', '--format=%s', 'entire/checkpoints/v1'])).toContain(`Finalize transcript for Checkpoint: ${midId}`);

    // a person commits the rest: the same session, both turns' files and prompts
    x.r.git(['add', 'README.md', 'hello.txt']);
    expect(commit(x.r, ['-m', 'readme and greeting'], { env: x.env }).status).toBe(0);
    const [id] = trailerIds(headMessage(x.r));
    const md2 = JSON.parse(showCheckpointFile(x.r, id!, '0/metadata.json')) as Record<string, unknown>;
    expect(md2).toMatchObject({ session_id: SID, agent: 'Codex', files_touched: ['README.md', 'hello.txt'] });
    expect(showCheckpointFile(x.r, id!, '0/prompt.txt')).toContain('please follow up');
    const explain = x.r.entire(['explain', '--commit', 'HEAD']);
    expect(explain.status, explain.stderr).toBe(0);
    expect(explain.stdout).toContain('Agent: Codex');
    expect(explain.stdout).toContain('please follow up');
    const doctor = x.r.entire(['doctor'], { env: x.env });
    expect(doctor.stdout).not.toContain('dangling-trailer');
  });
});

describe('C7: session-end only records the end', () => {
  it('a turn without Stop: session-end leaves its checkpoint pending (no metadata write); the next hook or doctor does the work', () => {
    const x = codexReplay();
    const { agentCommit } = firstTurn(x, { stop: false });
    const [midId] = trailerIds(headMessage(x.r, agentCommit));
    const tip = x.r.git(['rev-parse', 'entire/checkpoints/v1']).trim();
    expect(stateOf(x.r, SID)['turn_checkpoint_ids']).toEqual([midId]);
    x.hook('new', 'SessionEnd');
    const state = stateOf(x.r, SID);
    expect(state['phase']).toBe('ended');
    expect(state['turn_checkpoint_ids']).toEqual([midId]);
    expect(x.r.git(['rev-parse', 'entire/checkpoints/v1']).trim()).toBe(tip);
    const fixed = x.r.entire(['doctor', '--force'], { env: x.env });
    expect(fixed.stdout, fixed.stderr).toMatch(/\[fixed\] (pending-finalization|ended-with-pending-work)/);
    expect(stateOf(x.r, SID)['turn_checkpoint_ids'] ?? []).toEqual([]);
  });
});

describe('resume into a fresh Codex home (SPEC-2 §C.1 restore)', () => {
  function committedReplay(): { x: Replay; stored: string } {
    const x = codexReplay();
    const { agentCommit } = firstTurn(x);
    x.hook('new', 'SessionEnd');
    const [id] = trailerIds(headMessage(x.r, agentCommit));
    return { x, stored: showCheckpointFile(x.r, id!, '0/full.jsonl') };
  }

  function clone(x: Replay, extraEnv: Record<string, string> = {}): { c: TempRepo; codexHome: string; env: Record<string, string> } {
    const base2 = tempDir();
    const home2 = join(base2, 'home');
    mkdirSync(home2, { recursive: true });
    const dir2 = join(base2, 'Other.Name');
    const env2 = testEnv(home2);
    execFileSync('git', ['clone', '-q', x.r.dir, dir2], { env: env2 });
    const codexHome = join(base2, 'codex-home');
    return { c: repoAt(dir2, home2, env2), codexHome, env: { CODEX_HOME: codexHome, ...extraEnv } };
  }

  it('a thread Codex does not know: the dated local-time rollout name, then `codex resume -- <id>`', () => {
    const { x, stored } = committedReplay();
    const { c, codexHome, env } = clone(x, { TZ: 'Asia/Tokyo' });
    const res = c.entire(['resume', 'main'], { env });
    expect(res.status, res.stderr).toBe(0);
    // session_meta.timestamp 2026-11-25T19:52:33.586Z is 04:52:33 on the 26th in Tokyo
    const target = join(codexHome, 'sessions', '2026', '11', '26', `rollout-2026-11-26T04-52-33-${SID}.jsonl`);
    expect(res.stdout).toContain(`Restored transcript of session ${SID} to ${target}`);
    expect(res.stdout).toContain(`codex resume -- ${SID}`);
    expect(readFileSync(target, 'utf8')).toBe(stored);
    // again: an existing dated rollout of the thread is the target (compared, not duplicated)
    expect(c.entire(['resume', 'main'], { env: { ...env, TZ: 'UTC' } }).stdout).toContain(`Transcript of session ${SID} is already at ${target}`);
  });

  const hasSqlite = spawnSync('sqlite3', ['-version']).status === 0;

  it.skipIf(!hasSqlite)('C8: a thread state_5.sqlite knows is restored only at its rollout_path', () => {
    const { x, stored } = committedReplay();
    const { c, codexHome, env } = clone(x);
    mkdirSync(codexHome, { recursive: true });
    const known = join(codexHome, 'sessions', '2020', '01', '02', `rollout-2020-01-02T03-04-05-${SID}.jsonl`);
    const db = join(codexHome, 'state_5.sqlite');
    execFileSync('sqlite3', [db, `CREATE TABLE threads (id TEXT PRIMARY KEY, rollout_path TEXT NOT NULL); INSERT INTO threads VALUES ('${SID}', '${known}');`]);
    const res = c.entire(['resume', 'main'], { env });
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout).toContain(`Restored transcript of session ${SID} to ${known}`);
    expect(readFileSync(known, 'utf8')).toBe(stored);

    // a rollout_path outside $CODEX_HOME/sessions: not restored at all
    const outside = join(dirname(codexHome), 'elsewhere', `rollout-${SID}.jsonl`);
    execFileSync('sqlite3', [db, `UPDATE threads SET rollout_path = '${outside}';`]);
    const refused = c.entire(['resume', 'main', '--force'], { env });
    expect(refused.stdout + refused.stderr).toMatch(/Not restoring session|Cannot resume/);
    expect(existsSync(outside)).toBe(false);
  });
});
