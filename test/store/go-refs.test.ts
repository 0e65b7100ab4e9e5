/**
 * SPEC-3 §A: reading the Go CLI's refs-v1 checkpoints (one ref per
 * checkpoint, ULID or hex ids) through the built CLI and real git. The
 * checkpoints are written with git plumbing as Go writes them
 * (test/helpers/go-refs.ts), never by our writer.
 *
 * V1: a repository written only by the Go refs backend. V2: a mixed
 * repository (hex on the branch, ULID refs, one hex id in both places → the
 * ref wins; listings show each id once). V6: a leftover policy ref.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeRepo, cleanupAll, type TempRepo } from '../helpers/repo.js';
import { finalizeGoCheckpoint, goRef, sampleSession, ulid, writeGoCheckpoint, writeGoPolicyRef, type GoCheckpoint, type GoSession } from '../helpers/go-refs.js';
import { writeCheckpoint } from '../commands/helpers.js';

afterAll(() => cleanupAll());

const SID = '28596a79-6247-4bc2-a031-f5848b31e039';

function claudeLine(role: 'user' | 'assistant', text: string, uuid: string): string {
  return JSON.stringify({ type: role, uuid, sessionId: SID, message: { role, content: role === 'user' ? text : [{ type: 'text', text }] } });
}

function session(over: Partial<GoSession> = {}): GoSession {
  return {
    sessionId: SID,
    transcript: [claudeLine('user', 'add the <color> & size file', 'u1'), claudeLine('assistant', 'Done: wrote a.txt', 'a1')].join('\n') + '\n',
    prompts: ['add the <color> & size file'],
    ...over,
  };
}

/** An enabled repository (settings only: no Go refs touched) with `cp` written and a commit linking it. */
function goRepo(): TempRepo {
  const r = makeRepo();
  r.write('.entire/settings.json', '{"enabled": true}\n');
  return r;
}

function commitLinking(r: TempRepo, subject: string, ids: string[]): string {
  r.write(`${subject.replace(/\W+/g, '-')}.txt`, subject + '\n');
  r.git(['add', '-A']);
  const args = ['commit', '-q', '--no-verify', '-m', subject, '-m', ids.map((id) => `Entire-Checkpoint: ${id}`).join('\n')];
  r.git(args);
  return r.git(['rev-parse', 'HEAD']).trim();
}

