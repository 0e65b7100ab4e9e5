/**
 * Team sync v2 (SPEC-2 §E, issue 18) through real git: clones of one bare
 * remote, `entire enable` in each, checkpoints made by real hooks.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { bundleScript } from '../helpers/bundle.js';
import { cleanupAll, type TempRepo } from '../helpers/repo.js';
import { META, bareRemote, checkpointedCommit, checkpointsOn, clone, enabled, objectList, reachable } from './team-helpers.js';

afterAll(() => cleanupAll());

const OUR_REFSPEC = (r: string): string => `+refs/heads/entire/checkpoints/*:refs/remotes/${r}/entire/checkpoints/*`;
const fetchSpecs = (r: TempRepo, remote = 'origin'): string[] =>
  r.gitResult(['config', '--get-all', `remote.${remote}.fetch`]).stdout.split('\n').filter((l) => l !== '');
const sha = (r: TempRepo, rev: string): string => r.git(['rev-parse', rev]).trim();

describe('an enabled teammate reads everyone’s checkpoints after git fetch (E1)', () => {
  it('local unpushed and fetched checkpoints are both visible, without touching the local branch', () => {
    const remote = bareRemote();
    const a = enabled(clone(remote, 'a'));
    const b = enabled(clone(remote, 'b'));
    const idA = checkpointedCommit(a, 'feature-a', 'a.txt');
    const pa = a.gitResult(['push', '-q', 'origin', 'feature-a']);
    expect(pa.status, pa.stderr).toBe(0);
    const idB = checkpointedCommit(b, 'feature-b', 'b.txt'); // never pushed

    const localBefore = sha(b, META);
    const f = b.gitResult(['fetch', '-q']);
    expect(f.status, f.stderr).toBe(0);
    // plain `git fetch` brought a's checkpoints into the tracking ref
    expect(checkpointsOn(b, `refs/remotes/origin/${META}`)).toContain(idA);

    const ea = b.entire(['explain', '--commit', 'origin/feature-a']);
    expect(ea.status, ea.stderr).toBe(0);
    expect(ea.stdout).toContain(idA);
    const eb = b.entire(['explain', '--commit', 'HEAD']);
    expect(eb.status, eb.stderr).toBe(0);
    expect(eb.stdout).toContain(idB);
    for (const id of [idA, idB]) {
      const e = b.entire(['explain', '--checkpoint', id]);
      expect(e.status, e.stderr).toBe(0);
      expect(e.stdout).toContain(`please create ${id === idA ? 'a.txt' : 'b.txt'}`);
    }
    // readers union; they never merge into (or move) the local branch
    expect(sha(b, META)).toBe(localBefore);

    // status says where the branch stands: our unpushed commit ahead, the teammate's fetched one behind
    const st = b.entire(['status', '--json']);
    expect(st.status, st.stderr).toBe(0);
    const sync = (JSON.parse(st.stdout) as { checkpoint_sync: { checkpoint_remote: string | null; remotes: { remote: string; tracked: boolean; ahead: number; behind: number }[] } }).checkpoint_sync;
    expect(sync.checkpoint_remote).toBeNull();
    expect(sync.remotes).toHaveLength(1);
    expect(sync.remotes[0]).toMatchObject({ remote: 'origin', tracked: true });
    expect(sync.remotes[0]!.ahead).toBeGreaterThan(0);
    expect(sync.remotes[0]!.behind).toBeGreaterThan(0);
    const text = b.entire(['status']).stdout;
    expect(text).toContain('Checkpoints: pushed with every git push');
    expect(text).toMatch(/origin: \d+ ahead, \d+ behind/);

    // resume on the teammate's branch finds their checkpoint (docs/commands/resume.md)
    const r = b.entire(['resume', 'feature-a', '--force']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('No Entire checkpoint found');
    expect(r.stdout).toContain('To continue this session');
  });

  it('the other way round: after b pushes (merging), a fetches and reads b’s checkpoint', () => {
    const remote = bareRemote();
    const a = enabled(clone(remote, 'a'));
    const b = enabled(clone(remote, 'b'));
    const idA = checkpointedCommit(a, 'feature-a', 'a.txt');
    expect(a.gitResult(['push', '-q', 'origin', 'feature-a']).status).toBe(0);
    const idB = checkpointedCommit(b, 'feature-b', 'b.txt');
    const pb = b.gitResult(['push', '-q', 'origin', 'feature-b']);
    expect(pb.status, pb.stderr).toBe(0);
    expect(checkpointsOn(remote)).toEqual([idA, idB].sort());
    expect(a.gitResult(['fetch', '-q']).status).toBe(0);
    const e = a.entire(['explain', '--commit', 'origin/feature-b']);
    expect(e.status, e.stderr).toBe(0);
    expect(e.stdout).toContain(idB);
  });
});

describe('one checkpoint id in two copies (E.1 with A.7)', () => {
  it('other sessions all show; the same session shows the local slot unless the other strictly extends it', async () => {
    const writer = await bundleScript('test/helpers/store-writer.ts');
    const remote = bareRemote();
    const a = enabled(clone(remote, 'a'));
    const b = enabled(clone(remote, 'b'));
    const shared = 'c0ffee654321';
    const write = (r: TempRepo, sid: string, n = 1): void => {
      const w = spawnSync(process.execPath, [writer, r.dir, shared, sid, String(n)], { env: r.env, encoding: 'utf8' });
      expect(w.status, w.stderr).toBe(0);
    };
    write(a, 'session-of-a');
    write(a, 'session-both'); // a's transcript: uuid session-both-0
    expect(a.gitResult(['push', '-q', 'origin', 'main']).status).toBe(0);
    write(b, 'session-of-b');
    write(b, 'session-both', 2); // b's own, different transcript (ends with uuid session-both-1): neither extends the other
    expect(b.gitResult(['fetch', '-q']).status).toBe(0);
    const localBefore = sha(b, META);
    const e = b.entire(['explain', '--checkpoint', shared, '--json']);
    expect(e.status, e.stderr).toBe(0);
    const doc = JSON.parse(e.stdout) as { sessions: { session_id: string; index: number }[] };
    expect(doc.sessions.map((s) => s.session_id).sort()).toEqual(['session-both', 'session-of-a', 'session-of-b']);
    const raw = b.entire(['explain', '--checkpoint', shared, '--session', 'session-both', '--raw-transcript']);
    expect(raw.status, raw.stderr).toBe(0);
    expect(raw.stdout).toContain('session-both-1');
    expect(raw.stdout).not.toContain('session-both-0');
    const other = b.entire(['explain', '--checkpoint', shared, '--session', 'session-of-a', '--raw-transcript']);
    expect(other.status, other.stderr).toBe(0);
    expect(other.stdout).toContain('session-of-a-0');
    expect(sha(b, META)).toBe(localBefore);
  });
});

describe('fetch refspecs (E4)', () => {
  it('enable adds the pattern once; a remote without the branch still fetches; disable --uninstall removes exactly it', () => {
    const remote = bareRemote();
    const a = clone(remote, 'a');
    const before = fetchSpecs(a);
    enabled(a);
    enabled(a);
    const specs = fetchSpecs(a);
    expect(specs.filter((s) => s === OUR_REFSPEC('origin'))).toHaveLength(1);
    // and the notes index's own pattern (SPEC-2 §D.1, src/install/notes-config.ts)
    expect(specs).toEqual([...before, OUR_REFSPEC('origin'), '+refs/notes/entire*:refs/entire/remotes/origin/notes/entire*']);
    // the remote has no entire/checkpoints/v1 yet: fetch and pull still succeed
    expect(remote.gitResult(['rev-parse', '--verify', '-q', `refs/heads/${META}`]).status).not.toBe(0);
    const f = a.gitResult(['fetch']);
    expect(f.status, f.stderr).toBe(0);
    const p = a.gitResult(['pull', '-q', 'origin', 'main']);
    expect(p.status, p.stderr).toBe(0);
    const d = a.entire(['disable', '--uninstall', '--force']);
    expect(d.status, d.stderr).toBe(0);
    expect(fetchSpecs(a)).toEqual(before);
  });
});

describe('a remote-tracking ref is never trusted to skip a push (E3)', () => {
  it('moved remote (git remote set-url): the new remote gets the checkpoints with the branch', () => {
    const first = bareRemote();
    const a = enabled(clone(first, 'a'));
    const id1 = checkpointedCommit(a, 'feature-a', 'a.txt');
    expect(a.gitResult(['push', '-q', 'origin', 'feature-a']).status).toBe(0);
    expect(sha(a, `refs/remotes/origin/${META}`)).toBe(sha(a, META));

    const moved = bareRemote();
    a.git(['remote', 'set-url', 'origin', moved.dir]);
    const p = a.gitResult(['push', '-q', 'origin', 'feature-a']);
    expect(p.status, p.stderr).toBe(0);
    expect(p.stderr).toContain(`[entire] origin has no ${META}; pushing it again`);
    expect(checkpointsOn(moved)).toEqual([id1]);
    expect(sha(moved, META)).toBe(sha(a, META));
    // every trailer the new remote holds resolves there
    const trailer = moved.git(['log', '-1', '--format=%B', 'feature-a']);
    expect(trailer).toContain(`Entire-Checkpoint: ${id1}`);
  });

  it('deleted on the remote: the next push recreates it', () => {
    const remote = bareRemote();
    const a = enabled(clone(remote, 'a'));
    const id1 = checkpointedCommit(a, 'feature-a', 'a.txt');
    expect(a.gitResult(['push', '-q', 'origin', 'feature-a']).status).toBe(0);
    remote.git(['update-ref', '-d', `refs/heads/${META}`]);
    const id2 = checkpointedCommit(a, null, 'a2.txt');
    const p = a.gitResult(['push', '-q', 'origin', 'feature-a']);
    expect(p.status, p.stderr).toBe(0);
    expect(p.stderr).toContain(`[entire] origin has no ${META}; pushing it again`);
    expect(checkpointsOn(remote)).toEqual([id1, id2].sort());
    expect(remote.gitResult(['fsck', '--no-progress']).status).toBe(0);
  });

  it('rewritten on the remote (someone force-pushed another history): merged, never force-pushed over', () => {
    const remote = bareRemote();
    const a = enabled(clone(remote, 'a'));
    const b = enabled(clone(remote, 'b'));
    const idA1 = checkpointedCommit(a, 'feature-a', 'a.txt');
    expect(a.gitResult(['push', '-q', 'origin', 'feature-a']).status).toBe(0);
    const idB = checkpointedCommit(b, 'feature-b', 'b.txt');
    // b replaces the remote branch with its own unrelated history
    const f = b.gitResult(['push', '-q', '-f', 'origin', `${META}:${META}`]);
    expect(f.status, f.stderr).toBe(0);
    expect(checkpointsOn(remote)).toEqual([idB]);
    const idA2 = checkpointedCommit(a, null, 'a2.txt');
    const p = a.gitResult(['push', '-q', 'origin', 'feature-a']);
    expect(p.status, p.stderr).toBe(0);
    expect(checkpointsOn(remote)).toEqual([idA1, idA2, idB].sort());
    // b's history is contained: a fast-forward of what b pushed, not a replacement
    expect(remote.gitResult(['merge-base', '--is-ancestor', sha(b, META), META]).status).toBe(0);
  });
});

describe('a push to a URL rather than a remote name', () => {
  it('merges a diverged remote and pushes, with no tracking ref to update', () => {
    const remote = bareRemote();
    const a = enabled(clone(remote, 'a'));
    const b = enabled(clone(remote, 'b'));
    const idA = checkpointedCommit(a, 'feature-a', 'a.txt');
    expect(a.gitResult(['push', '-q', 'origin', 'feature-a']).status).toBe(0);
    const idB = checkpointedCommit(b, 'feature-b', 'b.txt');
    const p = b.gitResult(['push', '-q', remote.dir, 'feature-b']);
    expect(p.status, p.stderr).toBe(0);
    expect(checkpointsOn(remote)).toEqual([idA, idB].sort());
  });
});

describe('checkpoint_remote (E5)', () => {
  it('checkpoints go only to the checkpoint remote; the code remote holds no checkpoint object; teammates read from it', () => {
    const origin = bareRemote();
    const priv = makeBare();
    const a = enabled(clone(origin, 'a'), '--checkpoint-remote', priv.dir);
    expect(a.git(['config', '--get', 'remote.entire-checkpoints.url']).trim()).toBe(priv.dir);
    const id = checkpointedCommit(a, 'feature-a', 'a.txt');
    const p = a.gitResult(['push', '-q', 'origin', 'feature-a']);
    expect(p.status, p.stderr).toBe(0);
    expect(sha(origin, 'refs/heads/feature-a')).toBe(sha(a, 'HEAD'));
    // origin: no entire/* ref, and none of the objects only the checkpoint data reaches
    expect(origin.git(['for-each-ref', '--format=%(refname)', 'refs/heads/entire/']).trim()).toBe('');
    const onlyCheckpoints = [...reachable(a, [META])].filter((o) => !reachable(a, ['--exclude=entire/*', '--branches']).has(o));
    expect(onlyCheckpoints.length).toBeGreaterThan(3);
    const originObjects = objectList(origin);
    expect(onlyCheckpoints.filter((o) => originObjects.has(o))).toEqual([]);
    // the checkpoint remote has them
    expect(checkpointsOn(priv)).toEqual([id]);
    const st = a.entire(['status']).stdout;
    expect(st).toContain('pushed only to entire-checkpoints');
    expect(st).toContain('entire-checkpoints: in sync');

    // a teammate with the checkpoint remote reads everything
    const b = clone(origin, 'b');
    b.git(['remote', 'add', 'entire-checkpoints', priv.dir]);
    enabled(b, '--checkpoint-remote', 'entire-checkpoints');
    expect(fetchSpecs(b, 'entire-checkpoints')).toContain(OUR_REFSPEC('entire-checkpoints'));
    expect(fetchSpecs(b, 'origin')).not.toContain(OUR_REFSPEC('origin'));
    expect(b.gitResult(['fetch', '-q', '--all']).status).toBe(0);
    const e = b.entire(['explain', '--commit', 'origin/feature-a']);
    expect(e.status, e.stderr).toBe(0);
    expect(e.stdout).toContain(id);
  });

  it('fails closed: an unreachable checkpoint remote gets nothing, the code remote gets nothing, the push succeeds; the next push delivers', () => {
    const origin = bareRemote();
    const priv = makeBare();
    const a = enabled(clone(origin, 'a'), '--checkpoint-remote', priv.dir);
    a.git(['remote', 'set-url', 'entire-checkpoints', `${priv.dir}-missing`]);
    const id = checkpointedCommit(a, 'feature-a', 'a.txt');
    const p = a.gitResult(['push', '-q', 'origin', 'feature-a']);
    expect(p.status, p.stderr).toBe(0);
    expect(sha(origin, 'refs/heads/feature-a')).toBe(sha(a, 'HEAD'));
    expect(origin.git(['for-each-ref', '--format=%(refname)', 'refs/heads/entire/']).trim()).toBe('');
    const warnings = p.stderr.split('\n').filter((l) => l.startsWith('[entire]'));
    expect(warnings.length, p.stderr).toBe(1);
    expect(checkpointsOn(priv)).toEqual([]);

    // reachable again: the next push (of anything) delivers what was pending
    a.git(['remote', 'set-url', 'entire-checkpoints', priv.dir]);
    a.write('later.txt', 'later\n');
    a.commitAll('later');
    const p2 = a.gitResult(['push', '-q', 'origin', 'feature-a']);
    expect(p2.status, p2.stderr).toBe(0);
    expect(checkpointsOn(priv)).toEqual([id]);
    expect(origin.git(['for-each-ref', '--format=%(refname)', 'refs/heads/entire/']).trim()).toBe('');
  });

  it('a setting naming a remote this clone lacks: nothing pushed anywhere, one warning', () => {
    const origin = bareRemote();
    const a = enabled(clone(origin, 'a'));
    a.write('.entire/settings.local.json', JSON.stringify({ strategy_options: { checkpoint_remote: 'nowhere' } }));
    checkpointedCommit(a, 'feature-a', 'a.txt');
    const p = a.gitResult(['push', '-q', 'origin', 'feature-a']);
    expect(p.status, p.stderr).toBe(0);
    expect(p.stderr).toContain('checkpoint remote nowhere is not configured');
    expect(a.entire(['status']).stdout).toContain('Checkpoints: checkpoint remote nowhere is not configured');
    expect(origin.git(['for-each-ref', '--format=%(refname)', 'refs/heads/entire/']).trim()).toBe('');
  });
});

function makeBare(): TempRepo {
  const r = bareRemote();
  r.git(['update-ref', '-d', 'refs/heads/main']);
  return r;
}
