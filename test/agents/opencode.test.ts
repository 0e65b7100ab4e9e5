/**
 * OpenCode (SPEC-2 §C.2): what Entire reads from an export (C1), the plugin
 * `enable` installs (C4), the turn end's staged export (C6), and the hook
 * stdin our plugin sends. The real CLI is driven in the real-agent tier
 * (test/real-agents/opencode.test.ts).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, FIXTURES, cleanupAll, makeRepo, tempDir, testEnv } from '../helpers/repo.js';
import { spawnSync } from 'node:child_process';
import { getAgent } from '../../src/agents/registry.js';
import { EntireError } from '../../src/errors.js';

afterAll(cleanupAll);

const EXPORT = join(FIXTURES, 'real-agents', 'opencode', 'export-sample.json');
const SID = 'ses_debada643ffe4X1HvAuBtC20wH';

describe('OpenCode export analysis (C1)', () => {
  it('debug transcript gives the README values: position 6, files, prompts, tokens', () => {
    const home = tempDir();
    const r = spawnSync(process.execPath, [CLI, 'debug', 'transcript', EXPORT, '--agent', 'opencode'], { env: testEnv(home), cwd: home, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      position: 6,
      last_identifier: expect.stringMatching(/^msg_/),
      modified_files: ['hello.txt', 'README.md'],
      prompts: ['Please say hello: create hello.txt and commit it.', 'please follow up'],
      token_usage: { input_tokens: 5400, cache_creation_tokens: 0, cache_read_tokens: 0, output_tokens: 160, api_call_count: 4 },
      model: 'local/local-model',
    });
  });

  it('offsets are message indexes; the content is recognised as OpenCode; explain shows prompts and tools', async () => {
    const agent = await getAgent('opencode');
    const text = readFileSync(EXPORT, 'utf8');
    const turn2 = agent.analyzeTranscript(text, { from: 5 });
    expect(turn2.prompts).toEqual(['please follow up']);
    expect(turn2.tokenUsage.api_call_count).toBe(0);
    expect(agent.recognizesTranscript(text)).toBe(true);
    expect(agent.transcriptFormat('/x/y.json')).toBe('json');
    expect(agent.transcriptProjectRoot(text, [])).toBe('/tmp/ra/do1/repo');
    const entries = agent.transcriptEntries(text, 'json', 0);
    expect(entries[0]).toEqual({ kind: 'user', text: 'Please say hello: create hello.txt and commit it.' });
    expect(entries).toContainEqual({ kind: 'tool', text: 'write hello.txt' });
    expect(entries).toContainEqual({ kind: 'tool', text: 'edit README.md' });
    expect(entries).toContainEqual({ kind: 'assistant', text: 'I will create hello.txt, commit it, and then update the docs.' });
    // a JSONL transcript of another agent is not an export
    expect(agent.recognizesTranscript('{"type":"user"}\n{"type":"assistant"}\n')).toBe(false);
  });

  it('resumes with `opencode -s <id>`', async () => {
    expect((await getAgent('opencode')).resumeArgv(SID)).toEqual(['opencode', '-s', SID]);
  });
});

describe('OpenCode hook stdin (what our plugin sends)', () => {
  it('turn-start carries the prompt; the other verbs the session id; compaction is a no-op', async () => {
    const agent = await getAgent('opencode');
    expect(agent.parseHookInput('turn-start', JSON.stringify({ session_id: SID, prompt: 'a b', model: 'local/local-model' }))).toMatchObject({
      kind: 'turn-start',
      sessionId: SID,
      prompt: 'a b',
      rawPrompt: 'a b',
    });
    expect(agent.parseHookInput('turn-end', `{"session_id":"${SID}"}\n`)).toMatchObject({ kind: 'turn-end', sessionId: SID });
    expect(agent.parseHookInput('session-start', `{"session_id":"${SID}"}`).kind).toBe('session-start');
    expect(agent.parseHookInput('session-end', `{"session_id":"${SID}"}`).kind).toBe('session-end');
    expect(agent.parseHookInput('compaction', '').kind).toBe('noop');
  });

  it('refuses a missing or unsafe session id and an unknown verb', async () => {
    const agent = await getAgent('opencode');
    expect(() => agent.parseHookInput('turn-end', '{}')).toThrow(EntireError);
    expect(() => agent.parseHookInput('turn-end', '{"session_id":"../x"}')).toThrow(/invalid session_id/);
    expect(() => agent.parseHookInput('bogus', '{}')).toThrow(/unknown hook/);
  });

  it('names no transcript file: the staged export under .entire/tmp is the one read', async () => {
    const agent = await getAgent('opencode');
    expect(agent.resolveTranscriptPath('/r', SID, '/etc/passwd')).toBe(`/r/.entire/tmp/${SID}.json`);
    expect(agent.transcriptRoot('/r')).toBe('/r/.entire/tmp');
  });
});

describe('entire enable --agent opencode (C4)', () => {
  it('writes only .opencode/plugins/entire.ts; a rerun changes nothing; uninstall keeps what is not ours', () => {
    const repo = makeRepo();
    const en = repo.entire(['enable', '--agent', 'opencode']);
    expect(en.status, en.stderr).toBe(0);
    const plugin = join(repo.dir, '.opencode', 'plugins', 'entire.ts');
    const first = readFileSync(plugin, 'utf8');
    expect(first).toContain('spawnSync("entire", ["hooks", "opencode", verb]');
    // the only agent file: nothing else under .opencode/
    expect(repo.git(['status', '--porcelain', '--untracked-files=all', '.opencode']).trim()).toBe('?? .opencode/plugins/entire.ts');
    expect(repo.entire(['enable', '--agent', 'opencode']).status).toBe(0);
    expect(readFileSync(plugin, 'utf8')).toBe(first);
    // OpenCode's own npm install and another plugin sit beside ours
    repo.write('.opencode/plugins/other.ts', 'export const Other = async () => ({});\n');
    repo.write('.opencode/package.json', '{"dependencies":{"@opencode-ai/plugin":"1.18.33"}}\n');
    repo.write('.opencode/.gitignore', 'node_modules\npackage.json\n');
    const off = repo.entire(['disable', '--uninstall', '--force']);
    expect(off.status, off.stderr).toBe(0);
    expect(existsSync(plugin)).toBe(false);
    expect(readFileSync(join(repo.dir, '.opencode', 'plugins', 'other.ts'), 'utf8')).toContain('Other');
    expect(existsSync(join(repo.dir, '.opencode', 'package.json'))).toBe(true);
    expect(existsSync(join(repo.dir, '.opencode', '.gitignore'))).toBe(true);
  });

  it('refuses to overwrite a plugin of the same name that is not ours', () => {
    const repo = makeRepo();
    repo.write('.opencode/plugins/entire.ts', '// someone else\n');
    const en = repo.entire(['enable', '--agent', 'opencode']);
    expect(en.stdout + en.stderr).toContain("is not Entire's plugin");
    expect(readFileSync(join(repo.dir, '.opencode', 'plugins', 'entire.ts'), 'utf8')).toBe('// someone else\n');
  });
});

describe('turn end: the export staged at .entire/tmp/<sid>.json (C6)', () => {
  /** A fake `opencode` on PATH whose `export` prints `out` and exits `code`. */
  function fakeOpenCode(out: string, code: number): string {
    const bin = tempDir();
    writeFileSync(join(bin, 'export.out'), out);
    writeFileSync(join(bin, 'opencode'), `#!/bin/sh\n[ "$1" = export ] || exit 2\ncat "${join(bin, 'export.out')}"\nexit ${code}\n`);
    chmodSync(join(bin, 'opencode'), 0o755);
    return bin;
  }

  it('a failing export leaves the staged copy byte-identical; a valid one replaces it, and its work is recorded', () => {
    const repo = makeRepo();
    expect(repo.entire(['enable', '--agent', 'opencode']).status).toBe(0);
    const staged = join(repo.dir, '.entire', 'tmp', `${SID}.json`);
    mkdirSync(join(repo.dir, '.entire', 'tmp'), { recursive: true });
    const old = '{"info":{"id":"' + SID + '"},"messages":[]}\n';
    writeFileSync(staged, old);
    const hook = (verb: string, input: object, bin: string) =>
      repo.entire(['hooks', 'opencode', verb], { input: JSON.stringify(input) + '\n', env: { PATH: `${bin}:${process.env['PATH']}` } });

    const failing = fakeOpenCode('{"info":{"id":"' + SID + '"},"messages":[{"info":{"id":"x","role":"user"},"parts":[]}]}', 1);
    expect(hook('turn-start', { session_id: SID, prompt: 'hello' }, failing).status).toBe(0);
    expect(hook('turn-end', { session_id: SID }, failing).status).toBe(0);
    expect(readFileSync(staged, 'utf8')).toBe(old);
    // not a session document (exit 0): the same
    expect(hook('turn-end', { session_id: SID }, fakeOpenCode('Session not found\n', 0)).status).toBe(0);
    expect(readFileSync(staged, 'utf8')).toBe(old);
    expect(readFileSync(join(repo.dir, '.entire', 'logs', 'entire.log'), 'utf8')).toContain('cannot refresh the transcript');

    // a valid export: staged byte for byte, and the turn's edit of hello.txt is a step
    const doc = readFileSync(EXPORT, 'utf8').replaceAll('/tmp/ra/do1/repo', repo.dir);
    expect(hook('turn-start', { session_id: SID, prompt: 'Please say hello' }, failing).status).toBe(0);
    repo.write('hello.txt', 'hello world\n');
    expect(hook('turn-end', { session_id: SID }, fakeOpenCode(doc, 0)).status).toBe(0);
    expect(readFileSync(staged, 'utf8')).toBe(doc);
    const st = repo.entire(['status', '--json']);
    const sessions = (JSON.parse(st.stdout) as { sessions: Record<string, unknown>[] }).sessions;
    expect(sessions.find((s) => s['session_id'] === SID)).toMatchObject({ agent: 'OpenCode', files_touched: ['hello.txt'] });
  });
});

