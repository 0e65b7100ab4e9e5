/**
 * Codex CLI 0.169.0 (SPEC-2 §C.1) from the real captures in
 * test/fixtures/real-agents/codex/: the rollout's expected extraction (C1),
 * the hook payloads, the turn-end flush, `.codex/hooks.json` (C3), and trust
 * reporting and approval against a scripted `codex app-server`.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { CLI, cleanupAll, FIXTURES, makeRepo, tempDir, testEnv, type TempRepo } from '../helpers/repo.js';
import { parseCodexHookInput } from '../../src/agents/codex/hook-input.js';
import { lastCodexAnswer } from '../../src/agents/codex/flush.js';
import { codexTranscriptEntries } from '../../src/agents/codex/render.js';
import { localStamp } from '../../src/agents/codex/restore.js';
import { getAgent } from '../../src/agents/registry.js';
import { redactJsonl } from '../../src/redact/json.js';

afterAll(cleanupAll);

const REAL = join(FIXTURES, 'real-agents', 'codex');
const ROLLOUT = join(REAL, 'rollout-sample.jsonl');
const SID = '01a21444-58d9-7c40-94d2-8eb005a2dc4d';

function entire(args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  const r = spawnSync(process.execPath, [CLI, ...args], { env, cwd, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

function payloads(): { run: string; event: string; stdin: Record<string, unknown> }[] {
  return readFileSync(join(REAL, 'hook-payloads.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
}

describe('C1: debug transcript on the real rollout gives the README values', () => {
  const home = tempDir();
  const env = testEnv(home);
  const debug = (from?: number) => {
    const r = entire(['debug', 'transcript', ROLLOUT, '--agent', 'codex', ...(from === undefined ? [] : ['--from', String(from)])], home, env);
    expect(r.status, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as Record<string, unknown>;
  };

  it('the whole rollout', () => {
    expect(debug()).toEqual({
      position: 46,
      last_identifier: '45',
      modified_files: ['hello.txt', 'README.md'],
      prompts: ['Please say hello: create hello.txt and commit it.', 'please follow up'],
      token_usage: { input_tokens: 7900, cache_creation_tokens: 0, cache_read_tokens: 0, output_tokens: 240, api_call_count: 6 },
      model: 'gpt-5.5',
    });
  });

  it('--from 31: the resumed turn', () => {
    expect(debug(31)).toEqual({
      position: 46,
      last_identifier: '45',
      modified_files: ['hello.txt'],
      prompts: ['please follow up'],
      token_usage: { input_tokens: 2500, cache_creation_tokens: 0, cache_read_tokens: 0, output_tokens: 80, api_call_count: 2 },
      model: 'gpt-5.5',
    });
  });

  it('the content names its agent (a slot without one is read as Codex) and its project root', async () => {
    const r = entire(['debug', 'transcript', ROLLOUT], home, env);
    expect(JSON.parse(r.stdout).modified_files).toEqual(['hello.txt', 'README.md']);
    const codex = await getAgent('codex');
    const text = readFileSync(ROLLOUT, 'utf8');
    expect(codex.recognizesTranscript(text)).toBe(true);
    expect(codex.transcriptProjectRoot(text, [])).toBe('/tmp/ra/dc1/repo');
    expect(codex.recognizesTranscript('{"type":"user","message":{}}\n')).toBe(false);
  });

  it('without item_completed lines, prompts come from typed user messages only, and edits from apply_patch headers', async () => {
    const lines = readFileSync(ROLLOUT, 'utf8').trim().split('\n');
    const kept = lines.filter((l) => !l.includes('"item_completed"'));
    const stripped = kept.join('\n') + '\n';
    const a = (await getAgent('codex')).analyzeTranscript(stripped);
    expect(a.prompts).toEqual(['Please say hello: create hello.txt and commit it.', 'please follow up']);
    expect(a.modifiedFiles).toEqual(['/tmp/ra/dc1/repo/hello.txt', '/tmp/ra/dc1/repo/README.md']);
    expect(a.position).toBe(kept.length);
    expect(kept.length).toBeLessThan(lines.length);
  });

  it('explain entries: prompts, answers and tool lines, no injected context', () => {
    const entries = codexTranscriptEntries(readFileSync(ROLLOUT, 'utf8'), 0);
    expect(entries.filter((e) => e.kind === 'user').map((e) => e.text)).toEqual(['Please say hello: create hello.txt and commit it.', 'please follow up']);
    expect(entries.map((e) => e.text)).toContain('apply_patch hello.txt');
    expect(entries.map((e) => e.text)).toContain("exec_command git add hello.txt && git commit -m 'Add hello.txt'");
    expect(entries.filter((e) => e.kind === 'assistant').map((e) => e.text).at(-1)).toBe('Changed hello.txt.');
    expect(JSON.stringify(entries)).not.toContain('environment_context');
    expect(codexTranscriptEntries(readFileSync(ROLLOUT, 'utf8'), 31).filter((e) => e.kind === 'user').map((e) => e.text)).toEqual(['please follow up']);
  });
});

describe('stored copies (SPEC-2 §C.1)', () => {
  it('encrypted_content values are stored empty, in place; the rest of the line is byte-identical', () => {
    const blob = 'gAAAAABn' + 'Qk9hY2xlIGVuY3J5cHRlZCByZWFzb25pbmc'.repeat(40);
    const line = JSON.stringify({ timestamp: 't', ordinal: 3, type: 'response_item', payload: { type: 'reasoning', summary: [], encrypted_content: blob } });
    const out = redactJsonl(line + '\n');
    expect(out).toBe(line.replace(blob, '') + '\n');
    expect(redactJsonl('{"encrypted_content":null,"x":1}\n')).toBe('{"encrypted_content":null,"x":1}\n');
  });
});

describe('hook payloads (SPEC-2 §C.1)', () => {
  it('every captured payload parses to its event, with the prompt, the answer, the source and the reason', () => {
    const verbOf: Record<string, string> = {
      SessionStart: 'session-start',
      UserPromptSubmit: 'user-prompt-submit',
      Stop: 'stop',
      SessionEnd: 'session-end',
      PreToolUse: 'pre-tool-use',
      PostToolUse: 'post-tool-use',
    };
    const kinds = payloads().map((p) => {
      const ev = parseCodexHookInput(verbOf[p.event]!, JSON.stringify(p.stdin));
      if (ev.kind !== 'noop') {
        expect(ev.sessionId).toBe(SID);
        expect(ev.transcriptPath).toBe(p.stdin['transcript_path']);
      }
      if (ev.kind === 'turn-start') expect(ev.prompt).toBe(p.stdin['prompt']);
      if (ev.kind === 'turn-end') expect(ev.response).toBe(p.stdin['last_assistant_message']);
      if (ev.kind === 'session-start') expect(ev.source).toBe(p.stdin['source']);
      if (ev.kind === 'session-end') expect(ev.reason).toBe('other');
      return ev.kind;
    });
    expect(kinds.filter((k) => k === 'turn-end')).toHaveLength(2);
    expect(kinds.filter((k) => k === 'noop')).toHaveLength(8);
  });

  it('an unknown verb is a silent no-op; an --ephemeral null transcript_path is absent', () => {
    expect(parseCodexHookInput('some-future-event', '{not json').kind).toBe('noop');
    const ev = parseCodexHookInput('stop', JSON.stringify({ session_id: SID, transcript_path: null, cwd: '/x', hook_event_name: 'Stop' }));
    expect(ev.kind).toBe('turn-end');
    expect(ev.transcriptPath).toBeUndefined();
  });
});

describe('turn-end flush (SPEC-2 §B.4 for Codex)', () => {
  it("the rollout as it stood at Stop ends with the payload's last_assistant_message", () => {
    const lines = readFileSync(ROLLOUT, 'utf8').split('\n');
    const stop = payloads().find((p) => p.event === 'Stop')!;
    // Codex ran the Stop hook after line 30 (its token count), before task_complete
    expect(lastCodexAnswer(lines.slice(0, 30).join('\n') + '\n', true)).toBe(stop.stdin['last_assistant_message']);
    expect(lastCodexAnswer(lines.slice(0, 26).join('\n') + '\n', true)).toBe('I will create hello.txt, commit it, and then update the docs.');
  });

  it('rollout names are local time (TZ), as Codex writes them', () => {
    const d = new Date('2026-11-25T19:52:33.586Z');
    const s = localStamp(d);
    expect(s.stamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d$/);
    expect(s.stamp.slice(11)).toBe(`${String(d.getHours()).padStart(2, '0')}-52-33`);
  });
});

// ------------------------------------------------------------------ .codex/hooks.json and trust

/** A scripted `codex app-server`: hooks/list over the project's .codex/hooks.json, config/batchWrite into a JSON state. */
const FAKE_CODEX = `#!/usr/bin/env node
const fs = require('fs'), path = require('path'), crypto = require('crypto'), readline = require('readline');
const statePath = process.env.FAKE_CODEX_STATE;
const load = () => { try { return JSON.parse(fs.readFileSync(statePath, 'utf8')); } catch { return { projects: {}, state: {}, writes: [] }; } };
if (process.argv[2] !== 'app-server') process.exit(2);
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
const snake = (e) => e.replace(/[A-Z]/g, (c, i) => (i ? '_' : '') + c.toLowerCase());
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const m = JSON.parse(line);
  if (m.id === undefined) return;
  const st = load();
  if (m.method === 'initialize') return send({ id: m.id, result: { userAgent: 'fake' } });
  if (m.method === 'hooks/list') {
    const cwd = m.params.cwds[0];
    const file = path.join(cwd, '.codex', 'hooks.json');
    const hooks = [];
    if (st.projects[cwd] === 'trusted' && fs.existsSync(file)) {
      const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
      for (const [event, groups] of Object.entries(doc.hooks || {})) groups.forEach((g, gi) => (g.hooks || []).forEach((h, hi) => {
        const key = file + ':' + snake(event) + ':' + gi + ':' + hi;
        const currentHash = 'sha256:' + crypto.createHash('sha256').update(JSON.stringify(h)).digest('hex');
        const t = st.state[key];
        hooks.push({ key, eventName: event[0].toLowerCase() + event.slice(1), command: h.command, sourcePath: file, source: 'project', currentHash,
          trustStatus: t === undefined ? 'untrusted' : t === currentHash ? 'trusted' : 'modified' });
      }));
    }
    return send({ id: m.id, result: { data: [{ cwd, hooks, warnings: [], errors: [] }] } });
  }
  if (m.method === 'config/batchWrite') {
    for (const e of m.params.edits) {
      st.writes.push(e);
      if (e.keyPath === 'projects') for (const [k, v] of Object.entries(e.value)) st.projects[k] = v.trust_level;
      if (e.keyPath === 'hooks.state') for (const [k, v] of Object.entries(e.value)) st.state[k] = v.trusted_hash;
    }
    fs.writeFileSync(statePath, JSON.stringify(st));
    return send({ id: m.id, result: { status: 'ok' } });
  }
  send({ id: m.id, error: { code: -32601, message: 'unknown method' } });
});
`;

