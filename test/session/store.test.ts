import { existsSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isEntireError } from '../../src/errors.js';
import {
  deleteState,
  findStaleSessionFiles,
  listStates,
  loadState,
  mergePendingSideFiles,
  readPendingSideFiles,
  saveState,
  updateState,
  writePendingSideFile,
} from '../../src/session/store.js';
import { acquireSessionLockSync } from '../../src/session/lock.js';
import { encodeState, newSessionState, type PendingCondensation, type SessionState } from '../../src/session/state.js';
import { tempDir } from '../helpers/repo.js';

function state(sid: string, extra: Partial<SessionState> = {}): SessionState {
  return newSessionState({ session_id: sid, started_at: '2025-01-01T00:00:00Z', base_commit: 'abc1234', worktree_path: '/wt/a', ...extra });
}

function pending(id: string): PendingCondensation {
  return {
    checkpoint_id: id,
    commit: 'c0ffee',
    files: ['a.go'],
    transcript_start: 0,
    transcript_end: 10,
    step_count: 1,
    turn_id: '',
    shadow_branch: 'entire/abc1234-e3b0c4',
    attempts: 0,
    last_error: 'lock busy',
    first_failed_at: '2025-01-01T00:00:00Z',
  };
}

const sessions = (common: string): string => join(common, 'entire-sessions');

