/**
 * Issue 14 case 11, SPEC-2 §A.11 / §E.3: refs of Entire's branches that name
 * objects `git gc --prune=now` removed, and ref locks left by killed hooks.
 * Through the built CLI, real git and a scripted Claude session.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeRepo, cleanupAll, fsck, type TempRepo } from '../helpers/repo.js';
import { FakeClaude } from '../helpers/agent.js';

afterAll(() => cleanupAll());

interface JsonFinding {
  kind: string;
  session_id?: string;
  checkpoint_id?: string;
  commit?: string;
  status: 'found' | 'fixed' | 'failed';
  detail: string;
}

const META = 'refs/heads/entire/checkpoints/v1';
const TRACKING = 'refs/remotes/origin/entire/checkpoints/v1';

function enabledRepo(): TempRepo {
  const r = makeRepo();
  const res = r.entire(['enable']);
  expect(res.status, res.stderr).toBe(0);
  return r;
}

function doctorJson(r: TempRepo, ...args: string[]): { status: number | null; doc: { findings: JsonFinding[]; found: number; fixed: number } } {
  const res = r.entire(['doctor', '--json', ...args]);
  expect(res.stderr, res.stderr).not.toMatch(/\n\s+at /);
  return { status: res.status, doc: JSON.parse(res.stdout) as { findings: JsonFinding[]; found: number; fixed: number } };
}

function sessionsDir(r: TempRepo): string {
  return join(r.git(['rev-parse', '--path-format=absolute', '--git-common-dir']).trim(), 'entire-sessions');
}

function stateOf(r: TempRepo, sid: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(sessionsDir(r), `${sid}.json`), 'utf8')) as Record<string, unknown>;
}

function lastTrailer(r: TempRepo): string {
  const id = /^Entire-Checkpoint: ([0-9a-f]{12})$/m.exec(r.git(['log', '-1', '--format=%B']))?.[1];
  expect(id).toBeDefined();
  return id!;
}

function hasCheckpoint(r: TempRepo, id: string): boolean {
  return r.gitResult(['cat-file', '-e', `${META}:${id.slice(0, 2)}/${id.slice(2)}/metadata.json`]).status === 0;
}

/** One agent turn writing `<name>.txt` (content `<name>\n`), ended by a Stop with `env`. */
function turn(agent: FakeClaude, name: string, env: Record<string, string> = {}): void {
  agent.prompt(`create ${name}`);
  agent.write(`${name}.txt`, `${name}\n`);
  expect(agent.stop(env).status).toBe(0);
}

/** One agent turn writing `file`, then a person's commit of it; returns the commit's trailer and sha. */
function turnAndCommit(r: TempRepo, agent: FakeClaude, file: string, env: Record<string, string> = {}): { id: string; sha: string; stderr: string } {
  agent.prompt(`create ${file}`);
  agent.write(file, `${file}\n`);
  expect(agent.stop(env).status).toBe(0);
  r.git(['add', file]);
  const c = r.gitResult(['commit', '-m', `add ${file}`], { env });
  expect(c.status, c.stderr).toBe(0);
  expect(c.stderr).not.toMatch(/\n\s+at /);
  return { id: lastTrailer(r), sha: r.git(['rev-parse', 'HEAD']).trim(), stderr: c.stderr };
}

function objectPath(r: TempRepo, oid: string): string {
  return join(r.dir, '.git', 'objects', oid.slice(0, 2), oid.slice(2));
}

/**
 * What `git gc --prune=now` racing a checkpoint write leaves: the ref (and its
 * reflog line) names a commit whose loose objects are gone. The write runs
 * with ENTIRE_PACK_WRITES=0 so its objects are loose files to delete.
 */
