/**
 * `entire doctor [--force] [--json]` (SPEC §8.4; checklist §11.40, §11.45)
 * through the built CLI, real git and a scripted Claude session.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeRepo, cleanupAll, type TempRepo } from '../helpers/repo.js';
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

function sessionsDir(r: TempRepo): string {
  return join(r.git(['rev-parse', '--path-format=absolute', '--git-common-dir']).trim(), 'entire-sessions');
}

function stateOf(r: TempRepo, sid: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(sessionsDir(r), `${sid}.json`), 'utf8')) as Record<string, unknown>;
}

function editState(r: TempRepo, sid: string, fn: (s: Record<string, unknown>) => void): void {
  const s = stateOf(r, sid);
  fn(s);
  writeFileSync(join(sessionsDir(r), `${sid}.json`), JSON.stringify(s, null, 2) + '\n');
}

/** Every state-ish file (not the index cache), every ref, the hooks: what "changes nothing" means. */
function everything(r: TempRepo): string {
  const dir = sessionsDir(r);
  const files = existsSync(dir)
    ? readdirSync(dir)
        .filter((n) => n !== '.index')
        .sort()
        .map((n) => `${n}:${statSync(join(dir, n)).isFile() ? readFileSync(join(dir, n), 'utf8') : 'dir'}`)
    : [];
  const hooksDir = r.git(['rev-parse', '--path-format=absolute', '--git-path', 'hooks']).trim();
  const hooks = readdirSync(hooksDir)
    .sort()
    .map((n) => `${n}:${readFileSync(join(hooksDir, n), 'utf8')}`);
  const intent = join(r.dir, '.git', 'entire-commit-intent.json');
  return JSON.stringify([files, r.git(['for-each-ref', '--format=%(refname) %(objectname)']), hooks, existsSync(intent)]);
}

function checkpointIds(r: TempRepo): string[] {
  return r
    .git(['ls-tree', '-d', '-r', '--name-only', 'entire/checkpoints/v1'])
    .split('\n')
    .filter((p) => /^[0-9a-f]{2}\/[0-9a-f]{10}$/.test(p))
    .map((p) => p.replace('/', ''))
    .sort();
}

/** Checkpoint ids any commit outside Entire's own refs carries. */
function referencedIds(r: TempRepo): Set<string> {
  const log = r.git(['log', '--format=%B', '--branches', '--exclude=entire/*', '--tags', 'HEAD']);
  return new Set([...log.matchAll(/^Entire-Checkpoint: ([0-9a-f]{12})$/gm)].map((m) => m[1]!));
}

function doctorJson(r: TempRepo, ...args: string[]): { status: number | null; doc: { findings: JsonFinding[]; found: number; fixed: number } } {
  const res = r.entire(['doctor', '--json', ...args]);
  return { status: res.status, doc: JSON.parse(res.stdout) as { findings: JsonFinding[]; found: number; fixed: number } };
}

function lastTrailer(r: TempRepo): string {
  const id = /^Entire-Checkpoint: ([0-9a-f]{12})$/m.exec(r.git(['log', '-1', '--format=%B']))?.[1];
  expect(id).toBeDefined();
  return id!;
}

function enabledRepo(): TempRepo {
  const r = makeRepo();
  const res = r.entire(['enable']);
  expect(res.status, res.stderr).toBe(0);
  return r;
}

/**
 * A pending finalization: the agent commits mid-turn (provisional
 * checkpoint), says more, and the transcript cannot be read at Stop.
 */
function pendingFinalization(r: TempRepo): { agent: FakeClaude; id: string; restore: () => void } {
  const agent = new FakeClaude(r);
  agent.sessionStart();
  agent.prompt('create a.txt and commit it');
  agent.write('a.txt', 'a\n');
  r.git(['add', 'a.txt']);
  const c = r.gitResult(['commit', '-m', 'add a']);
  expect(c.status, c.stderr).toBe(0);
  const id = lastTrailer(r);
  agent.say('All done: the LATE-TURN-MARKER line only a finalized transcript holds.');
  const away = agent.transcriptPath + '.away';
  renameSync(agent.transcriptPath, away);
  // Stop without appending to the (missing) transcript
  const stop = agent.hook('stop', { stop_hook_active: false });
  expect(stop.status).toBe(0);
  expect(stateOf(r, agent.sessionId)['turn_checkpoint_ids']).toEqual([id]);
  return { agent, id, restore: () => renameSync(away, agent.transcriptPath) };
}

