import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anySessionLive, sessionsForWorktree, updateLiveMarker } from '../../src/session/index.js';
import { indexFilePath } from '../../src/session/paths.js';
import { deleteState, saveState, updateState, writePendingSideFile } from '../../src/session/store.js';
import { encodeState, newSessionState, type SessionState } from '../../src/session/state.js';
import { tempDir } from '../helpers/repo.js';

// Worktree paths must exist: a state whose recorded path is gone matches by worktree_id (§4.3).
const WT_A = tempDir('wt-a-');
const WT_B = tempDir('wt-b-');
const ENDED = { phase: 'ended' as const, ended_at: '2025-01-02T00:00:00Z' };

function st(sid: string, extra: Partial<SessionState> = {}): SessionState {
  return newSessionState({ session_id: sid, started_at: '2025-01-01T00:00:00Z', base_commit: 'abc1234', worktree_path: WT_A, ...extra });
}

const dirOf = (common: string): string => join(common, 'entire-sessions');
const live = (common: string): boolean => existsSync(join(dirOf(common), 'LIVE'));
const sids = (common: string, path = WT_A, id = ''): string[] => sessionsForWorktree(common, path, id).sessions.map((s) => s.state.session_id);

/** Write a state the way the Go tool does: temp file + rename. */
function externalWrite(common: string, s: SessionState): void {
  const p = join(dirOf(common), `${s.session_id}.json`);
  writeFileSync(`${p}.tmp`, encodeState(s));
  renameSync(`${p}.tmp`, p);
}

/** Overwrite in place with same-size garbage and put the old mtime back: the file's stamp is unchanged. */
function corruptKeepingStamp(path: string): void {
  const before = statSync(path);
  writeFileSync(path, 'x'.repeat(before.size));
  utimesSync(path, before.atime, before.mtime);
}

function setWholeSecondMtime(path: string, secondsAgo: number): void {
  const t = Math.floor(Date.now() / 1000) - secondsAgo;
  utimesSync(path, t, t);
}