function pruneTip(r: TempRepo, ref: string): string {
  const tip = r.git(['rev-parse', ref]).trim();
  const tree = r.git(['rev-parse', `${tip}^{tree}`]).trim();
  for (const oid of [tip, tree]) {
    expect(existsSync(objectPath(r, oid)), `${oid} is loose`).toBe(true);
    rmSync(objectPath(r, oid), { force: true });
  }
  expect(r.gitResult(['cat-file', '-e', tip]).status).not.toBe(0);
  return tip;
}

/** `entire explain --commit <sha>` resolves the commit's checkpoint. */
function explains(r: TempRepo, sha: string, id: string): boolean {
  const res = r.entire(['explain', '--commit', sha, '--json']);
  expect(res.stderr).not.toMatch(/\n\s+at /);
  return res.status === 0 && res.stdout.includes(id);
}

const LOOSE = { ENTIRE_PACK_WRITES: '0' };

/** The one shadow branch of the repository. */
function shadowRefOf(r: TempRepo): string {
  const branches = r.git(['for-each-ref', '--format=%(refname)', 'refs/heads/entire/']).split('\n').filter((b) => /-[0-9a-f]{6}$/.test(b));
  expect(branches).toHaveLength(1);
  return branches[0]!;
}

describe('doctor: refs naming missing objects', () => {
  it('case 11: the metadata tip is pruned; hooks and explain keep working, doctor reports broken-metadata-ref, --force restores the branch and re-writes the lost checkpoint', () => {
    const r = enabledRepo();
    const agent = new FakeClaude(r);
    agent.sessionStart();
    const c1 = turnAndCommit(r, agent, 'f1.txt');
    const c2 = turnAndCommit(r, agent, 'f2.txt');
    const c3 = turnAndCommit(r, agent, 'f3.txt', LOOSE);
    const previous = r.git(['rev-parse', `${META}~1`]).trim();
    const lostTip = pruneTip(r, META);

    // readers: no crash; what the broken tip held is simply not found
    for (const c of [c1, c2, c3]) {
      const res = r.entire(['explain', '--commit', c.sha]);
      expect(res.stderr).not.toMatch(/\n\s+at /);
    }
    expect(r.entire(['status']).stderr).not.toMatch(/\n\s+at /);
    // hooks: the next turn and commit succeed; the checkpoint becomes pending work
    const c4 = turnAndCommit(r, agent, 'f4.txt');
    expect(c4.stderr).toContain(`checkpoint ${c4.id} not written yet; will retry`);
    expect(r.git(['rev-parse', META]).trim()).toBe(lostTip);
    const pending = stateOf(r, agent.sessionId)['pending_condensations'] as { checkpoint_id: string; last_error: string }[];
    expect(pending.map((p) => p.checkpoint_id)).toEqual([c4.id]);
    expect(pending[0]!.last_error).toContain('entire doctor --force');

    // doctor reports, changes nothing
    const found = doctorJson(r);
    expect(found.status).toBe(0);
    const broken = found.doc.findings.find((f) => f.kind === 'broken-metadata-ref');
    expect(broken?.status).toBe('found');
    expect(broken?.detail).toContain(`names commit ${lostTip.slice(0, 12)}, which is missing`);
    expect(broken?.detail).toContain(`can be reset to ${previous.slice(0, 7)} (its reflog entry of `);
    const dangling = found.doc.findings.filter((f) => f.kind === 'dangling-trailer').map((f) => f.checkpoint_id).sort();
    expect(dangling).toEqual([c3.id, c4.id].sort());
    expect(found.doc.findings.find((f) => f.checkpoint_id === c3.id && f.kind === 'dangling-trailer')?.detail).toContain('re-written with --force');
    expect(r.git(['rev-parse', META]).trim()).toBe(lostTip);

    // --force: reset to the newest complete reflog entry, lost and pending checkpoints written
    const fixed = r.entire(['doctor', '--force']);
    expect(fixed.status, fixed.stdout + fixed.stderr).toBe(0);
    expect(fixed.stdout).toMatch(new RegExp(`^\\[fixed\\] broken-metadata-ref entire/checkpoints/v1: .* → reset to ${previous.slice(0, 7)}; 1 lost checkpoint slot\\(s\\) queued`, 'm'));
    expect(fixed.stdout).toMatch(new RegExp(`^\\[fixed\\] dangling-trailer ${c3.sha.slice(0, 7)}: `, 'm'));
    expect(fixed.stdout).toMatch(new RegExp(`^\\[fixed\\] dangling-trailer ${c4.sha.slice(0, 7)}: `, 'm'));
    for (const c of [c1, c2, c3, c4]) {
      expect(hasCheckpoint(r, c.id), c.id).toBe(true);
      expect(explains(r, c.sha, c.id), c.id).toBe(true);
    }
    // the re-written checkpoint holds the session's transcript and the commit's file
    const md = JSON.parse(r.git(['show', `${META}:${c3.id.slice(0, 2)}/${c3.id.slice(2)}/0/metadata.json`])) as Record<string, unknown>;
    expect(md['session_id']).toBe(agent.sessionId);
    expect(md['files_touched']).toEqual(['f3.txt']);
    expect(r.git(['show', `${META}:${c3.id.slice(0, 2)}/${c3.id.slice(2)}/0/full.jsonl`])).toContain('create f3.txt');
    expect(stateOf(r, agent.sessionId)['pending_condensations']).toBeUndefined();
    expect(fsck(r).ok, fsck(r).output).toBe(true);
    // (the shadow branch the pending entry kept alive is an orphan now: the next run deletes it)
    expect(doctorJson(r).doc.findings.map((f) => f.kind)).toEqual(['orphan-shadow-branch']);
    // and the hooks write on the restored branch again
    const c5 = turnAndCommit(r, agent, 'f5.txt');
    expect(c5.stderr).not.toContain('not written yet');
    expect(hasCheckpoint(r, c5.id)).toBe(true);
  });

  it('says which checkpoints cannot be restored (no session holds their data)', () => {
    const r = enabledRepo();
    const agent = new FakeClaude(r);
    agent.sessionStart();
    const c1 = turnAndCommit(r, agent, 'f1.txt');
    const c2 = turnAndCommit(r, agent, 'f2.txt', LOOSE);
    pruneTip(r, META);
    // the session is over and its transcript gone: nothing can write c2's checkpoint again
    expect(agent.sessionEnd().status).toBe(0);
    rmSync(agent.transcriptPath);

    const res = r.entire(['doctor', '--force']);
    expect(res.status, res.stdout + res.stderr).toBe(0);
    expect(res.stdout).toMatch(new RegExp(`^\\[fixed\\] broken-metadata-ref entire/checkpoints/v1: .*cannot be restored: ${c2.id}$`, 'm'));
    expect(res.stdout).toMatch(
      new RegExp(`^\\[found\\] dangling-trailer ${c2.sha.slice(0, 7)}: Entire-Checkpoint ${c2.id} was lost with the missing commits of entire/checkpoints/v1 and no session holds its data: it cannot be restored$`, 'm'),
    );
    expect(explains(r, c1.sha, c1.id)).toBe(true);
    expect(hasCheckpoint(r, c2.id)).toBe(false);
    expect(fsck(r).ok, fsck(r).output).toBe(true);
  });

  it('a checkpoint of two sessions whose second slot was lost gets it back', () => {
    const r = enabledRepo();
    const a = new FakeClaude(r);
    const b = new FakeClaude(r);
    a.sessionStart();
    b.sessionStart();
    const c1 = turnAndCommit(r, a, 'f1.txt');
    a.prompt('create a.txt');
    a.write('a.txt', 'a\n');
    expect(a.stop().status).toBe(0);
    b.prompt('create b.txt');
    b.write('b.txt', 'b\n');
    expect(b.stop().status).toBe(0);
    r.git(['add', 'a.txt', 'b.txt']);
    const c = r.gitResult(['commit', '-m', 'a and b'], { env: LOOSE });
    expect(c.status, c.stderr).toBe(0);
    const id = lastTrailer(r);
    const sha = r.git(['rev-parse', 'HEAD']).trim();
    const slots = () => r.git(['ls-tree', '--name-only', `${META}:${id.slice(0, 2)}/${id.slice(2)}`]).split('\n').filter((n) => /^\d+$/.test(n));
    expect(slots()).toEqual(['0', '1']);
    pruneTip(r, META);

    // one commit per session: the restorable branch holds the checkpoint with the first slot only
    const found = doctorJson(r).doc.findings.find((f) => f.kind === 'dangling-trailer');
    expect(found?.detail).toMatch(new RegExp(`^Entire-Checkpoint ${id} is on the restorable entire/checkpoints/v1 without the slot of session [0-9a-f]{8} \\(lost with the missing commits\\)`));
    const res = r.entire(['doctor', '--force']);
    expect(res.status, res.stdout + res.stderr).toBe(0);
    expect(res.stdout).toContain('1 lost checkpoint slot(s) queued');
    expect(res.stdout).toMatch(new RegExp(`^\\[fixed\\] dangling-trailer ${sha.slice(0, 7)}: .* → slot\\(s\\) written$`, 'm'));
    expect(slots()).toEqual(['0', '1']);
    const sids = slots().map((n) => (JSON.parse(r.git(['show', `${META}:${id.slice(0, 2)}/${id.slice(2)}/${n}/metadata.json`])) as { session_id: string }).session_id);
    expect(sids.sort()).toEqual([a.sessionId, b.sessionId].sort());
    expect(explains(r, sha, id)).toBe(true);
    expect(explains(r, c1.sha, c1.id)).toBe(true);
  });

  it('without a reflog: restored from the checkpoint commits the object store still holds', () => {
    const r = enabledRepo();
    const agent = new FakeClaude(r);
    agent.sessionStart();
    const c1 = turnAndCommit(r, agent, 'f1.txt');
    const c2 = turnAndCommit(r, agent, 'f2.txt');
    const c3 = turnAndCommit(r, agent, 'f3.txt', LOOSE);
    const before3 = r.git(['rev-parse', `${META}~1`]).trim();
    pruneTip(r, META);
    rmSync(join(r.dir, '.git', 'logs', META));

    const found = doctorJson(r).doc.findings.find((f) => f.kind === 'broken-metadata-ref');
    expect(found?.detail).toContain(`can be reset to ${before3.slice(0, 7)} (an unreachable checkpoint commit of `);
    const res = r.entire(['doctor', '--force']);
    expect(res.status, res.stdout + res.stderr).toBe(0);
    expect(res.stdout).toMatch(new RegExp(`^\\[fixed\\] broken-metadata-ref entire/checkpoints/v1: .* → reset to ${before3.slice(0, 7)}; 1 lost checkpoint slot\\(s\\) queued`, 'm'));
    // the lost checkpoint was written again on top of the restored commit
    expect(r.gitResult(['merge-base', '--is-ancestor', before3, META]).status).toBe(0);
    for (const c of [c1, c2, c3]) expect(explains(r, c.sha, c.id), c.id).toBe(true);
    expect(fsck(r).ok, fsck(r).output).toBe(true);
  });

  it('readers fall back to the remote-tracking ref; --force merges it into the restored branch; a tracking ref naming a missing object is stale-remote-tracking', () => {
    const r = enabledRepo();
    const remote = makeRepo({ bare: true });
    r.git(['remote', 'add', 'origin', remote.dir]);
    const agent = new FakeClaude(r);
    agent.sessionStart();
    const c1 = turnAndCommit(r, agent, 'f1.txt');
    // the push (pre-push hook) sends the metadata branch; fetch the tracking ref
    expect(r.gitResult(['push', '-q', 'origin', 'main']).status).toBe(0);
    r.git(['fetch', '-q', 'origin', `+${META}:${TRACKING}`]);
    const c2 = turnAndCommit(r, agent, 'f2.txt', LOOSE);
    pruneTip(r, META);
    rmSync(join(r.dir, '.git', 'logs', META));

    // explain reads the tracking data meanwhile
    expect(explains(r, c1.sha, c1.id)).toBe(true);
    const res = r.entire(['doctor', '--force']);
    expect(res.status, res.stdout + res.stderr).toBe(0);
    expect(res.stdout).toMatch(/^\[fixed\] broken-metadata-ref entire\/checkpoints\/v1: .*remotes\/origin\/entire\/checkpoints\/v1/m);
    for (const c of [c1, c2]) expect(explains(r, c.sha, c.id), c.id).toBe(true);

    // now the tracking ref names a missing object: ignored by readers, reported, deleted with --force
    writeFileSync(join(r.dir, '.git', TRACKING), '0123456789abcdef0123456789abcdef01234567\n');
    for (const c of [c1, c2]) expect(explains(r, c.sha, c.id), c.id).toBe(true);
    const stale = doctorJson(r).doc.findings;
    expect(stale).toEqual([expect.objectContaining({ kind: 'stale-remote-tracking', status: 'found' })]);
    const fixed = doctorJson(r, '--force').doc.findings;
    expect(fixed).toEqual([expect.objectContaining({ kind: 'stale-remote-tracking', status: 'fixed' })]);
    expect(r.gitResult(['rev-parse', '--verify', '-q', TRACKING]).status).not.toBe(0);
    // (and the counts of the pending work hooks resumed, issue 19)
    expect(r.entire(['doctor']).stdout).toMatch(/^No problems found\.\n(Hook operations: .*\n)?$/);
  });

  it('a shadow branch naming a missing step: doctor reports broken-shadow-ref and --force puts it back on the previous step', () => {
    const r = enabledRepo();
    const agent = new FakeClaude(r);
    agent.sessionStart();
    turn(agent, 's1');
    turn(agent, 's2', LOOSE);
    const shadow = shadowRefOf(r);
    const previous = r.git(['rev-parse', `${shadow}~1`]).trim();
    pruneTip(r, shadow);

    const found = doctorJson(r).doc.findings;
    expect(found).toEqual([expect.objectContaining({ kind: 'broken-shadow-ref', status: 'found' })]);
    expect(found[0]!.detail).toContain(`can be reset to ${previous.slice(0, 7)} (an unreachable step of `);
    const res = r.entire(['doctor', '--force']);
    expect(res.status, res.stdout).toBe(0);
    expect(res.stdout).toMatch(new RegExp(`^\\[fixed\\] broken-shadow-ref ${shadow.slice('refs/heads/'.length)}: .* → reset to ${previous.slice(0, 7)}$`, 'm'));
    expect(r.git(['rev-parse', shadow]).trim()).toBe(previous);
    // the next Stop steps on from there
    turn(agent, 's3');
    expect(r.git(['rev-parse', `${shadow}~1`]).trim()).toBe(previous);
    expect(r.git(['ls-tree', '--name-only', shadow])).toContain('s3.txt');
    expect(fsck(r).ok, fsck(r).output).toBe(true);
  });

  it('a Stop meeting a shadow branch that names a missing step starts the branch again: the session keeps its files and the commit its trailer', () => {
    const r = enabledRepo();
    const agent = new FakeClaude(r);
    agent.sessionStart();
    turn(agent, 's1', LOOSE);
    const shadow = shadowRefOf(r);
    const lost = pruneTip(r, shadow);
    agent.prompt('create s2');
    agent.write('s2.txt', 's2\n');
    const stop = agent.stop();
    expect(stop.status).toBe(0);
    expect(stop.stderr).not.toMatch(/\n\s+at /);
    const tip = r.git(['rev-parse', shadow]).trim();
    expect(tip).not.toBe(lost);
    expect(r.git(['log', '--format=%P', '-1', shadow]).trim()).toBe(''); // started again
    expect(r.git(['ls-tree', '--name-only', shadow]).split('\n')).toEqual(expect.arrayContaining(['s1.txt', 's2.txt']));
    expect(stateOf(r, agent.sessionId)['files_touched']).toEqual(['s1.txt', 's2.txt']);
    r.git(['add', 's1.txt', 's2.txt']);
    const c = r.gitResult(['commit', '-m', 'add s1 s2']);
    expect(c.status, c.stderr).toBe(0);
    const id = lastTrailer(r);
    expect(hasCheckpoint(r, id)).toBe(true);
    expect(fsck(r).ok, fsck(r).output).toBe(true);
  });

  it('a shadow branch whose steps are all gone is deleted, and the next Stop starts it again', () => {
    const r = enabledRepo();
    const agent = new FakeClaude(r);
    agent.sessionStart();
    turn(agent, 's1', LOOSE);
    const shadow = shadowRefOf(r);
    pruneTip(r, shadow);
    const res = r.entire(['doctor', '--force']);
    expect(res.stdout).toMatch(/^\[fixed\] broken-shadow-ref .*its steps are lost.* → deleted$/m);
    expect(r.gitResult(['rev-parse', '--verify', '-q', shadow]).status).not.toBe(0);
    turn(agent, 's2');
    expect(r.git(['ls-tree', '--name-only', shadow])).toContain('s2.txt');
  });
});