describe('SPEC-3 V1: a repository written only by the Go refs backend', () => {
  const id = ulid(1);
  const sample = sampleSession();
  const cp: GoCheckpoint = {
    id,
    branch: 'main',
    sessions: [session({ transcript: sample.transcript, prompts: sample.prompts, compact: true, extra: { summary: { intent: 'make <install> & setup friendlier' } } })],
  };

  function setup(): { r: TempRepo; sha: string } {
    const r = goRepo();
    writeGoCheckpoint(r, cp);
    const sha = commitLinking(r, 'install script', [id]);
    return { r, sha };
  }

  it('the Go-written ref has the shape SPEC-3 §A.2–A.3 describes (the helper is Go, not us)', () => {
    const { r } = setup();
    expect(r.git(['for-each-ref', '--format=%(refname)', 'refs/entire/']).trim()).toBe(goRef(id));
    expect(goRef(id)).toBe(`refs/entire/checkpoints/${id.slice(-2)}/${id}`);
    expect(r.git(['rev-list', '--count', goRef(id)]).trim()).toBe('1');
    const root = r.git(['show', `${goRef(id)}:metadata.json`]);
    expect(root).toContain('"transcript": "/0/full.jsonl"');
    const md = r.git(['show', `${goRef(id)}:0/metadata.json`]);
    expect(md).toContain('"model": ""');
    expect(md).toContain('make \\u003cinstall\\u003e \\u0026 setup');
    expect(r.git(['show', `${goRef(id)}:0/prompt.txt`])).toBe(sample.prompts.join('\n\n---\n\n'));
    expect(r.gitResult(['rev-parse', '--verify', '-q', 'refs/heads/entire/checkpoints/v1']).status).not.toBe(0);
  });

  it('explain --commit, explain --checkpoint <ULID> and the explain listing find it', () => {
    const { r, sha } = setup();
    const byCommit = r.entire(['explain', '--commit', sha, '--short']);
    expect(byCommit.status, byCommit.stderr).toBe(0);
    expect(byCommit.stdout).toContain(id);
    expect(byCommit.stdout).toContain(SID.slice(0, 8));

    const byId = r.entire(['explain', '--checkpoint', id, '--json']);
    expect(byId.status, byId.stderr).toBe(0);
    const doc = JSON.parse(byId.stdout) as Record<string, unknown>;
    expect(JSON.stringify(doc)).toContain(id);
    expect(JSON.stringify(doc)).toContain(SID);
    // the whole transcript, read from the ref's root tree (session dir 0/)
    const raw = r.entire(['explain', '--checkpoint', id, '--raw-transcript']);
    expect(raw.status, raw.stderr).toBe(0);
    expect(raw.stdout).toBe(sample.transcript);

    const listing = r.entire(['explain']);
    expect(listing.status, listing.stderr).toBe(0);
    expect(listing.stdout).toContain(id);

    // a ULID's unique prefix resolves; lower case never does (SPEC-3 §A.1: ids round-trip)
    const prefix = r.entire(['explain', '--checkpoint', id.slice(0, 20), '--short']);
    expect(prefix.status, prefix.stderr).toBe(0);
    expect(prefix.stdout).toContain(id);
    const lower = r.entire(['explain', '--checkpoint', id.toLowerCase()]);
    expect(lower.status).not.toBe(0);
  });

  it('resume --commit restores the transcript and prints the resume command', () => {
    const { r, sha } = setup();
    const res = r.entire(['resume', '--commit', sha]);
    expect(res.status, res.stderr).toBe(0);
    const restored = new RegExp(`Restored transcript of session ${SID} to (\\S+)`).exec(res.stdout)?.[1];
    expect(restored, res.stdout + res.stderr).toBeDefined();
    expect(restored!.startsWith(join(r.home, '.claude', 'projects'))).toBe(true);
    expect(readFileSync(restored!, 'utf8')).toBe(sample.transcript);
    const byId = r.entire(['resume', '--checkpoint', id, '--list', '--json']);
    expect(byId.status, byId.stderr).toBe(0);
    expect(byId.stdout).toContain(SID);
  });

  it('status does not warn about the checkpoints settings key; doctor finds no dangling trailer', () => {
    const { r } = setup();
    r.write('.entire/settings.json', JSON.stringify({ enabled: true, checkpoints: { primary: { type: 'git-refs' } } }) + '\n');
    const st = r.entire(['status']);
    expect(st.status, st.stderr).toBe(0);
    expect(st.stderr).not.toContain('unknown key');
    const doc = r.entire(['doctor', '--json']);
    expect(doc.stdout + doc.stderr).not.toContain('dangling-trailer');
  });

  it('doctor reports a ULID trailer whose ref is missing as dangling, naming the ref', () => {
    const { r } = setup();
    const missing = ulid(99);
    commitLinking(r, 'teammate work', [missing]);
    const doc = r.entire(['doctor']);
    expect(doc.stdout).toContain(missing);
    expect(doc.stdout).toContain(`refs/entire/checkpoints/${missing.slice(-2)}/${missing}`);
    expect(doc.stdout).not.toContain(`${id} has no checkpoint`);
  });

  it('an invalid checkpoints block is reported by status and doctor, one line each', () => {
    const { r } = setup();
    r.write('.entire/settings.json', JSON.stringify({ enabled: true, checkpoints: { primary: { type: 'ftp' } } }) + '\n');
    expect(r.entire(['status']).stderr).toContain('"checkpoints.primary.type" must be "git-branch" or "git-refs"');
    expect(r.entire(['doctor']).stderr).toContain('"checkpoints.primary.type" must be "git-branch" or "git-refs"');
  });
});