describe('sessionsForWorktree', () => {
  it('returns the live sessions of this worktree, sorted by started_at, and nothing else', () => {
    const common = tempDir();
    saveState(common, st('a2', { started_at: '2025-01-03T00:00:00Z' }));
    saveState(common, st('a1', { started_at: '2025-01-02T00:00:00Z', phase: 'active' }));
    saveState(common, st('a-ended', ENDED));
    saveState(common, st('a-ended-files', { ...ENDED, files_touched: ['x'] }));
    saveState(common, st('a-ended-pending', { ...ENDED, turn_checkpoint_ids: ['aaaaaaaaaaaa'] }));
    saveState(common, st('b1', { worktree_path: WT_B, worktree_id: 'b' }));
    saveState(common, st('b2-main', { worktree_path: WT_B }));
    const got = sessionsForWorktree(common, WT_A, '');
    expect(got.sessions.map((s) => s.state.session_id).sort()).toEqual(['a-ended-files', 'a-ended-pending', 'a1', 'a2']);
    // started_at order
    const ordered = got.sessions.map((s) => s.state.session_id);
    expect(ordered.indexOf('a1')).toBeLessThan(ordered.indexOf('a2'));
    expect(got.corrupt).toEqual([]);
    expect(sids(common, WT_B, 'b')).toEqual(['b1', 'b2-main']); // path equality wins whatever the id
  });

  it('matches a moved worktree by worktree_id when the recorded path is gone', () => {
    const common = tempDir();
    const existing = tempDir();
    saveState(common, st('gone', { worktree_path: '/nonexistent-old-place', worktree_id: 'wt1' }));
    saveState(common, st('there', { worktree_path: existing, worktree_id: 'wt1' }));
    saveState(common, st('other-id', { worktree_path: '/nonexistent-old-place', worktree_id: 'wt2' }));
    const r = sessionsForWorktree(common, '/new/place', 'wt1');
    expect(r.sessions.map((s) => [s.state.session_id, s.moved])).toEqual([['gone', true]]);
    // the main worktree (id "") matches states without worktree_id
    saveState(common, st('main-old', { worktree_path: '/nonexistent-main-old' }));
    expect(sessionsForWorktree(common, '/main/new', '').sessions.map((s) => [s.state.session_id, s.moved])).toEqual([['main-old', true]]);
  });

  it('rebuilds a missing or corrupt index', () => {
    const common = tempDir();
    saveState(common, st('a1'));
    saveState(common, st('b1', { worktree_path: WT_B }));
    expect(existsSync(indexFilePath(common))).toBe(false); // first built by a reader
    expect(sids(common)).toEqual(['a1']);
    for (const damage of ['garbage{', '', '{"version":99}', '{"version":1,"dir":null,"side":[],"entries":{"a1":{"phase":"idle"}}}']) {
      writeFileSync(indexFilePath(common), damage);
      expect(sids(common)).toEqual(['a1']);
      const idx = JSON.parse(readFileSync(indexFilePath(common), 'utf8')) as { version: number; entries: Record<string, unknown> };
      expect(idx.version).toBe(1);
      expect(Object.keys(idx.entries).sort()).toEqual(['a1', 'b1']);
    }
    // the index is not a *.json file in the sessions dir (the Go tool reads those as states)
    expect(readdirSync(dirOf(common)).filter((n) => n.endsWith('.json')).sort()).toEqual(['a1.json', 'b1.json']);
  });

  it('picks up states modified by another writer (size/mtime/inode change)', () => {
    const common = tempDir();
    saveState(common, st('a1'));
    saveState(common, st('a2', ENDED));
    expect(sids(common)).toEqual(['a1']);
    externalWrite(common, st('a1', ENDED));
    externalWrite(common, st('a2', { phase: 'active' }));
    expect(sids(common)).toEqual(['a2']);
    // in place, for a live member: its content is always re-read
    const p = join(dirOf(common), 'a2.json');
    writeFileSync(p, encodeState(st('a2', { phase: 'active', first_prompt: 'changed' })));
    expect(sessionsForWorktree(common, WT_A, '').sessions[0]!.state.first_prompt).toBe('changed');
  });

  it('a lost index update only costs a re-read, never a wrong answer', () => {
    const common = tempDir();
    saveState(common, st('a1'));
    expect(sids(common)).toEqual(['a1']);
    const oldIndex = readFileSync(indexFilePath(common));
    saveState(common, st('a1', ENDED));
    saveState(common, st('a3'));
    writeFileSync(indexFilePath(common), oldIndex); // a concurrent writer's older index won the rename
    expect(sids(common)).toEqual(['a3']);
  });

  it('uses the directory mtime to detect new files instead of listing a quiet directory', () => {
    const common = tempDir();
    saveState(common, st('a1'));
    expect(sids(common)).toEqual(['a1']); // builds the index (its directory is created once)
    setWholeSecondMtime(dirOf(common), 60);
    expect(sids(common)).toEqual(['a1']); // lists, records a trusted stamp (the dir is old)
    const quietMtime = statSync(dirOf(common)).mtime;
    writeFileSync(join(dirOf(common), 'a2.json'), encodeState(st('a2')));
    utimesSync(dirOf(common), quietMtime, quietMtime);
    expect(sids(common)).toEqual(['a1']); // quiet: no readdir
    setWholeSecondMtime(dirOf(common), 0);
    expect(sids(common)).toEqual(['a1', 'a2']); // changed: listed again
  });

  it('never parses other worktrees’ states or this worktree’s ENDED states with nothing pending', () => {
    const common = tempDir();
    saveState(common, st('mine', { phase: 'active' }));
    saveState(common, st('mine-ended', ENDED));
    saveState(common, st('other-ended', { ...ENDED, worktree_path: WT_B }));
    saveState(common, st('other-live', { worktree_path: WT_B, files_touched: ['f'] }));
    const ended = join(dirOf(common), 'mine-ended.json');
    setWholeSecondMtime(ended, 3600);
    expect(sids(common)).toEqual(['mine']); // indexes the old mtime

    writeFileSync(join(dirOf(common), 'other-ended.json'), 'not json at all');
    writeFileSync(join(dirOf(common), 'other-live.json'), '{"broken":');
    corruptKeepingStamp(ended);
    const r = sessionsForWorktree(common, WT_A, '');
    expect(r.sessions.map((s) => s.state.session_id)).toEqual(['mine']);
    expect(r.corrupt).toEqual([]);

    // control: the same damage to a live session of this worktree is seen and reported
    corruptKeepingStamp(join(dirOf(common), 'mine.json'));
    const r2 = sessionsForWorktree(common, WT_A, '');
    expect(r2.sessions).toEqual([]);
    expect(r2.corrupt.map((c) => c.sessionId)).toEqual(['mine']);
    // and the other worktree does see its own corrupt file
    expect(sessionsForWorktree(common, WT_B, '').corrupt.map((c) => c.sessionId)).toContain('other-live');
  });

  it('keeps dormant ended sessions out of the index entries, so its size does not grow with history (P6)', async () => {
    const { indexedSessions } = await import('../../src/session/index.js');
    const common = tempDir();
    saveState(common, st('mine', { phase: 'active' }));
    for (let i = 0; i < 200; i++) {
      const sid = `ended-${String(i).padStart(3, '0')}`;
      saveState(common, st(sid, ENDED));
      setWholeSecondMtime(join(dirOf(common), `${sid}.json`), 86_400); // ended yesterday
    }
    expect(sids(common)).toEqual(['mine']);
    const index = JSON.parse(readFileSync(indexFilePath(common), 'utf8'));
    expect(Object.keys(index.entries)).toEqual(['mine']);
    expect(Object.keys(index.dormant)).toHaveLength(200);
    // a few dozen bytes per dormant session instead of a full entry
    expect(readFileSync(indexFilePath(common)).length).toBeLessThan(200 * 60 + 2000);
    // commands still see every session with its details
    const all = indexedSessions(common).entries;
    expect(Object.keys(all)).toHaveLength(201);
    expect(all['ended-007']).toMatchObject({ phase: 'ended', worktree_path: WT_A, ended_at: ENDED.ended_at });
    // a dormant session written again by us is an entry again
    saveState(common, st('ended-007', { phase: 'active' }));
    expect(sids(common)).toEqual(['ended-007', 'mine']);
    const after = JSON.parse(readFileSync(indexFilePath(common), 'utf8'));
    expect(after.dormant['ended-007']).toBeUndefined();
    // a deleted dormant state leaves the set
    deleteState(common, 'ended-008');
    sids(common);
    expect(JSON.parse(readFileSync(indexFilePath(common), 'utf8')).dormant['ended-008']).toBeUndefined();
  });

  it('reports side files and treats their session as live', () => {
    const common = tempDir();
    saveState(common, st('e1', ENDED));
    expect(sids(common)).toEqual([]);
    writePendingSideFile(common, 'e1', {
      checkpoint_id: '0123456789ab',
      commit: 'c',
      files: ['a'],
      transcript_start: 0,
      transcript_end: 1,
      step_count: 1,
      turn_id: '',
      shadow_branch: '',
      attempts: 0,
      last_error: '',
      first_failed_at: '',
    });
    const r = sessionsForWorktree(common, WT_A, '');
    expect(r.sessions.map((s) => [s.state.session_id, s.hasSideFiles])).toEqual([['e1', true]]);
  });

  it('returns nothing (and writes nothing) when there is no sessions dir', () => {
    const common = tempDir();
    expect(sessionsForWorktree(common, WT_A, '')).toEqual({ sessions: [], corrupt: [] });
    expect(existsSync(dirOf(common))).toBe(false);
  });
});