describe('restore through opencode import (SPEC-2 §C.2, §A.10)', () => {
  /** A fake `opencode` that logs its argv, exports `held.json` when present and copies what it imports. */
  function fakeStore(): { bin: string; log: () => string[]; hold: (s: string | null) => void; imported: () => string | null } {
    const bin = tempDir();
    const q = (p: string) => `"${join(bin, p)}"`;
    writeFileSync(
      join(bin, 'opencode'),
      `#!/bin/sh
echo "$*" >> ${q('argv.log')}
case "$1" in
  export) [ -f ${q('held.json')} ] || { echo "Session not found" >&2; exit 1; }; cat ${q('held.json')} ;;
  import) stat -c %a "$3" > ${q('mode')}; cp "$3" ${q('imported.json')} ;;
  session) rm -f ${q('held.json')} ;;
esac
`,
    );
    chmodSync(join(bin, 'opencode'), 0o755);
    return {
      bin,
      log: () => (existsSync(join(bin, 'argv.log')) ? readFileSync(join(bin, 'argv.log'), 'utf8').trim().split('\n') : []),
      hold: (s) => (s === null ? undefined : writeFileSync(join(bin, 'held.json'), s)),
      imported: () => (existsSync(join(bin, 'imported.json')) ? readFileSync(join(bin, 'imported.json'), 'utf8') : null),
    };
  }

  it('imports a session OpenCode lacks from a private file, then stages it; same messages: nothing; others: only with consent', async () => {
    const agent = await getAgent('opencode');
    const repo = makeRepo();
    const store = fakeStore();
    const oldPath = process.env['PATH'];
    process.env['PATH'] = `${store.bin}:${oldPath}`;
    try {
      const content = Buffer.from(readFileSync(EXPORT, 'utf8'));
      const no = async () => false;
      const r = await agent.restoreSession!(repo.dir, SID, content, no);
      expect(r).toMatchObject({ status: 'restored', where: expect.stringContaining('opencode import') });
      expect(store.imported()).toBe(content.toString('utf8'));
      expect(readFileSync(join(store.bin, 'mode'), 'utf8').trim()).toBe('600');
      expect(store.log()).toEqual([`export --pure ${SID}`, expect.stringMatching(/^import --pure \/.*\/\.entire\/tmp\/import-.*\.json$/)]);
      // the private file is gone; the staged export is the restored session
      const tmp = join(repo.dir, '.entire', 'tmp');
      expect(readFileSync(join(tmp, `${SID}.json`), 'utf8')).toBe(content.toString('utf8'));
      expect(existsSync(store.log()[1]!.split(' ')[2]!)).toBe(false);

      // OpenCode holds the same messages (other bytes: it re-exports in its own key order)
      store.hold(JSON.stringify(JSON.parse(content.toString('utf8'))));
      expect((await agent.restoreSession!(repo.dir, SID, content, no)).status).toBe('same');
      // other messages: kept without consent; replaced (backup, delete, import) with it
      const fewer = JSON.parse(content.toString('utf8')) as { messages: unknown[] };
      fewer.messages = fewer.messages.slice(0, 2);
      store.hold(JSON.stringify(fewer));
      expect((await agent.restoreSession!(repo.dir, SID, content, no)).status).toBe('kept');
      const asked: string[] = [];
      const yes = async (q: string) => (asked.push(q), true);
      const replaced = await agent.restoreSession!(repo.dir, SID, content, yes);
      expect(replaced.status).toBe('restored');
      expect(asked[0]).toContain(`Replace OpenCode's session ${SID}`);
      expect(readFileSync(replaced.backup!, 'utf8')).toBe(JSON.stringify(fewer));
      expect(store.log().slice(-3)).toEqual([`export --pure ${SID}`, `session delete --pure ${SID}`, expect.stringMatching(/^import --pure /)]);
    } finally {
      process.env['PATH'] = oldPath;
    }
  });
});