describe('readers tolerate every variant Go writes', () => {
  it('sorted compact keys, `checkpoint_version` leftovers, chunked transcripts, extra files, two sessions, a finalization commit', () => {
    const r = goRepo();
    const id = ulid(2);
    const s0 = session({ chunks: 3, transcript: [1, 2, 3, 4, 5, 6].map((n) => claudeLine(n % 2 ? 'user' : 'assistant', `line ${n}`, `x${n}`)).join('\n') + '\n', prompts: ['p one', 'p two'] });
    const s1 = session({ sessionId: 'b1b2c3d4-0000-4000-8000-00000000abcd', model: 'claude-opus-4-5', tasks: { toolu_01ABC: { 'agent-x.jsonl': '{}\n' } } });
    const cp: GoCheckpoint = { id, sortedKeys: true, rootExtra: { checkpoint_version: 2 }, extraFiles: { 'NOTES.txt': 'x' }, sessions: [s0, s1] };
    writeGoCheckpoint(r, { ...cp, sessions: [{ ...s0, transcript: s0.transcript.split('\n').slice(0, 2).join('\n') + '\n', chunks: 1 }] });
    finalizeGoCheckpoint(r, cp);
    expect(r.git(['rev-list', '--count', goRef(id)]).trim()).toBe('2');
    expect(r.git(['show', `${goRef(id)}:metadata.json`]).startsWith('{"branch":')).toBe(true);
    const sha = commitLinking(r, 'variants', [id]);

    const raw = r.entire(['explain', '--checkpoint', id, '--session', SID, '--raw-transcript']);
    expect(raw.status, raw.stderr).toBe(0);
    // the tip (the finalization) is read, its three chunks joined in order
    expect(raw.stdout).toBe(s0.transcript);
    const json = r.entire(['explain', '--commit', sha, '--json']);
    expect(json.status, json.stderr).toBe(0);
    expect(json.stdout).toContain('b1b2c3d4-0000-4000-8000-00000000abcd');
    const one = r.entire(['explain', '--checkpoint', id, '--json']);
    expect(one.status, one.stderr).toBe(0);
    // Go's "model": "" names no model; the second session's does
    expect(one.stdout).toContain('"model": "claude-opus-4-5"');
    expect(one.stdout).toContain('"model": null');
  });

  it('only refs of the checkpoint shape are checkpoints (shard = last two characters, no deeper paths)', () => {
    const r = goRepo();
    const good = ulid(3);
    writeGoCheckpoint(r, { id: good, sessions: [session()] });
    const tip = r.git(['rev-parse', goRef(good)]).trim();
    const wrongShard = ulid(4);
    const deeper = ulid(7);
    r.git(['update-ref', `refs/entire/checkpoints/${wrongShard.slice(0, 2)}/${wrongShard}`, tip]);
    r.git(['update-ref', `refs/entire/checkpoints/${deeper.slice(-2)}/${deeper}/extra`, tip]);
    r.git(['update-ref', 'refs/entire/checkpoints/meta', tip]);
    // the session's listing walks every checkpoint: only the well-shaped ref is one
    const list = r.entire(['explain', '--session', SID]);
    expect(list.status, list.stderr).toBe(0);
    expect(list.stdout).toContain(good);
    expect(list.stdout).not.toContain(wrongShard);
    expect(list.stdout).not.toContain(deeper);
    expect(r.entire(['explain', '--checkpoint', deeper]).status).not.toBe(0);
    const bad = r.entire(['explain', '--checkpoint', wrongShard]);
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toContain('not found');
  });
});

