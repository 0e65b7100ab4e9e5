/**
 * Secrets (issue 6 §4, SPEC P5): a secret of every covered family is planted
 * in a session's prompt, tool input, tool output and subagent transcript;
 * the whole loop runs (mid-turn commit, finalize, a person's commits,
 * carry-forward, push to a bare remote through the pre-push hook); then every
 * object of both repositories and every file under `.entire/` (plus the
 * session states) is scanned: no planted secret may be found.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { cleanupAll, makeRepo, type TempRepo } from '../helpers/repo.js';
import { FakeClaude } from '../helpers/agent.js';
import { enabledRepo, commit, headMessage, trailerIds, checkpointIds } from '../e2e/helpers.js';
import { RULE_EXAMPLES } from '../redact/rule-examples.js';
import { count, expectHookOk, expectTrailersResolve, expectFsck, refOid, METADATA } from './helpers.js';

afterAll(cleanupAll);

const S = 'sk-ant-api03-xK9mZ2vL8nQ5rT1wY4bC7dF0gH3jE6pA';
const G = 'ghp_FaKe7T0kEnF0rTeStS9xQ2mZ7vR1bN8kL3pJ';
const EXTRA: { pos: string; secret: string }[] = [
  { pos: `my key is ${S} ok`, secret: S },
  { pos: `export GITHUB_TOKEN=${G}`, secret: G },
  { pos: 'key=AKIAYRWQG5EJLPZLBYNP', secret: 'AKIAYRWQG5EJLPZLBYNP' },
  { pos: 'AWS_SECRET_ACCESS_KEY=fAkE9sEcReT/tEsTkEy+Q2mZ7vR1bN8kL3pJ5wX4yD6h', secret: 'fAkE9sEcReT/tEsTkEy+Q2mZ7vR1bN8kL3pJ5wX4yD6h' },
  { pos: 'DB_PASSWORD=FakePw-hK9vQ2mZ7xR4tB8nW3yL6pJ5sD1', secret: 'FakePw-hK9vQ2mZ7xR4tB8nW3yL6pJ5sD1' },
  { pos: 'AKIAFAKE2TESTKEY7ZQX in the logs', secret: 'AKIAFAKE2TESTKEY7ZQX' },
  // SPEC-2 §A.12 / A13: curl -u right after curl, a low-entropy secret-named assignment, and relatives
  { pos: 'curl -u admin:S3cretPassw0rd https://api.example.com/v1/items', secret: 'S3cretPassw0rd' },
  { pos: 'DB_PASSWORD=correct-horse-battery-staple', secret: 'correct-horse-battery-staple' },
  { pos: '  db_password: fakeyaml-words-only', secret: 'fakeyaml-words-only' },
  { pos: '{"apiToken": "fakejson-words-only"}', secret: 'fakejson-words-only' },
  { pos: "export X_SECRET='fakeshell-words-only'", secret: 'fakeshell-words-only' },
  { pos: 'git clone ssh://deploy:FakeSshPassw0rd@git.example.com/acme/api.git', secret: 'FakeSshPassw0rd' },
  { pos: 'wget --user=ops --http-password=FakeWgetPassw0rd https://files.example.com/a.tgz', secret: 'FakeWgetPassw0rd' },
  { pos: 'http --auth ops:FakeHttpiePassw0rd https://api.example.com/items', secret: 'FakeHttpiePassw0rd' },
];
/** A secret only a JSON key names (`"password": "…"` in a tool call's input), planted in the subagent transcript. */
const KEYED = 'fakekeyed-words-only';
const PLANTED = [...Object.values(RULE_EXAMPLES).map((e) => ({ pos: e.pos, secret: e.secret })), ...EXTRA];
const ALL = PLANTED.map((p) => p.pos).join('\n');

/** Forms a secret can take once stored: as is, JSON-escaped, and each line of a multi-line one. */
function needles(secret: string): string[] {
  const out = new Set([secret, JSON.stringify(secret).slice(1, -1)]);
  if (secret.includes('\n')) for (const l of secret.split('\n')) if (l.length >= 16 && !/^-----/.test(l)) out.add(l);
  return [...out];
}

function allObjects(r: TempRepo): Buffer {
  const res = spawnSync('git', ['cat-file', '--batch-all-objects', '--batch', '--unordered'], { cwd: r.dir, env: r.env, maxBuffer: 1024 * 1024 * 1024 });
  expect(res.status, String(res.stderr)).toBe(0);
  return res.stdout as Buffer;
}

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const n of names) {
      const p = join(d, n);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else out.push(p);
    }
  };
  walk(dir);
  return out;
}

function findLeaks(where: string, haystack: Buffer): string[] {
  const text = haystack.toString('latin1');
  const leaks: string[] = [];
  for (const p of PLANTED) for (const n of needles(p.secret)) if (text.includes(Buffer.from(n, 'utf8').toString('latin1'))) leaks.push(`${where}: ${n.slice(0, 24)}…`);
  return leaks;
}

