import { describe, it, expect, afterAll } from 'vitest';
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { makeRepo, cleanupAll, tempDir } from '../helpers/repo.js';
import { commonDir, head, writeState, daysAgo } from './helpers.js';

afterAll(cleanupAll);

const STATUS_KEYS = ['repository', 'configured', 'enabled', 'strategy', 'hooks_dir', 'git_hooks', 'sessions', 'hook_operations', 'checkpoint_refs_queued', 'checkpoint_sync'];
const SESSION_KEYS = [
  'session_id',
  'agent',
  'phase',
  'worktree_path',
  'branch',
  'base_commit',
  'started_at',
  'last_interaction_time',
  'first_prompt',
  'files_touched',
  'pending_finalizations',
  'pending_condensations',
];
const SETTINGS = '{\n  "strategy": "manual-commit",\n  "enabled": true\n}\n';

describe('status', () => {
  it('outside a repository: "✕ not a git repository", exit 0; JSON {repository:false}', () => {
    const r = makeRepo();
    const dir = tempDir();
    const text = r.entire(['status'], { cwd: dir });
    expect(text.status).toBe(0);
    expect(text.stdout).toBe('✕ not a git repository\n');
    const json = r.entire(['status', '--json'], { cwd: dir });
    expect(json.status).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ repository: false });
  });

  it('no settings: not set up', () => {
    const r = makeRepo();
    const res = r.entire(['status']);
    expect(res.status).toBe(0);
    expect(res.stdout).toBe('○ not set up (run `entire enable` to get started)\n');
    const doc = JSON.parse(r.entire(['status', '--json']).stdout);
    expect(doc.configured).toBe(false);
    expect(doc.enabled).toBe(false);
  });

  it('enabled / disabled, --detailed per-file lines, unknown keys warn on stderr', () => {
    const r = makeRepo();
    r.write('.entire/settings.json', SETTINGS);
    let res = r.entire(['status']);
    expect(res.status).toBe(0);
    expect(res.stdout.split('\n')[0]).toBe('Enabled (manual-commit)');
    expect(res.stdout).toContain('No active sessions.');

    r.write('.entire/settings.local.json', '{\n  "enabled": false,\n  "colour": "blue"\n}\n');
    res = r.entire(['status', '--detailed']);
    expect(res.status).toBe(0);
    const lines = res.stdout.split('\n');
    expect(lines[0]).toBe('Disabled (manual-commit)');
    expect(lines).toContain('  Project (.entire/settings.json): enabled, strategy manual-commit');
    expect(lines).toContain('  Local (.entire/settings.local.json): disabled');
    expect(res.stdout).toContain('prepare-commit-msg missing');
    expect(res.stderr).toBe('[entire] Warning: unknown key "colour" in .entire/settings.local.json (ignored)\n');
  });

  it('a settings file that is not JSON: one line, exit 1', () => {
    const r = makeRepo();
    r.write('.entire/settings.json', '{ nope');
    const res = r.entire(['status']);
    expect(res.status).toBe(1);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toMatch(/^Error: invalid settings file .*settings\.json/);
  });

  it("lists this worktree's live sessions only", () => {
    const r = makeRepo();
    r.write('.entire/settings.json', SETTINGS);
    const common = commonDir(r);
    const base = head(r);
    writeState(common, {
      session_id: 'aaaaaaa1-live-here',
      base_commit: base,
      worktree_path: r.dir,
      phase: 'active',
      agent_type: 'Claude Code',
      started_at: new Date(Date.now() - 5 * 60_000).toISOString(),
      first_prompt: 'Add a healthz endpoint',
      turn_checkpoint_ids: ['a1b2c3d4e5f6', 'b1b2c3d4e5f6'],
      files_touched: ['a.go'],
    });
    writeState(common, { session_id: 'bbbbbbb2-no-agent', base_commit: base, worktree_path: r.dir, phase: 'idle' });
    writeState(common, { session_id: 'ccccccc3-other-wt', base_commit: base, worktree_path: join(r.dir, '..', 'other'), worktree_id: 'other', phase: 'active' });
    writeState(common, { session_id: 'ddddddd4-ended', base_commit: base, worktree_path: r.dir, phase: 'ended', ended_at: daysAgo(1) });

    const res = r.entire(['status']);
    expect(res.status, res.stderr).toBe(0);
    const out = res.stdout;
    expect(out).toContain('Active Sessions:');
    expect(out).toContain('[Claude Code] aaaaaaa started 5m ago');
    expect(out).toContain('[Agent] bbbbbbb started');
    expect(out).toContain('phase: active');
    expect(out).toContain('first prompt: "Add a healthz endpoint"');
    expect(out).toContain('pending finalizations: 2');
    expect(out).toContain(`shadow branch: entire/${base.slice(0, 7)}-e3b0c4`);
    expect(out).not.toContain('ccccccc');
    expect(out).not.toContain('ddddddd');

    const doc = JSON.parse(r.entire(['status', '--json']).stdout);
    expect(Object.keys(doc)).toEqual(STATUS_KEYS);
    expect(doc).toMatchObject({ repository: true, configured: true, enabled: true, strategy: 'manual-commit' });
    expect(doc.hooks_dir).toBe(join(realpathSync(r.dir), '.git', 'hooks'));
    expect(doc.git_hooks).toEqual({ 'prepare-commit-msg': 'missing', 'commit-msg': 'missing', 'post-commit': 'missing', 'pre-push': 'missing', 'post-rewrite': 'missing' });
    expect(doc.sessions.map((s: any) => s.session_id)).toEqual(['aaaaaaa1-live-here', 'bbbbbbb2-no-agent']);
    for (const s of doc.sessions) expect(Object.keys(s)).toEqual(SESSION_KEYS);
    expect(doc.sessions[0]).toMatchObject({
      agent: 'Claude Code',
      phase: 'active',
      worktree_path: r.dir,
      branch: 'main',
      base_commit: base,
      first_prompt: 'Add a healthz endpoint',
      files_touched: ['a.go'],
      pending_finalizations: 2,
      pending_condensations: 0,
    });
  });

  it('reports installed and foreign hooks', () => {
    const r = makeRepo();
    r.write('.entire/settings.json', SETTINGS);
    r.write('.git/hooks/post-commit', '#!/bin/sh\n# Entire CLI hooks\nexit 0\n');
    r.write('.git/hooks/pre-push', '#!/bin/sh\necho mine\n');
    const doc = JSON.parse(r.entire(['status', '--json']).stdout);
    expect(doc.git_hooks['post-commit']).toBe('installed');
    expect(doc.git_hooks['pre-push']).toBe('foreign');
    expect(doc.git_hooks['commit-msg']).toBe('missing');
  });
});