describe('state store', () => {
  it('saves atomically with 0600 files in a 0750 dir, leaving no temp files', () => {
    const common = tempDir();
    const s = state('s1');
    for (let i = 0; i < 5; i++) {
      s.checkpoint_count = i;
      saveState(common, s);
    }
    const path = join(sessions(common), 's1.json');
    expect(readFileSync(path, 'utf8')).toBe(encodeState(s));
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(sessions(common)).mode & 0o777).toBe(0o750);
    expect(readdirSync(sessions(common)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    expect(readdirSync(sessions(common)).filter((n) => n.endsWith('.json'))).toEqual(['s1.json']);
  });

  it('load: missing → null, round trip, corrupt → CORRUPT_STATE naming the path and nothing deleted', () => {
    const common = tempDir();
    expect(loadState(common, 'nope')).toBeNull();
    saveState(common, state('s1', { files_touched: ['a'] }));
    expect(loadState(common, 's1')!.state.files_touched).toEqual(['a']);
    const bad = join(sessions(common), 'bad.json');
    writeFileSync(bad, '{"session_id": ');
    let err: unknown;
    try {
      loadState(common, 'bad');
    } catch (e) {
      err = e;
    }
    expect(isEntireError(err, 'CORRUPT_STATE')).toBe(true);
    expect((err as Error).message).toContain(bad);
    expect(existsSync(bad)).toBe(true);
  });

  it('load returns decode warnings to the caller', () => {
    const common = tempDir();
    mkdirSync(sessions(common), { recursive: true });
    writeFileSync(join(sessions(common), 'w.json'), JSON.stringify({ session_id: 'w', last_checkpoint_id: 'nothex!' }));
    const r = loadState(common, 'w')!;
    expect(r.state.last_checkpoint_id).toBeUndefined();
    expect(r.warnings.length).toBe(1);
  });

  it('list reports corrupt files, skips side/tmp/lock files, and never deletes or prunes anything', () => {
    const common = tempDir();
    saveState(common, state('a', { phase: 'ended', ended_at: '2000-01-01T00:00:00Z', last_interaction_time: '2000-01-01T00:00:00Z' }));
    saveState(common, state('b'));
    writeFileSync(join(sessions(common), 'c.json'), 'garbage');
    writeFilePending(common);
    writeFileSync(join(sessions(common), 'x.json.123.abcd.tmp'), '{}');
    const before = readdirSync(sessions(common)).sort();
    const r = listStates(common);
    expect(r.states.map((s) => s.state.session_id).sort()).toEqual(['a', 'b']);
    expect(r.corrupt.map((c) => c.sessionId)).toEqual(['c']);
    expect(readdirSync(sessions(common)).sort()).toEqual(before);
  });

  function writeFilePending(common: string): void {
    writePendingSideFile(common, 'b', pending('0123456789ab'));
  }

  it('deleteState removes only that state', () => {
    const common = tempDir();
    saveState(common, state('a'));
    saveState(common, state('b'));
    expect(deleteState(common, 'a')).toBe(true);
    expect(deleteState(common, 'a')).toBe(false);
    expect(listStates(common).states.map((s) => s.state.session_id)).toEqual(['b']);
  });

  it('rejects invalid session ids before touching the disk', () => {
    const common = tempDir();
    expect(() => saveState(common, { ...state('ok'), session_id: '../evil' })).toThrow(/invalid session id/);
    expect(() => loadState(common, 'a/b')).toThrow(/invalid session id/);
    expect(existsSync(sessions(common))).toBe(false);
  });
});

describe('pending side files', () => {
  it('are written lock-free, named <sid>.pending-<id>.json, and merged by the next locked update', async () => {
    const common = tempDir();
    saveState(common, state('s1', { pending_condensations: [pending('aaaaaaaaaaaa')] }));
    const lock = acquireSessionLockSync(common, 's1');
    const path = writePendingSideFile(common, 's1', pending('bbbbbbbbbbbb'));
    writePendingSideFile(common, 's1', pending('aaaaaaaaaaaa')); // duplicate of one already in the state
    lock.release();
    expect(path).toBe(join(sessions(common), 's1.pending-bbbbbbbbbbbb.json'));
    expect(readPendingSideFiles(common, 's1').files.map((f) => f.entry.checkpoint_id)).toEqual(['aaaaaaaaaaaa', 'bbbbbbbbbbbb']);
    // not visible as a state
    expect(listStates(common).states.map((s) => s.state.session_id)).toEqual(['s1']);

    const after = await updateState(common, 's1', (s) => {
      expect(s!.pending_condensations!.map((p) => p.checkpoint_id)).toEqual(['aaaaaaaaaaaa', 'bbbbbbbbbbbb']);
      return s;
    });
    expect(after!.pending_condensations).toHaveLength(2);
    expect(loadState(common, 's1')!.state.pending_condensations!.map((p) => p.checkpoint_id)).toEqual(['aaaaaaaaaaaa', 'bbbbbbbbbbbb']);
    expect(readPendingSideFiles(common, 's1').files).toEqual([]);
  });

  it('stay on disk when the update saves nothing', async () => {
    const common = tempDir();
    saveState(common, state('s1'));
    writePendingSideFile(common, 's1', pending('cccccccccccc'));
    await updateState(common, 's1', () => null);
    expect(readPendingSideFiles(common, 's1').files).toHaveLength(1);
  });

  it('mergePendingSideFiles only reads the session’s own side files', () => {
    const common = tempDir();
    writePendingSideFile(common, 's1', pending('dddddddddddd'));
    writePendingSideFile(common, 's10', pending('eeeeeeeeeeee'));
    const s = state('s1');
    const consumed = mergePendingSideFiles(common, s);
    expect(consumed).toEqual([join(sessions(common), 's1.pending-dddddddddddd.json')]);
    expect(s.pending_condensations!.map((p) => p.checkpoint_id)).toEqual(['dddddddddddd']);
  });

  it('reject an invalid checkpoint id', () => {
    expect(() => writePendingSideFile(tempDir(), 's1', pending('XYZ'))).toThrow(/invalid checkpoint id/);
  });
});

describe('updateState', () => {
  it('creates, modifies and saves under the lock; returns the saved state', async () => {
    const common = tempDir();
    const created = await updateState(common, 'n1', (s) => {
      expect(s).toBeNull();
      return state('n1');
    });
    expect(created!.session_id).toBe('n1');
    await updateState(common, 'n1', (s) => ({ ...s!, checkpoint_count: 3 }));
    expect(loadState(common, 'n1')!.state.checkpoint_count).toBe(3);
    expect(existsSync(join(sessions(common), 'n1.lock'))).toBe(false);
  });

  it('refuses to save a state under another session id', async () => {
    const common = tempDir();
    await expect(updateState(common, 'n1', () => state('other'))).rejects.toThrow(/returned a state for other/);
    expect(loadState(common, 'other')).toBeNull();
  });
});

describe('findStaleSessionFiles', () => {
  it('lists old temp files and stale locks, not fresh ones or states', () => {
    const common = tempDir();
    saveState(common, state('s1'));
    const dir = sessions(common);
    const oldTmp = join(dir, 's1.json.999.abcd.tmp');
    const newTmp = join(dir, 's1.json.999.ef01.tmp');
    writeFileSync(oldTmp, '{');
    writeFileSync(newTmp, '{');
    const old = (Date.now() - 2 * 60 * 60 * 1000) / 1000;
    utimesSync(oldTmp, old, old);
    writeFileSync(join(dir, 'dead.lock'), JSON.stringify({ pid: 2 ** 22 + 12345, created_ms: Date.now(), token: 't' }));
    const live = acquireSessionLockSync(common, 'held');
    const found = findStaleSessionFiles(common).map((f) => [f.kind, f.path.slice(dir.length + 1)]);
    live.release();
    expect(found).toEqual([
      ['lock', 'dead.lock'],
      ['tmp', 's1.json.999.abcd.tmp'],
    ]);
  });
});
