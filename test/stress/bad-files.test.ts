/**
 * Bad files (issue 6 §3): broken transcripts, corrupt or wrong-schema state
 * files, a metadata branch with corrupt metadata.json, and commit messages
 * with CRLF endings, `core.commentChar=;` or bytes that are not UTF-8. The
 * hooks exit 0 with at most one line and no stack trace, log the cause, the
 * git operation proceeds, trailers still resolve, and nothing is written
 * outside `.git/` and `.entire/`.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { mkdirSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { cleanupAll, type TempRepo } from '../helpers/repo.js';
import { FakeClaude } from '../helpers/agent.js';
import { enabledRepo, commit, headMessage, trailerIds, checkpointIds } from '../e2e/helpers.js';
import {
  count,
  expectHookOk,
  expectQuiet,
  logLines,
  snapshot,
  diffSnapshots,
  expectFsck,
  statesParse,
  expectTrailersResolve,
  expectFastForward,
  refOid,
  METADATA,
  leftovers,
} from './helpers.js';

afterAll(cleanupAll);

const skipOurs = (rel: string) => rel === '.git' || rel === '.entire' || rel.startsWith('.git/') || rel.startsWith('.entire/');
const skipCache = (rel: string) => rel === '.cache/entire' || rel.startsWith('.cache/entire/');

/** Run `fn`; the work tree changes only by `allowed` files and HOME not at all (user cache aside). */
function contained(r: TempRepo, allowed: string[], fn: () => void): void {
  const tree = snapshot(r.dir, skipOurs);
  const home = snapshot(r.home, skipCache);
  fn();
  const d = diffSnapshots(tree, snapshot(r.dir, skipOurs)).filter((x) => !allowed.some((a) => x.endsWith(` ${a}`)));
  expect(d, 'wrote into the work tree').toEqual([]);
  expect(diffSnapshots(home, snapshot(r.home, skipCache)), 'wrote into HOME').toEqual([]);
}

function expectLoggedFailure(r: TempRepo, res: SpawnSyncReturns<string>, before: number, what: string): void {
  expectHookOk(res, what);
  const logs = logLines(r).slice(before);
  expect(logs.length, `${what}: nothing logged`).toBeGreaterThan(0);
  if (res.stderr.trim() !== '') {
    expect(logs.some((l) => (l['level'] === 'ERROR' || l['level'] === 'WARN') && l['error']), `${what}: no log line with the cause`).toBe(true);
  }
}

// ---------------------------------------------------------------------------