describe('LIVE marker', () => {
  it('exists exactly while some session is not ENDED or has pending work', async () => {
    const common = tempDir();
    saveState(common, st('s1'));
    expect(live(common)).toBe(true);
    saveState(common, st('s2', ENDED));
    expect(live(common)).toBe(true);
    await updateState(common, 's1', (s) => ({ ...s!, ...ENDED }));
    expect(live(common)).toBe(false);
    saveState(common, st('s2', { ...ENDED, pending_condensations: [] , turn_checkpoint_ids: ['aaaaaaaaaaaa'] }));
    expect(live(common)).toBe(true);
    saveState(common, st('s2', ENDED));
    expect(live(common)).toBe(false);
    saveState(common, st('s3', { ...ENDED, files_touched: ['a.go'] }));
    expect(live(common)).toBe(true);
    deleteState(common, 's3');
    expect(live(common)).toBe(false);
  });

  it('is recomputed from states another process changed, and created for side files', () => {
    const common = tempDir();
    saveState(common, st('s1', ENDED));
    expect(live(common)).toBe(false);
    externalWrite(common, st('s1', { phase: 'active' })); // e.g. the Go tool resumed it
    expect(updateLiveMarker(common)).toBe(true);
    expect(live(common)).toBe(true);
    externalWrite(common, st('s1', ENDED));
    expect(anySessionLive(common)).toBe(false);
    expect(updateLiveMarker(common)).toBe(false);
    expect(live(common)).toBe(false);
    writePendingSideFile(common, 's1', {
      checkpoint_id: 'abcdefabcdef',
      commit: 'c',
      files: [],
      transcript_start: 0,
      transcript_end: 0,
      step_count: 0,
      turn_id: '',
      shadow_branch: '',
      attempts: 0,
      last_error: '',
      first_failed_at: '',
    });
    expect(live(common)).toBe(true);
    expect(updateLiveMarker(common)).toBe(true);
  });

  it('a corrupt state keeps the marker (err on the side of running hooks)', () => {
    const common = tempDir();
    saveState(common, st('s1', ENDED));
    mkdirSync(dirOf(common), { recursive: true });
    writeFileSync(join(dirOf(common), 'bad.json'), 'nope');
    expect(updateLiveMarker(common)).toBe(true);
    expect(live(common)).toBe(true);
  });
});