/** A dangling trailer: the metadata ref is locked while post-commit condenses. */
function danglingTrailer(r: TempRepo, opts: { beforeUnlock?: (agent: FakeClaude) => void } = {}): { agent: FakeClaude; id: string; commit: string } {
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
  expect(c.stderr).toContain('not written yet; will retry');
  opts.beforeUnlock?.(agent);
  rmSync(lock);
  const id = lastTrailer(r);
  expect(checkpointIds(r)).not.toContain(id);
  return { agent, id, commit: r.git(['rev-parse', 'HEAD']).trim() };
}

describe('doctor', () => {
  it('a healthy repository: "No problems found.", exit 0; --json is one document', () => {
    const r = enabledRepo();
    const res = r.entire(['doctor']);
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout).toBe('No problems found.\n');
    const j = doctorJson(r);
    expect(j.status).toBe(0);
    expect(j.doc).toEqual({ findings: [], found: 0, fixed: 0, hook_operations: { resumed_pending_work: 0, resumed: { condensations: 0, finalizations: 0, commit_intents: 0 }, still_pending: 0 } });
  });

  it('outside a repository: one line, exit 1', () => {
    const r = makeRepo();
    const res = r.entire(['doctor'], { cwd: join(r.dir, '..') });
    expect(res.status).toBe(1);
    expect(res.stderr.trim()).toBe('Not a git repository.');
  });

  it('finds a pending finalization, changes nothing without --force, and finalizes it with --force', () => {
    const r = enabledRepo();
    const { agent, id, restore } = pendingFinalization(r);
    restore();
    const before = everything(r);
    const res = r.entire(['doctor']);
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout).toMatch(new RegExp(`^\\[found\\] pending-finalization ${id}: session [0-9a-f]{8}: transcript not finalized`, 'm'));
    expect(res.stdout).toContain('1 problem(s) found, 0 fixed.');
    expect(everything(r)).toBe(before);
    expect(doctorJson(r).doc.findings).toEqual([
      expect.objectContaining({ kind: 'pending-finalization', session_id: agent.sessionId, checkpoint_id: id, status: 'found' }),
    ]);
    expect(everything(r)).toBe(before);

    const fixed = r.entire(['doctor', '--force']);
    expect(fixed.status, fixed.stdout + fixed.stderr).toBe(0);
    expect(fixed.stdout).toMatch(new RegExp(`^\\[fixed\\] pending-finalization ${id}: `, 'm'));
    expect(fixed.stdout).toContain('1 problem(s) found, 1 fixed.');
    expect(stateOf(r, agent.sessionId)['turn_checkpoint_ids']).toBeUndefined();
    expect(r.git(['log', '-1', '--format=%s', 'entire/checkpoints/v1'])).toBe(`Finalize transcript for Checkpoint: ${id}\n`);
    const transcript = r.git(['show', `entire/checkpoints/v1:${id.slice(0, 2)}/${id.slice(2)}/0/full.jsonl`]);
    expect(transcript).toContain('LATE-TURN-MARKER');
    // the repair is counted as pending work resumed (issue 19)
    expect(r.entire(['doctor']).stdout).toBe(
      'No problems found.\nHook operations: 1 resumed pending work (0 condensation(s), 1 finalization(s), 0 commit intent(s)); 0 still pending.\n',
    );
  });

  it('a repair that fails (transcript still unreadable) is reported as failed and exits 1', () => {
    const r = enabledRepo();
    const { id } = pendingFinalization(r);
    const res = r.entire(['doctor', '--force']);
    expect(res.status).toBe(1);
    expect(res.stdout).toMatch(new RegExp(`^\\[failed\\] pending-finalization ${id}: .*still not finalized`, 'm'));
    expect(res.stdout).toContain('1 problem(s) found, 0 fixed.');
  });

  it('finds a dangling trailer with its pending condensation and writes exactly that checkpoint with --force (§11.45)', () => {
    const r = enabledRepo();
    const { agent, id, commit } = danglingTrailer(r);
    const before = everything(r);
    const report = doctorJson(r);
    expect(report.status).toBe(0);
    expect(report.doc.findings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'pending-condensation', session_id: agent.sessionId, checkpoint_id: id, commit, status: 'found' }),
        expect.objectContaining({ kind: 'dangling-trailer', checkpoint_id: id, commit, status: 'found' }),
      ]),
    );
    expect(report.doc.found).toBe(2);
    expect(everything(r)).toBe(before);

    const fixed = r.entire(['doctor', '--force']);
    expect(fixed.status, fixed.stdout + fixed.stderr).toBe(0);
    expect(fixed.stdout).toMatch(new RegExp(`^\\[fixed\\] dangling-trailer ${commit.slice(0, 7)}: Entire-Checkpoint ${id}`, 'm'));
    expect(fixed.stdout).toContain('2 problem(s) found, 2 fixed.');
    expect(checkpointIds(r)).toContain(id);
    const md = JSON.parse(r.git(['show', `entire/checkpoints/v1:${id.slice(0, 2)}/${id.slice(2)}/0/metadata.json`])) as Record<string, unknown>;
    expect(md['session_id']).toBe(agent.sessionId);
    expect(md['files_touched']).toEqual(['b.txt']);
    expect(stateOf(r, agent.sessionId)['pending_condensations']).toBeUndefined();
    // every checkpoint is named by a commit
    const refd = referencedIds(r);
    for (const cp of checkpointIds(r)) expect(refd.has(cp), cp).toBe(true);
  });

  it('never mints a checkpoint no commit references: a pending entry whose commit is gone is discarded (§11.45)', () => {
    const r = enabledRepo();
    const { agent, id } = danglingTrailer(r);
    r.git(['reset', '-q', '--hard', 'HEAD~1']);
    const before = checkpointIds(r);
    const res = r.entire(['doctor', '--force']);
    expect(res.status, res.stdout + res.stderr).toBe(0);
    expect(res.stdout).toMatch(new RegExp(`^\\[fixed\\] pending-condensation ${id}: .*no commit references.*discarded`, 'm'));
    expect(checkpointIds(r)).toEqual(before);
    expect(checkpointIds(r)).not.toContain(id);
    expect(stateOf(r, agent.sessionId)['pending_condensations']).toBeUndefined();
  });

  it('a dangling trailer nothing can write is reported, never minted', () => {
    const r = enabledRepo();
    r.write('c.txt', 'c\n');
    r.git(['add', 'c.txt']);
    // a commit made without our hooks, carrying an id that was never written
    r.git(['-c', 'core.hooksPath=/nonexistent', 'commit', '-q', '-m', 'copied trailer\n\nEntire-Checkpoint: 0123456789ab']);
    const before = checkpointIds(r);
    const res = r.entire(['doctor', '--force']);
    expect(res.status).toBe(0);
    expect(res.stdout).toMatch(/^\[found\] dangling-trailer [0-9a-f]{7}: Entire-Checkpoint 0123456789ab has no checkpoint; no pending work can write it$/m);
    expect(checkpointIds(r)).toEqual(before);
  });

  it('a commit whose post-commit never ran: the stale intent becomes pending work and the trailer is resolved in one run', () => {
    const r = enabledRepo();
    const agent = new FakeClaude(r);
    agent.sessionStart();
    agent.prompt('create d.txt');
    agent.write('d.txt', 'd\n');
    expect(agent.stop().status).toBe(0);
    const hooksDir = r.git(['rev-parse', '--path-format=absolute', '--git-path', 'hooks']).trim();
    renameSync(join(hooksDir, 'post-commit'), join(hooksDir, 'post-commit.off'));
    r.git(['add', 'd.txt']);
    expect(r.gitResult(['commit', '-m', 'add d']).status).toBe(0);
    renameSync(join(hooksDir, 'post-commit.off'), join(hooksDir, 'post-commit'));
    const id = lastTrailer(r);
    expect(existsSync(join(r.dir, '.git', 'entire-commit-intent.json'))).toBe(true);
    expect(checkpointIds(r)).not.toContain(id);

    const found = doctorJson(r);
    expect(found.doc.findings.map((f) => f.kind).sort()).toEqual(['dangling-trailer', 'stale-intent']);
    const res = doctorJson(r, '--force');
    expect(res.status).toBe(0);
    expect(res.doc.findings.map((f) => [f.kind, f.status]).sort()).toEqual([
      ['dangling-trailer', 'fixed'],
      ['stale-intent', 'fixed'],
    ]);
    expect(checkpointIds(r)).toContain(id);
    const md = JSON.parse(r.git(['show', `entire/checkpoints/v1:${id.slice(0, 2)}/${id.slice(2)}/0/metadata.json`])) as Record<string, unknown>;
    expect(md['session_id']).toBe(agent.sessionId);
  });

  it('hooks that are missing, not executable or foreign are found and reinstalled (foreign ones chained)', () => {
    const r = enabledRepo();
    const hooksDir = r.git(['rev-parse', '--path-format=absolute', '--git-path', 'hooks']).trim();
    rmSync(join(hooksDir, 'commit-msg'));
    chmodSync(join(hooksDir, 'post-commit'), 0o644);
    writeFileSync(join(hooksDir, 'pre-push'), '#!/bin/sh\n# a tool rewrote this\nexit 0\n');
    chmodSync(join(hooksDir, 'pre-push'), 0o755);
    const found = doctorJson(r);
    const hooks = found.doc.findings.find((f) => f.kind === 'hooks');
    expect(hooks?.detail).toContain('commit-msg missing');
    expect(hooks?.detail).toContain('post-commit is not executable');
    expect(hooks?.detail).toContain("pre-push is not Entire's");
    const res = r.entire(['doctor', '--force']);
    expect(res.status, res.stdout).toBe(0);
    expect(res.stdout).toMatch(/^\[fixed\] hooks /m);
    for (const h of ['prepare-commit-msg', 'commit-msg', 'post-commit', 'pre-push']) {
      expect(readFileSync(join(hooksDir, h), 'utf8')).toContain('# Entire CLI hooks');
      expect(statSync(join(hooksDir, h)).mode & 0o111, h).not.toBe(0);
    }
    expect(readFileSync(join(hooksDir, 'pre-push.pre-entire'), 'utf8')).toContain('a tool rewrote this');
  });

  it('stale-active, stale-lock, corrupt-state, stale-intent and orphan-shadow-branch: found without --force (nothing changes), fixed with it', () => {
    const r = enabledRepo();
    const agent = new FakeClaude(r);
    agent.sessionStart();
    agent.prompt('a long turn that never stopped');
    editState(r, agent.sessionId, (s) => {
      s['last_interaction_time'] = new Date(Date.now() - 2 * 60 * 60 * 1000).toISOString();
    });
    const dir = sessionsDir(r);
    writeFileSync(join(dir, 'ghost.lock'), JSON.stringify({ pid: 999999, created_ms: Date.now() - 60_000, token: 'x' }) + '\n');
    writeFileSync(join(dir, 'broken.json'), '{ not json');
    writeFileSync(
      join(r.dir, '.git', 'entire-commit-intent.json'),
      JSON.stringify({ id: null, mode: 'new', head_before: r.git(['rev-parse', 'HEAD']).trim(), created_at: new Date().toISOString(), sessions: {}, git_pid: 999999 }),
    );
    const head = r.git(['rev-parse', 'HEAD']).trim();
    r.git(['update-ref', 'refs/heads/entire/abcdef1-e3b0c4', head]);

    const before = everything(r);
    const report = doctorJson(r);
    expect(report.status).toBe(0);
    const kinds = report.doc.findings.map((f) => f.kind).sort();
    expect(kinds).toEqual(['corrupt-state', 'orphan-shadow-branch', 'stale-active', 'stale-intent', 'stale-lock']);
    expect(report.doc.findings.every((f) => f.status === 'found')).toBe(true);
    // corrupt state files keep orphan branches alive (what they reference is unknown)
    expect(report.doc.findings.find((f) => f.kind === 'orphan-shadow-branch')?.detail).toContain('kept while unreadable state files exist');
    expect(everything(r)).toBe(before);

    const fixed = doctorJson(r, '--force');
    expect(fixed.status).toBe(0);
    const byKind = new Map(fixed.doc.findings.map((f) => [f.kind, f]));
    for (const k of ['stale-active', 'stale-lock', 'corrupt-state', 'stale-intent']) expect(byKind.get(k)?.status, k).toBe('fixed');
    expect(byKind.get('orphan-shadow-branch')?.status).toBe('found');
    expect(stateOf(r, agent.sessionId)['phase']).toBe('idle');
    expect(existsSync(join(dir, 'ghost.lock'))).toBe(false);
    expect(existsSync(join(dir, 'broken.json'))).toBe(false);
    expect(readFileSync(join(dir, 'broken.json.corrupt'), 'utf8')).toBe('{ not json');
    expect(existsSync(join(r.dir, '.git', 'entire-commit-intent.json'))).toBe(false);

    // with the corrupt state gone, the orphan branch is deleted
    const again = r.entire(['doctor', '--force']);
    expect(again.stdout).toMatch(/^\[fixed\] orphan-shadow-branch entire\/abcdef1-e3b0c4: /m);
    expect(r.gitResult(['rev-parse', '--verify', '-q', 'refs/heads/entire/abcdef1-e3b0c4']).status).not.toBe(0);
    // the stale intent it recovered is counted (issue 19)
    expect(r.entire(['doctor']).stdout).toMatch(/^No problems found\.\n(Hook operations: \d+ resumed pending work .*; 0 still pending\.\n)?$/);
  });

  it('a live session’s shadow branch is never an orphan', () => {
    const r = enabledRepo();
    const agent = new FakeClaude(r);
    agent.sessionStart();
    agent.prompt('write w.txt');
    agent.write('w.txt', 'w\n');
    expect(agent.stop().status).toBe(0);
    const branches = r.git(['for-each-ref', '--format=%(refname:short)', 'refs/heads/entire/']).split('\n').filter((b) => /-[0-9a-f]{6}$/.test(b));
    expect(branches).toHaveLength(1);
    const res = r.entire(['doctor', '--force']);
    expect(res.stdout).toBe('No problems found.\n');
    expect(r.git(['for-each-ref', '--format=%(refname:short)', 'refs/heads/entire/'])).toContain(branches[0]);
  });

  it('an ENDED session with pending work is found and its work written', () => {
    const r = enabledRepo();
    // the session ends while the metadata ref is still locked: its retry fails too
    const { agent, id } = danglingTrailer(r, { beforeUnlock: (a) => expect(a.sessionEnd().status).toBe(0) });
    expect(stateOf(r, agent.sessionId)['phase']).toBe('ended');
    expect(checkpointIds(r)).not.toContain(id);
    const found = doctorJson(r);
    expect(found.doc.findings.map((f) => f.kind).sort()).toEqual(['dangling-trailer', 'ended-with-pending-work']);
    const res = r.entire(['doctor', '--force']);
    expect(res.stdout).toMatch(new RegExp(`^\\[fixed\\] ended-with-pending-work ${agent.sessionId}: `, 'm'));
    expect(checkpointIds(r)).toContain(id);
  });

  it('an hour-old intent without git_pid is recovered', () => {
    const r = enabledRepo();
    writeFileSync(
      join(r.dir, '.git', 'entire-commit-intent.json'),
      JSON.stringify({ id: null, mode: 'new', head_before: r.git(['rev-parse', 'HEAD']).trim(), created_at: new Date(Date.now() - 2 * 3600_000).toISOString(), sessions: {} }),
    );
    const res = doctorJson(r, '--force');
    expect(res.doc.findings).toEqual([expect.objectContaining({ kind: 'stale-intent', status: 'fixed' })]);
    expect(existsSync(join(r.dir, '.git', 'entire-commit-intent.json'))).toBe(false);
  });
});