describe('broken transcripts', () => {
  const line = (o: unknown) => JSON.stringify(o);
  const kinds: Record<string, (path: string, repo: string) => void> = {
    'malformed lines': (p, repo) =>
      writeFileSync(
        p,
        [
          line({ type: 'user', uuid: 'u1', message: { role: 'user', content: 'write x' } }),
          '{"type":"assistant","message":',
          'not json at all',
          'null',
          '[]',
          '"a string"',
          line({ type: 'assistant', message: { content: 'str', usage: 'x' } }),
          line({ type: 'assistant', message: { id: 5, content: [null, 5, { type: 'tool_use' }, { type: 'tool_use', name: 'Write', input: { file_path: 7 } }] } }),
          line({ type: 'user', message: { content: [{ type: 'text' }, { type: 'text', text: 5 }] } }),
          line({ type: 'assistant', uuid: 'u2', message: { id: 'm1', content: [{ type: 'tool_use', name: 'Write', input: { file_path: join(repo, 'x.go') } }], usage: { output_tokens: 'many' } } }),
          '',
          '\u0000\u0001',
        ].join('\n') + '\n',
      ),
    '60 MB single line': (p, repo) =>
      writeFileSync(
        p,
        line({ type: 'user', uuid: 'u1', message: { role: 'user', content: 'write x' } }) +
          '\n' +
          line({ type: 'assistant', uuid: 'u2', message: { id: 'm1', content: [{ type: 'text', text: 'z'.repeat(60 * 1024 * 1024) }] } }) +
          '\n' +
          line({ type: 'assistant', uuid: 'u3', message: { id: 'm2', content: [{ type: 'tool_use', name: 'Write', input: { file_path: join(repo, 'x.go') } }] } }) +
          '\n',
      ),
    'binary garbage': (p) => writeFileSync(p, Buffer.concat([randomBytes(256 * 1024), Buffer.from('\n\x00\n'), randomBytes(1024)])),
    'a directory': (p) => mkdirSync(p, { recursive: true }),
    'a missing file': () => undefined,
    'an unreadable file': (p) => {
      writeFileSync(p, '{"type":"user"}\n');
      chmodSync(p, 0o000);
    },
  };

  for (const [kind, make] of Object.entries(kinds)) {
    it(`${kind}: the turn and the commit still work`, () => {
      count('bad inputs');
      const r = enabledRepo();
      const agent = new FakeClaude(r);
      // inside Claude's transcript root (SPEC-2 §A.5): only there is an agent-named transcript read at all
      const dir = join(r.home, '.claude', 'projects', 'bad-transcripts');
      const bad = join(dir, `${kind.replace(/\W+/g, '-')}.jsonl`);
      mkdirSync(dir, { recursive: true });
      make(bad, r.dir);
      const tip0 = refOid(r, METADATA);
      const hook = (verb: string, extra: Record<string, unknown> = {}) => {
        const before = logLines(r).length;
        const res = r.entire(['hooks', 'claude-code', verb], { input: JSON.stringify({ session_id: agent.sessionId, transcript_path: bad, cwd: r.dir, ...extra }) });
        expectLoggedFailure(r, res, before, `${verb} with ${kind}`);
      };
      contained(r, ['x.go'], () => {
        hook('session-start');
        hook('user-prompt-submit', { prompt: 'write x' });
        writeFileSync(join(r.dir, 'x.go'), 'package x\n');
        hook('stop');
        hook('pre-task', { tool_use_id: 'toolu_1', tool_input: { description: 'd' } });
        hook('post-task', { tool_use_id: 'toolu_1', tool_input: { description: 'd' }, tool_response: { agentId: 'nope' } });
      });
      r.git(['add', 'x.go']);
      const c = commit(r, ['-m', 'x']);
      expect(c.status, c.stderr).toBe(0);
      expectQuiet(c.stderr, 'commit', 2);
      expect(r.git(['ls-tree', '--name-only', 'HEAD'])).toContain('x.go');
      expectTrailersResolve(r);
      expect(trailerIds(headMessage(r)), 'the turn’s file was not linked').toHaveLength(1);
      if (kind === '60 MB single line') {
        const [id] = trailerIds(headMessage(r));
        const stored = r.git(['show', `entire/checkpoints/v1:${id!.slice(0, 2)}/${id!.slice(2)}/0/full.jsonl`]);
        expect(stored.length).toBeLessThan(52_428_800);
        expect(stored).toContain('entire-omitted');
      }
      if (kind === 'an unreadable file') chmodSync(bad, 0o600);
      expectFsck(r);
      statesParse(r);
      expectFastForward(r, tip0);
      expect(leftovers(r)).toEqual([]);
    });
  }

  it('a Gemini transcript that is not JSON, and one that is a JSON array', () => {
    const r = enabledRepo();
    for (const [kind, content] of [
      ['not JSON', 'garbage {'],
      ['an array', '[1,2]'],
      ['messages of the wrong type', '{"messages":"x","sessionId":5}'],
    ] as const) {
      count('bad inputs');
      const p = join(r.home, `gemini-${kind.replace(/\W+/g, '-')}.json`);
      writeFileSync(p, content);
      contained(r, [], () => {
        for (const verb of ['session-start', 'before-agent', 'after-agent', 'session-end']) {
          const before = logLines(r).length;
          const res = r.entire(['hooks', 'gemini', verb], { input: JSON.stringify({ session_id: `g-${kind.replace(/\W+/g, '-')}`, transcript_path: p, cwd: r.dir, prompt: 'p' }), env: { ENTIRE_STOP_WAIT_MS: '0' } });
          expectLoggedFailure(r, res, before, `gemini ${verb} with ${kind}`);
        }
      });
    }
    expectFsck(r);
  });
});