describe('doctor: ref locks', () => {
  it('a ref lock left by a killed hook is reported once stale and cleared with --force; the blocked checkpoint is then written', () => {
    const r = enabledRepo();
    const agent = new FakeClaude(r);
    agent.sessionStart();
    agent.prompt('create b.txt');
    agent.write('b.txt', 'b\n');
    expect(agent.stop().status).toBe(0);
    const lock = join(r.dir, '.git', 'refs', 'heads', 'entire', 'checkpoints', 'v1.lock');
    writeFileSync(lock, '');
    r.git(['add', 'b.txt']);
    const c = r.gitResult(['commit', '-m', 'add b']);
    expect(c.status, c.stderr).toBe(0);
    const id = lastTrailer(r);
    expect(hasCheckpoint(r, id)).toBe(false);

    // a fresh lock may belong to a live ref update: not reported
    expect(doctorJson(r).doc.findings.map((f) => f.kind)).not.toContain('stale-ref-lock');
    const old = new Date(Date.now() - 20 * 60 * 1000);
    utimesSync(lock, old, old);
    const packedLock = join(r.dir, '.git', 'packed-refs.lock');
    writeFileSync(packedLock, '');
    utimesSync(packedLock, old, old);
    const found = doctorJson(r).doc.findings.filter((f) => f.kind === 'stale-ref-lock');
    expect(found.map((f) => f.status)).toEqual(['found', 'found']);
    expect(found[0]!.detail).toMatch(/ref lock last written 20 min ago/);
    expect(existsSync(lock)).toBe(true);

    const res = r.entire(['doctor', '--force']);
    expect(res.status, res.stdout + res.stderr).toBe(0);
    expect(res.stdout).toMatch(/^\[fixed\] stale-ref-lock refs\/heads\/entire\/checkpoints\/v1\.lock: .* → removed$/m);
    expect(res.stdout).toMatch(/^\[fixed\] stale-ref-lock packed-refs\.lock: .* → removed$/m);
    expect(existsSync(lock)).toBe(false);
    expect(existsSync(packedLock)).toBe(false);
    expect(hasCheckpoint(r, id)).toBe(true);
    expect(doctorJson(r).doc.findings.map((f) => f.kind)).not.toContain('stale-ref-lock');
  });
});

