import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pruneSessions } from '../../src/session/prune.js';
import { listStates, loadState, saveState, writePendingSideFile } from '../../src/session/store.js';
import { newSessionState, type SessionState } from '../../src/session/state.js';
import { tempDir } from '../helpers/repo.js';

const DAY = 24 * 60 * 60 * 1000;
const NOW = Date.parse('2025-06-20T12:00:00Z');
const daysAgo = (d: number): string => new Date(NOW - d * DAY).toISOString();

function ended(sid: string, days: number, extra: Partial<SessionState> = {}): SessionState {
  return newSessionState({
    session_id: sid,
    started_at: daysAgo(days + 1),
    base_commit: 'abc1234def',
    phase: 'ended',
    ended_at: daysAgo(days),
    ...extra,
  });
}

const noBranches = { isShadowBranchPresent: () => false };
const remaining = (common: string): string[] => listStates(common).states.map((s) => s.state.session_id).sort();

describe('pruneSessions (SPEC §4.3)', () => {
  it('deletes ENDED > 7 days with nothing pending (and its scratch files); keeps 6 days, pending and non-ended', async () => {
    const common = tempDir();
    const wt = tempDir();
    mkdirSync(join(wt, '.entire', 'tmp', 'redact'), { recursive: true });
    mkdirSync(join(wt, '.entire', 'tmp', 'context'), { recursive: true });
    const prePrompt = join(wt, '.entire', 'tmp', 'pre-prompt-old.json');
    writeFileSync(prePrompt, '{}');
    // the transcript bookkeeping, the redaction cache and the context fold state of the pruned session go too; another session's stay
    const scratch = ['transcript-old.json', 'redact/old.redacted.jsonl', 'redact/old.cursor.json', 'context/old.json'].map((n) => join(wt, '.entire', 'tmp', n));
    const others = ['transcript-recent.json', 'redact/recent.redacted.jsonl', 'context/recent.json'].map((n) => join(wt, '.entire', 'tmp', n));
    for (const f of [...scratch, ...others]) writeFileSync(f, '{}');
    saveState(common, ended('old', 8, { worktree_path: wt }));
    saveState(common, ended('recent', 6));
    saveState(common, ended('finalize-pending', 8, { turn_checkpoint_ids: ['aaaaaaaaaaaa'] }));
    saveState(common, {
      ...ended('condense-pending', 8),
      pending_condensations: [
        {
          checkpoint_id: 'bbbbbbbbbbbb',
          commit: 'c',
          files: ['a'],
          transcript_start: 0,
          transcript_end: 1,
          step_count: 1,
          turn_id: '',
          shadow_branch: 'entire/abc1234-e3b0c4',
          attempts: 1,
          last_error: 'x',
          first_failed_at: daysAgo(8),
        },
      ],
    });
    saveState(common, newSessionState({ session_id: 'idle-old', started_at: daysAgo(30), last_interaction_time: daysAgo(30) }));
    const r = await pruneSessions(common, NOW, noBranches);
    expect(r).toEqual({ ran: true, pruned: ['old'] });
    expect(remaining(common)).toEqual(['condense-pending', 'finalize-pending', 'idle-old', 'recent']);
    expect(existsSync(prePrompt)).toBe(false);
    for (const f of scratch) expect(existsSync(f), f).toBe(false);
    for (const f of others) expect(existsSync(f), f).toBe(true);
  });

  it("removes an agent's own session scratch (OpenCode's staged export) with the session, and only its own", async () => {
    const common = tempDir();
    const wt = tempDir();
    mkdirSync(join(wt, '.entire', 'tmp'), { recursive: true });
    const mine = join(wt, '.entire', 'tmp', 'ses_old.json');
    const other = join(wt, '.entire', 'tmp', 'ses_recent.json');
    const backup = join(wt, '.entire', 'tmp', 'ses_old.json.entire-bak-20250101T000000Z');
    for (const f of [mine, other, backup]) writeFileSync(f, '{}');
    saveState(common, ended('ses_old', 8, { worktree_path: wt, agent_type: 'OpenCode' }));
    saveState(common, ended('ses_recent', 6, { worktree_path: wt, agent_type: 'OpenCode' }));
    expect((await pruneSessions(common, NOW, noBranches)).pruned).toEqual(['ses_old']);
    expect(existsSync(mine)).toBe(false);
    expect(existsSync(other)).toBe(true);
    expect(existsSync(backup)).toBe(true); // a restore's backup is the user's to delete
  });

  it('keeps a session with files_touched while its shadow branch exists', async () => {
    const common = tempDir();
    saveState(common, ended('files', 9, { files_touched: ['a.go'], worktree_id: 'wt' }));
    const asked: string[] = [];
    const r1 = await pruneSessions(common, NOW, {
      force: true,
      isShadowBranchPresent: (name) => {
        asked.push(name);
        return true;
      },
    });
    expect(r1.pruned).toEqual([]);
    expect(asked).toEqual(['entire/abc1234-a721db']);
    const r2 = await pruneSessions(common, NOW, { force: true, isShadowBranchPresent: async () => false });
    expect(r2.pruned).toEqual(['files']);
  });

  it('keeps a session that has a pending side file', async () => {
    const common = tempDir();
    saveState(common, ended('side', 10));
    writePendingSideFile(common, 'side', {
      checkpoint_id: 'cccccccccccc',
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
    expect((await pruneSessions(common, NOW, noBranches)).pruned).toEqual([]);
    expect(loadState(common, 'side')).not.toBeNull();
  });

  it('runs at most once per 24 h unless forced; dryRun deletes nothing', async () => {
    const common = tempDir();
    saveState(common, ended('a', 8));
    expect((await pruneSessions(common, NOW, noBranches)).pruned).toEqual(['a']);
    saveState(common, ended('b', 8));
    expect(await pruneSessions(common, NOW + 60_000, noBranches)).toEqual({ ran: false, pruned: [] });
    expect(remaining(common)).toEqual(['b']);
    expect(await pruneSessions(common, NOW + 60_000, { ...noBranches, dryRun: true })).toEqual({ ran: true, pruned: ['b'] });
    expect(remaining(common)).toEqual(['b']);
    expect((await pruneSessions(common, NOW + DAY + 1, noBranches)).pruned).toEqual(['b']);
    expect(remaining(common)).toEqual([]);
    // the stamp is not a *.json name (the Go tool would read it as a state)
    expect(existsSync(join(common, 'entire-sessions', '.last-prune'))).toBe(true);
  });

  it('never touches corrupt states', async () => {
    const common = tempDir();
    mkdirSync(join(common, 'entire-sessions'), { recursive: true });
    writeFileSync(join(common, 'entire-sessions', 'bad.json'), 'nope');
    expect((await pruneSessions(common, NOW, noBranches)).pruned).toEqual([]);
    expect(existsSync(join(common, 'entire-sessions', 'bad.json'))).toBe(true);
  });
});