// ---------------------------------------------------------------------------

describe('corrupt state files', () => {
  const kinds: Record<string, string | Buffer | 'dir'> = {
    truncated: '{"session_id":"S","base_commit":"abc","pha',
    empty: '',
    'a JSON array': '[]',
    'session_id of the wrong type': '{"session_id":5,"phase":"idle"}',
    'fields of the wrong type': '{"session_id":"S","phase":["x"],"checkpoint_count":"many","files_touched":"a.go","pending_condensations":{"x":1},"turn_checkpoint_ids":[5]}',
    'another session id': '{"session_id":"someone-else","phase":"idle","checkpoint_count":0,"base_commit":""}',
    'binary garbage': Buffer.concat([Buffer.from([0xff, 0xfe, 0x00]), randomBytes(512)]),
    'a directory': 'dir',
  };

  it('hooks of the session, the person’s commit and doctor all survive', () => {
    const r = enabledRepo();
    const live = new FakeClaude(r);
    live.prompt('write a');
    live.write('a.go', 'package a\n');
    expectHookOk(live.stop(), 'stop');
    const dir = join(r.dir, '.git', 'entire-sessions');
    const corrupt: string[] = [];
    for (const [kind, content] of Object.entries(kinds)) {
      count('bad inputs');
      const sid = `corrupt-${kind.replace(/\W+/g, '-')}`;
      corrupt.push(sid);
      const path = join(dir, `${sid}.json`);
      if (content === 'dir') mkdirSync(path);
      else writeFileSync(path, typeof content === 'string' ? content.replace('"S"', JSON.stringify(sid)) : content);
      const agent = new FakeClaude(r, sid);
      contained(r, [], () => {
        for (const verb of ['session-start', 'user-prompt-submit', 'stop', 'session-end']) {
          const before = logLines(r).length;
          const res = agent.hook(verb, { prompt: 'p' });
          expectLoggedFailure(r, res, before, `${verb} with a state that is ${kind}`);
        }
      });
      if (content !== 'dir') {
        // corrupt files are never rewritten or deleted by hooks (SPEC §4.2)
        const now = readFileSync(path);
        expect(now.equals(typeof content === 'string' ? Buffer.from(content.replace('"S"', JSON.stringify(sid))) : content), `${kind}: the corrupt file was changed`).toBe(true);
      }
    }
    r.git(['add', 'a.go']);
    const c = commit(r, ['-m', 'a']);
    expect(c.status, c.stderr).toBe(0);
    expectQuiet(c.stderr, 'commit', 2);
    expect(trailerIds(headMessage(r))).toHaveLength(1);
    expectTrailersResolve(r);
    const d = r.entire(['doctor']);
    expectQuiet(d.stderr, 'doctor', 1);
    for (const sid of corrupt.filter((s) => !s.includes('another-session'))) expect(d.stdout, 'doctor does not report the corrupt state').toContain(sid);
    const s = r.entire(['status', '--json']);
    expect(s.status, s.stderr).toBe(0);
    JSON.parse(s.stdout);
    expectFsck(r);
  });

  it('a corrupt intent file and a corrupt pre-prompt file', () => {
    count('bad inputs', 2);
    const r = enabledRepo();
    const agent = new FakeClaude(r);
    agent.prompt('write a');
    writeFileSync(join(r.dir, '.entire', 'tmp', `pre-prompt-${agent.sessionId}.json`), '{"dirty_files":[1,2],"step_transcript_start":"x"');
    agent.write('a.go', 'package a\n');
    expectHookOk(agent.stop(), 'stop');
    expect(statesParse(r).get(agent.sessionId)!['files_touched']).toEqual(['a.go']);
    writeFileSync(join(r.dir, '.git', 'entire-commit-intent.json'), '{"id":"zzz","sessions":{"x":"y"},"created_at":5');
    r.git(['add', 'a.go']);
    const c = commit(r, ['-m', 'a']);
    expect(c.status, c.stderr).toBe(0);
    expectQuiet(c.stderr, 'commit', 2);
    expect(trailerIds(headMessage(r))).toHaveLength(1);
    expectTrailersResolve(r);
  });
});

