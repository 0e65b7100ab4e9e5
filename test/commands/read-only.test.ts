import { describe, it, expect, afterAll } from 'vitest';
import { makeRepo, cleanupAll } from '../helpers/repo.js';
import { SAMPLE_IDS, commonDir, fetchSample, head, linkCommit, snapshot, writeState } from './helpers.js';

afterAll(cleanupAll);

describe('SPEC §11.40: status and explain change no state file or ref', () => {
  it('every variant leaves refs and the sessions dir byte-for-byte as they were', () => {
    const r = makeRepo();
    r.write('.entire/settings.json', '{\n  "strategy": "manual-commit",\n  "enabled": true,\n  "mystery": 1\n}\n');
    fetchSample(r);
    const shas = SAMPLE_IDS.map((id) => linkCommit(r, `work ${id}`, [id]));
    const base = head(r);
    const common = commonDir(r);
    writeState(common, {
      session_id: 's-active',
      base_commit: base,
      worktree_path: r.dir,
      phase: 'active',
      agent_type: 'Claude Code',
      turn_checkpoint_ids: ['42527c9c20c8'],
      files_touched: ['a.go'],
    });
    writeState(common, { session_id: 's-ended', base_commit: base, worktree_path: r.dir, phase: 'ended', ended_at: '2020-01-01T00:00:00Z' });
    writeState(common, { session_id: 's-elsewhere', base_commit: base, worktree_path: '/nonexistent/wt', worktree_id: 'gone', phase: 'idle' });
    r.git(['branch', `entire/${base.slice(0, 7)}-e3b0c4`, 'HEAD']);
    r.git(['branch', 'entire/abcdef1-e3b0c4', 'HEAD']);

    const before = snapshot(r);
    expect(before.sessions.some((l) => l.startsWith('s-active.json '))).toBe(true);
    const runs: string[][] = [
      ['status'],
      ['status', '--detailed'],
      ['status', '--json'],
      ['explain'],
      ['explain', '--json'],
      ['explain', '--checkpoint', '42527c9c20c8'],
      ['explain', '--checkpoint', '4252', '--json'],
      ['explain', '--checkpoint', 'ba5e23ccb05b', '--full'],
      ['explain', '--checkpoint', 'ba5e23ccb05b', '--raw-transcript'],
      ['explain', '--commit', shas[0]!],
      ['explain', '--commit', 'HEAD', '--json'],
      ['explain', '--session', '28596a79-6247-4bc2-a031-f5848b31e039'],
      ['explain', '--checkpoint', 'ffffffffffff'],
    ];
    for (const args of runs) {
      const res = r.entire(args);
      expect(res.status, `${args.join(' ')}: ${res.stderr}`).toBe(args.includes('ffffffffffff') ? 1 : 0);
      if (args.includes('--json')) expect(() => JSON.parse(res.stdout)).not.toThrow();
      expect(snapshot(r), args.join(' ')).toEqual(before);
    }
  });
});