describe('SPEC-3 V2: a mixed repository', () => {
  it('hex on the branch, ULID refs, a hex id in both places: the ref wins; listings show each id once', async () => {
    const r = goRepo();
    const hexOnly = 'aa11bb22cc33';
    const both = 'dd44ee55ff66';
    const uid = ulid(5);
    await writeCheckpoint(r, { checkpointId: hexOnly, sessionId: 'branch-only-session', transcript: claudeLine('user', 'from the branch', 'b1') + '\n', prompts: ['branch prompt'] });
    await writeCheckpoint(r, { checkpointId: both, sessionId: 'branch-copy-session', transcript: claudeLine('user', 'BRANCH COPY', 'b2') + '\n', prompts: ['branch copy'] });
    writeGoCheckpoint(r, { id: both, sessions: [session({ sessionId: 'ref-copy-session', transcript: claudeLine('user', 'REF COPY', 'r1') + '\n', prompts: ['ref copy'] })] });
    writeGoCheckpoint(r, { id: uid, sessions: [session()] });
    const sha = commitLinking(r, 'squash of three', [hexOnly, uid, both]);

    const cp = r.entire(['explain', '--checkpoint', both, '--raw-transcript']);
    expect(cp.status, cp.stderr).toBe(0);
    expect(cp.stdout).toContain('REF COPY');
    expect(cp.stdout).not.toContain('BRANCH COPY');

    const commit = r.entire(['explain', '--commit', sha, '--json']);
    expect(commit.status, commit.stderr).toBe(0);
    for (const id of [hexOnly, uid, both]) expect(commit.stdout).toContain(id);
    expect(commit.stdout).toContain('ref-copy-session');
    expect(commit.stdout).not.toContain('branch-copy-session');

    const list = r.entire(['explain']);
    expect(list.status, list.stderr).toBe(0);
    for (const id of [hexOnly, uid, both]) expect(list.stdout.split(id).length - 1, `${id} in\n${list.stdout}`).toBe(1);

    const doc = r.entire(['doctor']);
    expect(doc.stdout).not.toContain('has no checkpoint');
    const res = r.entire(['resume', '--commit', sha, '--list', '--json']);
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout).toContain('ref-copy-session');
    expect(res.stdout).toContain('branch-only-session');
    expect(res.stdout).not.toContain('branch-copy-session');
  });
});

describe('SPEC-3 V6: a leftover policy ref changes nothing', () => {
  it('explain, status and doctor read the same with refs/entire/policies/checkpoint present', () => {
    const r = goRepo();
    const id = ulid(6);
    writeGoCheckpoint(r, { id, sessions: [session()] });
    const sha = commitLinking(r, 'work', [id]);
    const before = [r.entire(['explain', '--commit', sha, '--json']).stdout, r.entire(['explain']).stdout, r.entire(['doctor', '--json']).stdout];
    writeGoPolicyRef(r);
    const after = [r.entire(['explain', '--commit', sha, '--json']).stdout, r.entire(['explain']).stdout, r.entire(['doctor', '--json']).stdout];
    expect(after).toEqual(before);
    const st = r.entire(['status']);
    expect(st.status, st.stderr).toBe(0);
    expect(st.stderr).toBe('');
  });
});

describe('SPEC-3 §A.4: a teammate\'s checkpoint that is not local', () => {
  it('explain --commit fetches that one ref from origin; with origin gone it is "not available"', () => {
    const remote = goRepo();
    const id = ulid(20);
    const other = ulid(21);
    writeGoCheckpoint(remote, { id, sessions: [session({ sessionId: 'teammate-session' })] });
    writeGoCheckpoint(remote, { id: other, sessions: [session({ sessionId: 'unfetched' })] });
    commitLinking(remote, 'teammate change', [id]);
    const sha = commitLinking(remote, 'second change', [other]);
    const clone = join(remote.dir, '..', 'clone');
    remote.git(['clone', '-q', remote.dir, clone]);
    const r: TempRepo = { ...remote, dir: clone, entire: (args, opts = {}) => remote.entire(args, { ...opts, cwd: clone }), git: (args, opts = {}) => remote.git(args, { ...opts, cwd: clone }) };
    expect(r.git(['for-each-ref', 'refs/entire/']).trim()).toBe('');

    const res = r.entire(['explain', '--commit', `${sha}~1`, '--short']);
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout).toContain(id);
    expect(r.git(['for-each-ref', '--format=%(refname)', 'refs/entire/']).trim()).toBe(goRef(id));

    r.git(['remote', 'set-url', 'origin', join(clone, '..', 'gone')]);
    const gone = r.entire(['explain', '--commit', sha]);
    expect(gone.status).not.toBe(0);
    expect(gone.stderr).toContain(`checkpoint ${other} is not available`);
    expect(gone.stderr).not.toContain('not found');
  });
});