// ---------------------------------------------------------------------------

describe('a metadata branch with corrupt metadata.json', () => {
  function corruptCheckpoint(r: TempRepo, id: string, files: Record<string, string>): void {
    const idx = join(r.dir, '..', 'corrupt-index');
    const env = { GIT_INDEX_FILE: idx };
    r.git(['read-tree', METADATA], { env });
    for (const [rel, content] of Object.entries(files)) {
      const oid = r.git(['hash-object', '-w', '--stdin'], { input: content }).trim();
      r.git(['update-index', '--add', '--cacheinfo', `100644,${oid},${id.slice(0, 2)}/${id.slice(2)}/${rel}`], { env });
    }
    const tree = r.git(['write-tree'], { env }).trim();
    const c = r.git(['commit-tree', tree, '-p', METADATA, '-m', 'corrupt']).trim();
    r.git(['update-ref', METADATA, c]);
  }

  for (const [kind, files] of Object.entries({
    'garbage root and slot metadata': { 'metadata.json': '{garbage', '0/metadata.json': '[]' },
    'wrong schema': { 'metadata.json': '{"checkpoint_id":5,"sessions":"x","checkpoints_count":"y"}', '0/metadata.json': '{"session_id":["a"],"files_touched":7}' },
    'binary content': { 'metadata.json': '\u0000\u00ff\u0001', '0/metadata.json': '\u0000' },
  })) {
    it(`${kind}: finalizing into it, amending it and a new checkpoint still work`, () => {
      count('bad inputs');
      const r = enabledRepo();
      const agent = new FakeClaude(r);
      agent.prompt('write a and commit');
      agent.write('a.go', 'package a\n');
      r.git(['add', 'a.go']);
      expect(commit(r, ['-m', 'a']).status).toBe(0);
      const [id] = trailerIds(headMessage(r));
      corruptCheckpoint(r, id!, files);
      const tip0 = refOid(r, METADATA);
      agent.write('b.go', 'package b\n');
      let before = logLines(r).length;
      agent.say('MARKER');
      contained(r, [], () => expectLoggedFailure(r, agent.hook('stop'), before, 'stop finalizing into a corrupt checkpoint'));
      // amend: writes its slot into the same (corrupt) checkpoint
      r.git(['add', 'b.go']);
      before = logLines(r).length;
      const am = commit(r, ['--amend', '--no-edit']);
      expect(am.status, am.stderr).toBe(0);
      expectQuiet(am.stderr, 'amend', 2);
      expect(trailerIds(headMessage(r))).toEqual([id]);
      // a later commit gets a fresh, valid checkpoint
      agent.prompt('write c');
      agent.write('c.go', 'package c\n');
      expectHookOk(agent.stop(), 'stop');
      r.git(['add', 'c.go']);
      expect(commit(r, ['-m', 'c']).status).toBe(0);
      const [id2] = trailerIds(headMessage(r));
      expect(checkpointIds(r)).toContain(id2);
      expectTrailersResolve(r);
      for (const cmd of [['explain'], ['explain', '--checkpoint', id!], ['status'], ['doctor'], ['explain', '--json']]) {
        const res = r.entire(cmd);
        expect([0, 1], `${cmd.join(' ')}: ${res.stderr}`).toContain(res.status);
        expectQuiet(res.stderr, cmd.join(' '), 1);
      }
      expectFastForward(r, tip0);
      expectFsck(r);
    });
  }
});

// ---------------------------------------------------------------------------