interface CodexWorld {
  r: TempRepo;
  env: NodeJS.ProcessEnv;
  state: string;
}

/** A repo whose PATH has the scripted codex (or none), Entire enabled for Codex. */
function codexRepo(withCodex: boolean): CodexWorld {
  const r = makeRepo();
  const bin = join(dirname(r.dir), 'bin');
  mkdirSync(bin, { recursive: true });
  const state = join(dirname(r.dir), 'codex-state.json');
  if (withCodex) {
    writeFileSync(join(bin, 'codex'), FAKE_CODEX);
    chmodSync(join(bin, 'codex'), 0o755);
  }
  const env = testEnv(r.home, {
    PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin`,
    FAKE_CODEX_STATE: state,
    CODEX_HOME: join(r.home, '.codex'),
  });
  return { r, env, state };
}

const readHooks = (r: TempRepo) => readFileSync(join(r.dir, '.codex', 'hooks.json'), 'utf8');

describe('C3: enable --agent codex writes .codex/hooks.json', () => {
  it('top level only hooks, 4 events, integer timeouts (SessionEnd 3), no .codex/config.toml; a rerun is byte-identical', () => {
    const { r, env } = codexRepo(false);
    const en = entire(['enable', '--agent', 'codex'], r.dir, env);
    expect(en.status, en.stderr).toBe(0);
    expect(en.stdout).toContain('✓ Codex hooks installed (.codex/hooks.json)');
    const doc = JSON.parse(readHooks(r)) as { hooks: Record<string, { hooks: { type: string; command: string; timeout: number }[] }[]> };
    expect(Object.keys(doc)).toEqual(['hooks']);
    expect(doc.hooks).toEqual({
      SessionStart: [{ hooks: [{ type: 'command', command: 'entire hooks codex session-start', timeout: 30 }] }],
      UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'entire hooks codex user-prompt-submit', timeout: 30 }] }],
      Stop: [{ hooks: [{ type: 'command', command: 'entire hooks codex stop', timeout: 30 }] }],
      SessionEnd: [{ hooks: [{ type: 'command', command: 'entire hooks codex session-end', timeout: 3 }] }],
    });
    expect(existsSync(join(r.dir, '.codex', 'config.toml'))).toBe(false);
    // unverifiable here: said so, never silently inert
    expect(en.stdout).toMatch(/^! Codex runs Entire's hooks only in a trusted project and once each is approved.*codex is not on PATH/m);
    const before = readHooks(r);
    expect(entire(['enable', '--agent', 'codex'], r.dir, env).status).toBe(0);
    expect(readHooks(r)).toBe(before);
  });

  it('keeps foreign handlers and unknown keys, replaces a stale Entire handler, drops a `version` key; uninstall removes only ours', () => {
    const { r, env } = codexRepo(false);
    mkdirSync(join(r.dir, '.codex'));
    const foreign = { type: 'command', command: 'my-logger stop', timeout: 10 };
    writeFileSync(
      join(r.dir, '.codex', 'hooks.json'),
      JSON.stringify({
        version: 1,
        hooks: {
          Stop: [{ hooks: [foreign] }],
          SessionEnd: [{ hooks: [{ type: 'command', command: 'entire hooks codex session-end', timeout: 30 }] }],
          PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'audit' }] }],
        },
        extra: { keep: true },
      }),
    );
    expect(entire(['enable', '--agent', 'codex'], r.dir, env).status).toBe(0);
    const doc = JSON.parse(readHooks(r));
    expect(doc.version).toBeUndefined();
    expect(doc.extra).toEqual({ keep: true });
    expect(doc.hooks.Stop).toEqual([{ hooks: [foreign] }, { hooks: [{ type: 'command', command: 'entire hooks codex stop', timeout: 30 }] }]);
    expect(doc.hooks.SessionEnd).toEqual([{ hooks: [{ type: 'command', command: 'entire hooks codex session-end', timeout: 3 }] }]);
    expect(doc.hooks.PreToolUse).toEqual([{ matcher: 'Bash', hooks: [{ type: 'command', command: 'audit' }] }]);

    const un = entire(['disable', '--uninstall', '--force'], r.dir, env);
    expect(un.status, un.stderr).toBe(0);
    expect(JSON.parse(readHooks(r))).toEqual({ hooks: { Stop: [{ hooks: [foreign] }], PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'audit' }] }] }, extra: { keep: true } });
  });
});

describe('trust and approval, as codex app-server reports them (SPEC-2 §C.1)', () => {
  const gapLines = (out: string) => out.split('\n').filter((l) => l.startsWith('! Codex'));

  it('an untrusted project: enable, status and doctor say what is missing; nothing is written to Codex', () => {
    const { r, env, state } = codexRepo(true);
    const en = entire(['enable', '--agent', 'codex'], r.dir, env);
    expect(en.status, en.stderr).toBe(0);
    expect(gapLines(en.stdout)).toEqual([
      '! Codex ignores .codex/hooks.json until this project is trusted',
      '! Codex runs 4 Entire hook(s) only after you approve them in codex (/hooks), or run: entire enable --agent codex --approve-agent-hooks',
    ]);
    const st = entire(['status'], r.dir, env);
    expect(gapLines(st.stdout)).toHaveLength(2);
    const stJson = JSON.parse(entire(['status', '--json'], r.dir, env).stdout);
    expect(stJson.agent_hooks_untrusted.map((g: { agent: string }) => g.agent)).toEqual(['codex', 'codex']);
    const doc = JSON.parse(entire(['doctor', '--json'], r.dir, env).stdout) as { findings: { kind: string; detail: string }[] };
    const finding = doc.findings.find((f) => f.kind === 'agent-hooks-untrusted');
    expect(finding?.detail).toContain('Codex ignores .codex/hooks.json until this project is trusted');
    expect(existsSync(state)).toBe(false);
  });

  it('a trusted project with unapproved handlers names them; --approve-agent-hooks needs a terminal, then approves each', () => {
    const { r, env, state } = codexRepo(true);
    writeFileSync(state, JSON.stringify({ projects: { [r.dir]: 'trusted' }, state: {}, writes: [] }));
    const en = entire(['enable', '--agent', 'codex'], r.dir, env);
    expect(gapLines(en.stdout)).toEqual([
      '! Codex runs 4 Entire hook(s) only after you approve them in codex (/hooks): sessionStart, userPromptSubmit, stop, sessionEnd; or run: entire enable --agent codex --approve-agent-hooks',
    ]);

    const noTty = entire(['enable', '--agent', 'codex', '--approve-agent-hooks'], r.dir, env);
    expect(noTty.status, noTty.stderr).toBe(0);
    expect(noTty.stdout).toContain('nothing was approved');
    expect(JSON.parse(readFileSync(state, 'utf8')).writes).toEqual([]);

    const declined = entire(['enable', '--agent', 'codex', '--approve-agent-hooks'], r.dir, { ...env, ENTIRE_TEST_TTY: '1', ENTIRE_TEST_TTY_ANSWER: 'n' });
    expect(declined.stdout).toContain('Nothing approved.');
    expect(JSON.parse(readFileSync(state, 'utf8')).writes).toEqual([]);

    const yes = entire(['enable', '--agent', 'codex', '--approve-agent-hooks'], r.dir, { ...env, ENTIRE_TEST_TTY: '1', ENTIRE_TEST_TTY_ANSWER: 'y' });
    expect(yes.status, yes.stderr).toBe(0);
    expect(yes.stdout).toContain('✓ Codex approved 4 Entire hook(s)');
    expect(gapLines(yes.stdout)).toEqual([]);
    const written = JSON.parse(readFileSync(state, 'utf8'));
    // only hooks.state, one trusted_hash per handler of ours (the project was trusted already)
    expect(written.writes.map((w: { keyPath: string }) => w.keyPath)).toEqual(['hooks.state']);
    expect(Object.keys(written.state)).toHaveLength(4);
    expect(gapLines(entire(['status'], r.dir, env).stdout)).toEqual([]);
    const doc = JSON.parse(entire(['doctor', '--json'], r.dir, env).stdout) as { findings: { kind: string }[] };
    expect(doc.findings.map((f) => f.kind)).not.toContain('agent-hooks-untrusted');

    // a handler changed since it was approved is named as such
    const hooks = JSON.parse(readHooks(r));
    hooks.hooks.Stop[0].hooks[0].timeout = 31;
    writeFileSync(join(r.dir, '.codex', 'hooks.json'), JSON.stringify(hooks));
    expect(gapLines(entire(['status'], r.dir, env).stdout).join('\n')).toContain('stop (changed since approved)');
  });

  it('an untrusted project: --approve-agent-hooks trusts it first, then approves', () => {
    const { r, env, state } = codexRepo(true);
    const yes = entire(['enable', '--agent', 'codex', '--approve-agent-hooks'], r.dir, { ...env, ENTIRE_TEST_TTY: '1', ENTIRE_TEST_TTY_ANSWER: 'y' });
    expect(yes.stdout).toContain(`✓ Codex trusts ${r.dir}`);
    expect(yes.stdout).toContain('✓ Codex approved 4 Entire hook(s)');
    const written = JSON.parse(readFileSync(state, 'utf8'));
    expect(written.writes.map((w: { keyPath: string }) => w.keyPath)).toEqual(['projects', 'hooks.state']);
    expect(written.projects).toEqual({ [r.dir]: 'trusted' });
  });
});