describe('no planted secret reaches any git object or any file under .entire/', () => {
  it(`${PLANTED.length} secrets × prompt, tool input, tool output, subagent transcript`, () => {
    count('secrets planted', PLANTED.length * 4);
    const r = enabledRepo();
    const agent = new FakeClaude(r);
    const remote = makeRepo({ bare: true });
    r.git(['remote', 'add', 'origin', remote.dir]);

    expectHookOk(agent.sessionStart(), 'session-start');
    // turn 1: secrets everywhere, a subagent, a mid-turn commit
    expectHookOk(agent.prompt(`Please use these credentials:\n${ALL}`), 'prompt');
    agent.bash(`cat > .env <<EOF\n${ALL}\nEOF`, `wrote .env:\n${ALL}`);
    const task = { tool_use_id: 'toolu_task1', tool_name: 'Task', tool_input: { description: 'configure', prompt: `use ${ALL}` } };
    expectHookOk(agent.hook('pre-task', task), 'pre-task');
    const sub = join(dirname(agent.transcriptPath), 'agent-sub1.jsonl');
    mkdirSync(dirname(sub), { recursive: true });
    writeFileSync(
      sub,
      [
        { type: 'user', uuid: 's1', message: { role: 'user', content: `subagent task: ${ALL}` } },
        { type: 'assistant', uuid: 's2', message: { id: 'sm1', role: 'assistant', content: [{ type: 'tool_use', id: 'st1', name: 'Write', input: { file_path: join(r.dir, 'sub.go'), content: 'package sub\n' } }], usage: { output_tokens: 3 } } },
        { type: 'user', uuid: 's3', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'st1', content: `ok ${ALL}` }] } },
        { type: 'assistant', uuid: 's4', message: { id: 'sm2', role: 'assistant', content: [{ type: 'text', text: `done, used ${ALL}` }] } },
        { type: 'assistant', uuid: 's5', message: { id: 'sm3', role: 'assistant', content: [{ type: 'tool_use', id: 'st2', name: 'mcp__db__connect', input: { host: 'db.internal', password: KEYED } }] } },
      ]
        .map((l) => JSON.stringify(l))
        .join('\n') + '\n',
    );
    writeFileSync(join(r.dir, 'sub.go'), 'package sub\n');
    expectHookOk(agent.hook('post-task', { ...task, tool_response: { agentId: 'sub1', content: [{ type: 'text', text: `result ${ALL}` }] } }), 'post-task');
    agent.write('a.go', 'package a\n');
    agent.say(`Here is what I did with ${ALL}`);
    r.git(['add', 'a.go']);
    expect(commit(r, ['-m', 'add a']).status).toBe(0);
    agent.bash('git commit -m "add a"', `[main abc] add a\n${ALL}`);
    agent.say(`Committed. Secrets were: ${ALL}`);
    expectHookOk(agent.stop(), 'stop');

    // turn 2: the person commits part of it (TTY question), the rest is carried forward
    expectHookOk(agent.prompt(`Second turn ${ALL}`), 'prompt');
    agent.write('b.go', 'package b\n');
    agent.write('c.go', 'package c\n');
    agent.say(`wrote b and c ${ALL}`);
    expectHookOk(agent.stop(), 'stop');
    r.git(['add', 'b.go', 'sub.go']);
    expect(commit(r, ['-m', 'add b'], { tty: true }).status).toBe(0);
    expect(r.gitResult(['push', '-q', 'origin', 'main']).status).toBe(0);

    // turn 3: an editor commit (Last Prompt comment) of the carried-forward file, then push again
    expectHookOk(agent.prompt(`Third ${ALL}`), 'prompt');
    agent.say(`fine ${ALL}`);
    expectHookOk(agent.stop(), 'stop');
    r.git(['add', 'c.go']);
    expect(commit(r, ['-e', '-m', 'add c']).status).toBe(0);
    expect(trailerIds(headMessage(r))).toHaveLength(1);
    expectHookOk(agent.sessionEnd(), 'session-end');
    const push = r.gitResult(['push', '-q', 'origin', 'main']);
    expect(push.status, push.stderr).toBe(0);

    // the loop really ran: 3 checkpoints, all linked, all pushed
    const ids = expectTrailersResolve(r);
    expect(ids).toHaveLength(3);
    expect(refOid(remote, METADATA)).toBe(refOid(r, METADATA));
    expect(checkpointIds(remote)).toEqual(checkpointIds(r));
    // the transcript reached the checkpoints (redacted), so a clean scan means something
    const stored = r.git(['show', `entire/checkpoints/v1:${ids[0]!.slice(0, 2)}/${ids[0]!.slice(2)}/0/full.jsonl`]);
    expect(stored).toContain('Committed. Secrets were:');
    expect(stored).toContain('REDACTED');

    // the needles do match what was planted, and each place reached git (redacted)
    expect(findLeaks('transcript', readFileSync(agent.transcriptPath)).length).toBeGreaterThanOrEqual(PLANTED.length);
    expect(findLeaks('subagent transcript', readFileSync(sub)).length).toBeGreaterThanOrEqual(PLANTED.length);
    expect(readFileSync(sub, 'utf8')).toContain(KEYED);
    const objects = allObjects(r);
    for (const marker of ['Please use these credentials', 'cat > .env', 'wrote .env:', 'subagent task:', 'done, used ']) {
      expect(objects.includes(marker), `nothing of "${marker}" was stored`).toBe(true);
    }
    const leaks = [
      ...findLeaks('local objects', objects),
      ...findLeaks('remote objects', allObjects(remote)),
      ...filesUnder(join(r.dir, '.entire')).flatMap((f) => findLeaks(f.slice(r.dir.length + 1), readFileSync(f))),
      ...filesUnder(join(r.dir, '.git', 'entire-sessions')).flatMap((f) => findLeaks(f.slice(r.dir.length + 1), readFileSync(f))),
    ];
    expect(objects.includes('mcp__db__connect'), 'the subagent transcript was stored').toBe(true);
    for (const [where, buf] of [['local objects', objects], ['remote objects', allObjects(remote)]] as const) {
      if (buf.includes(KEYED)) leaks.push(`${where}: ${KEYED}`);
    }
    expect(leaks, `secrets leaked:\n${leaks.join('\n')}`).toEqual([]);
    expectFsck(r);
    expectFsck(remote);
  });
});