describe('commit messages', () => {
  function qualifying(): { r: TempRepo; agent: FakeClaude } {
    const r = enabledRepo();
    const agent = new FakeClaude(r);
    agent.prompt('write a');
    agent.write('a.go', 'package a\n');
    expectHookOk(agent.stop(), 'stop');
    r.git(['add', 'a.go']);
    return { r, agent };
  }

  it('a message file with CRLF endings (-F)', () => {
    count('bad inputs');
    const { r } = qualifying();
    const f = join(r.dir, '..', 'msg-crlf.txt');
    writeFileSync(f, 'Subject line\r\n\r\nBody line one\r\nBody line two\r\n\r\nSigned-off-by: A <a@b.c>\r\n');
    const c = commit(r, ['-F', f]);
    expect(c.status, c.stderr).toBe(0);
    expectQuiet(c.stderr, 'commit', 1);
    const msg = headMessage(r);
    expect(msg).toContain('Subject line');
    expect(msg).toContain('Body line two');
    expect(trailerIds(msg)).toHaveLength(1);
    expectTrailersResolve(r);
  });

  it('a message with CRLF endings through the editor, and a CRLF message that is only a trailer (commit-msg)', () => {
    count('bad inputs', 2);
    const { r } = qualifying();
    const editor = join(r.dir, '..', 'crlf-editor.sh');
    writeFileSync(editor, '#!/bin/sh\nprintf "Edited subject\\r\\n\\r\\nBody\\r\\n\\r\\n" > "$1.new"\ncat "$1" | tr -d "\\r" | grep "^Entire-Checkpoint" | sed "s/$/\\r/" >> "$1.new"\nmv "$1.new" "$1"\n');
    chmodSync(editor, 0o755);
    const c = commit(r, [], { env: { GIT_EDITOR: editor } });
    expect(c.status, c.stderr).toBe(0);
    expect(headMessage(r)).toContain('Edited subject');
    expect(trailerIds(headMessage(r).replace(/\r/g, ''))).toHaveLength(1);
    expectTrailersResolve(r);
    const only = join(r.dir, '..', 'only-trailer.txt');
    writeFileSync(only, 'Entire-Checkpoint: 0123456789ab\r\n\r\n# comment\r\n');
    expectHookOk(r.entire(['hooks', 'git', 'commit-msg', only]), 'commit-msg');
    expect(readFileSync(only, 'utf8')).not.toContain('Entire-Checkpoint');
  });

  it('core.commentChar=; with an editor commit', () => {
    count('bad inputs');
    const { r } = qualifying();
    r.git(['config', 'core.commentChar', ';']);
    // -e: the editor form, with our comment lines in `;`
    const c = commit(r, ['-e', '-m', 'subject']);
    expect(c.status, c.stderr).toBe(0);
    const msg = headMessage(r);
    expect(msg.split('\n').filter((l) => l.startsWith(';'))).toEqual([]);
    expect(trailerIds(msg)).toHaveLength(1);
    expectTrailersResolve(r);
  });

  it('core.commentChar=auto', () => {
    for (const cc of ['auto']) {
      count('bad inputs');
      const { r } = qualifying();
      r.git(['config', 'core.commentChar', cc]);
      const c = commit(r, ['-m', 'subject']);
      expect(c.status, c.stderr).toBe(0);
      expectQuiet(c.stderr, 'commit', 1);
      expect(trailerIds(headMessage(r))).toHaveLength(1);
      expectTrailersResolve(r);
    }
  });

  it('a message that is not UTF-8 keeps its bytes', () => {
    count('bad inputs');
    const { r } = qualifying();
    // git keeps the bytes (and records the encoding) only when told the project's encoding
    r.git(['config', 'i18n.commitEncoding', 'ISO-8859-1']);
    const f = join(r.dir, '..', 'msg-latin1.txt');
    const bytes = Buffer.from('Caf\xe9 cr\xe8me\n\nd\xe9tails\n', 'latin1');
    writeFileSync(f, bytes);
    const c = commit(r, ['-F', f], { env: { GIT_EDITOR: undefined } });
    expect(c.status, c.stderr).toBe(0);
    const msgBytes = readRawMessage(r);
    expect(msgBytes.includes(Buffer.from('Caf\xe9 cr\xe8me', 'latin1')), `message bytes changed: ${msgBytes.toString('hex')}`).toBe(true);
    expect(trailerIds(msgBytes.toString('latin1'))).toHaveLength(1);
    expectTrailersResolve(r);
  });
});

function readRawMessage(r: TempRepo): Buffer {
  const out = spawnSync('git', ['cat-file', 'commit', 'HEAD'], { cwd: r.dir, env: r.env });
  const buf = out.stdout as Buffer;
  return buf.subarray(buf.indexOf('\n\n') + 2);
}
