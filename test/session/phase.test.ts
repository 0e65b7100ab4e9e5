import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyBookkeeping, gitSubcommand, isRebaseInProgress, transition, type PhaseEvent } from '../../src/session/phase.js';
import { newSessionState, type Phase } from '../../src/session/state.js';
import { tempDir } from '../helpers/repo.js';

type Row = [Phase, PhaseEvent, { qualifies?: boolean; idleMs?: number }, Phase, string[]];

// SPEC §5, every phase × event (GitCommit with Q true; the Q-false variants follow).
const TABLE: Row[] = [
  ['idle', 'TurnStart', {}, 'active', ['RetryPending', 'TouchInteraction']],
  ['idle', 'TurnEnd', {}, 'idle', ['RetryPending', 'TouchInteraction']],
  ['idle', 'GitCommit', { qualifies: true }, 'idle', ['Condense', 'TouchInteraction']],
  ['idle', 'SessionStart', {}, 'idle', ['TouchInteraction']],
  ['idle', 'SessionEnd', {}, 'ended', ['RetryPending', 'SetEndedAt', 'TouchInteraction']],
  ['active', 'TurnStart', {}, 'active', ['RetryPending', 'TouchInteraction']],
  ['active', 'TurnEnd', {}, 'idle', ['FinalizeTurn', 'TouchInteraction']],
  ['active', 'GitCommit', { qualifies: true }, 'active', ['Condense', 'TouchInteraction']],
  ['active', 'SessionStart', { idleMs: 1000 }, 'active', ['TouchInteraction']],
  ['active', 'SessionEnd', {}, 'ended', ['FinalizeTurn', 'SetEndedAt', 'TouchInteraction']],
  ['ended', 'TurnStart', {}, 'active', ['RetryPending', 'ClearEndedAt', 'TouchInteraction']],
  ['ended', 'TurnEnd', {}, 'ended', ['TouchInteraction']],
  ['ended', 'GitCommit', { qualifies: true }, 'ended', ['Condense', 'TouchInteraction']],
  ['ended', 'SessionStart', {}, 'idle', ['ClearEndedAt', 'TouchInteraction']],
  ['ended', 'SessionEnd', {}, 'ended', ['TouchInteraction']],
];

describe('phase machine (SPEC §5)', () => {
  it('the table covers all 15 cells', () => {
    expect(new Set(TABLE.map(([p, e]) => `${p}/${e}`)).size).toBe(15);
  });

  it.each(TABLE)('%s × %s %j → %s %j', (from, event, ctx, to, actions) => {
    const r = transition(from, event, ctx);
    expect(r.phase).toBe(to);
    expect(r.actions.map((a) => a.type)).toEqual(actions);
  });

  it.each([
    ['idle', false],
    ['active', true],
    ['ended', false],
  ] as const)('GitCommit condense in %s is provisional=%s', (phase, provisional) => {
    const r = transition(phase, 'GitCommit', { qualifies: true });
    expect(r.actions[0]).toEqual({ type: 'Condense', provisional });
  });

  it.each(['idle', 'active', 'ended'] as const)('GitCommit without Q in %s migrates, keeps the phase, does not touch interaction time', (phase) => {
    const r = transition(phase, 'GitCommit', { qualifies: false });
    expect(r.phase).toBe(phase);
    expect(r.actions).toEqual([{ type: 'Migrate' }]);
  });

  it.each(['idle', 'active', 'ended'] as const)('rebase guard: GitCommit in %s does nothing', (phase) => {
    for (const qualifies of [true, false]) {
      const r = transition(phase, 'GitCommit', { qualifies, rebaseInProgress: true });
      expect(r).toEqual({ phase, actions: [] });
    }
  });

  it('SessionStart on a session ACTIVE for more than an hour warns', () => {
    expect(transition('active', 'SessionStart', { idleMs: 2 * 60 * 60 * 1000 }).actions.map((a) => a.type)).toEqual([
      'WarnIdle',
      'TouchInteraction',
    ]);
    expect(transition('idle', 'SessionStart', { idleMs: 2 * 60 * 60 * 1000 }).actions.map((a) => a.type)).not.toContain('WarnIdle');
  });

  it('RetryPending always comes first', () => {
    for (const [from, event, ctx] of TABLE) {
      const types = transition(from, event, ctx).actions.map((a) => a.type);
      const i = types.indexOf('RetryPending');
      if (i >= 0) expect(i).toBe(0);
    }
  });

  it('applyBookkeeping sets and clears ended_at and drops Go fully_condensed on reactivation', () => {
    const now = new Date('2025-02-01T00:00:00Z');
    const s = newSessionState({ session_id: 's', started_at: 't' });
    applyBookkeeping(s, transition('idle', 'SessionEnd'), now);
    expect(s.phase).toBe('ended');
    expect(s.ended_at).toBe('2025-02-01T00:00:00.000Z');
    expect(s.last_interaction_time).toBe('2025-02-01T00:00:00.000Z');
    s.extra = { fully_condensed: true, other: 1 };
    applyBookkeeping(s, transition('ended', 'TurnStart'), now);
    expect(s.phase).toBe('active');
    expect(s.ended_at).toBeUndefined();
    expect(s.extra).toEqual({ other: 1 });
  });
});

describe('rebase detection', () => {
  it.each(['rebase-merge', 'rebase-apply', 'sequencer'])('directory %s means in progress', (name) => {
    const gitDir = tempDir();
    expect(isRebaseInProgress(gitDir)).toBe(false);
    mkdirSync(join(gitDir, name));
    expect(isRebaseInProgress(gitDir)).toBe(true);
  });

  it.each(['CHERRY_PICK_HEAD', 'REVERT_HEAD'])('file %s means in progress', (name) => {
    const gitDir = tempDir();
    writeFileSync(join(gitDir, name), 'abc\n');
    expect(isRebaseInProgress(gitDir)).toBe(true);
  });

  it('git argv revert / cherry-pick / rebase counts, commit does not', () => {
    const gitDir = tempDir();
    expect(isRebaseInProgress(gitDir, ['git', 'revert', 'HEAD'])).toBe(true);
    expect(isRebaseInProgress(gitDir, ['/usr/bin/git', '-c', 'core.x=y', '-C', '/tmp', 'cherry-pick', 'abc'])).toBe(true);
    expect(isRebaseInProgress(gitDir, ['git', '--no-pager', 'rebase', '-i'])).toBe(true);
    expect(isRebaseInProgress(gitDir, ['git', 'commit', '-m', 'rebase'])).toBe(false);
    expect(isRebaseInProgress(gitDir, ['git', '-c', 'rebase', 'commit'])).toBe(false);
    expect(gitSubcommand(['git', '--git-dir=/x', 'commit'])).toBe('commit');
  });
});
