import { describe, expect, it } from 'vitest';
import {
  decodeState,
  encodeState,
  GO_ZERO_TIME,
  isLiveState,
  newSessionState,
  normalizePhase,
  shadowBranchName,
  validateSessionId,
  type SessionState,
} from '../../src/session/state.js';
import { isEntireError } from '../../src/errors.js';

const FULL: SessionState = {
  session_id: 'sess-1',
  cli_version: 'ts-0.1.0',
  base_commit: 'abc1234def',
  attribution_base_commit: 'abc1234def',
  worktree_path: '/w/repo',
  worktree_id: 'wt',
  started_at: '2025-01-02T03:04:05Z',
  ended_at: '2025-01-03T00:00:00Z',
  phase: 'ended',
  turn_id: '0123456789ab',
  turn_checkpoint_ids: ['aaaaaaaaaaaa'],
  last_interaction_time: '2025-01-02T04:00:00Z',
  checkpoint_count: 2,
  checkpoint_transcript_start: 14,
  untracked_files_at_start: ['u.txt'],
  files_touched: ['a.go'],
  last_checkpoint_id: 'bbbbbbbbbbbb',
  agent_type: 'Claude Code',
  token_usage: { input_tokens: 1, cache_creation_tokens: 2, cache_read_tokens: 3, output_tokens: 4, api_call_count: 5 },
  transcript_identifier_at_start: 'uuid-1',
  transcript_path: '/home/x/t.jsonl',
  first_prompt: 'hello <world>',
  prompt_attributions: [{ checkpoint_number: 1 }],
  pending_prompt_attribution: { checkpoint_number: 2 },
  pending_condensations: [
    {
      checkpoint_id: 'cccccccccccc',
      commit: 'deadbeef',
      files: ['a.go'],
      transcript_start: 0,
      transcript_end: 20,
      step_count: 1,
      turn_id: '0123456789ab',
      shadow_branch: 'entire/abc1234-e3b0c4',
      attempts: 1,
      last_error: 'ref lock',
      first_failed_at: '2025-01-02T05:00:00Z',
    },
  ],
  finalize_failures: { aaaaaaaaaaaa: { attempts: 2, last_error: 'x', first_failed_at: '2025-01-02T05:00:00Z' } },
};

describe('state encoding', () => {
  it('writes every known key in SPEC §4.2 order with Go escaping and a trailing newline', () => {
    const text = encodeState(FULL);
    const keys = Object.keys(JSON.parse(text) as object);
    expect(keys).toEqual([
      'session_id',
      'cli_version',
      'base_commit',
      'attribution_base_commit',
      'worktree_path',
      'worktree_id',
      'started_at',
      'ended_at',
      'phase',
      'turn_id',
      'turn_checkpoint_ids',
      'last_interaction_time',
      'checkpoint_count',
      'checkpoint_transcript_start',
      'untracked_files_at_start',
      'files_touched',
      'last_checkpoint_id',
      'agent_type',
      'token_usage',
      'transcript_identifier_at_start',
      'transcript_path',
      'first_prompt',
      'prompt_attributions',
      'pending_prompt_attribution',
      'pending_condensations',
      'finalize_failures',
    ]);
    expect(text.endsWith('}\n')).toBe(true);
    expect(text).toContain('"first_prompt": "hello \\u003cworld\\u003e"');
    expect(text.startsWith('{\n  "session_id": "sess-1",\n')).toBe(true);
    expect(Object.keys((JSON.parse(text) as { pending_condensations: object[] }).pending_condensations[0]!)).toEqual([
      'checkpoint_id',
      'commit',
      'files',
      'transcript_start',
      'transcript_end',
      'step_count',
      'turn_id',
      'shadow_branch',
      'attempts',
      'last_error',
      'first_failed_at',
    ]);
  });

  it('omits empty optional fields but always writes session_id, base_commit, started_at, checkpoint_count', () => {
    const s = newSessionState({ session_id: 's', started_at: '2025-01-01T00:00:00Z' });
    s.files_touched = [];
    s.turn_checkpoint_ids = [];
    s.checkpoint_transcript_start = 0;
    s.cli_version = '';
    expect(encodeState(s)).toBe(
      '{\n  "session_id": "s",\n  "base_commit": "",\n  "started_at": "2025-01-01T00:00:00Z",\n  "phase": "idle",\n  "checkpoint_count": 0\n}\n',
    );
  });

  it('round-trips a full state byte for byte', () => {
    const text = encodeState(FULL);
    const { state, warnings } = decodeState(text);
    expect(warnings).toEqual([]);
    expect(state).toEqual(FULL);
    expect(encodeState(state)).toBe(text);
  });

  it('keeps unknown keys (top-level and nested) and re-emits them after the known ones', () => {
    const text = JSON.stringify({
      zeta: 1,
      session_id: 's',
      fully_condensed: true,
      base_commit: 'b',
      started_at: '2025-01-01T00:00:00Z',
      checkpoint_count: 0,
      token_usage: { input_tokens: 1, future_tokens: 9, output_tokens: 2 },
      pending_condensations: [{ checkpoint_id: 'cccccccccccc', agent: 'Claude Code' }],
      alpha: { nested: [1, 2] },
    });
    const { state } = decodeState(text);
    expect(state.extra).toEqual({ zeta: 1, fully_condensed: true, alpha: { nested: [1, 2] } });
    const out = JSON.parse(encodeState(state)) as Record<string, unknown>;
    const keys = Object.keys(out);
    expect(keys.slice(-3)).toEqual(['zeta', 'fully_condensed', 'alpha']);
    expect(out['token_usage']).toEqual({
      input_tokens: 1,
      cache_creation_tokens: 0,
      cache_read_tokens: 0,
      output_tokens: 2,
      api_call_count: 0,
      future_tokens: 9,
    });
    expect((out['pending_condensations'] as Record<string, unknown>[])[0]!['agent']).toBe('Claude Code');
  });
});

describe('state normalisation on load', () => {
  const base = { session_id: 's', base_commit: 'b1', started_at: '2025-01-01T00:00:00Z', checkpoint_count: 1 };

  it.each([
    ['active_committed', 'active'],
    ['', 'idle'],
    ['ACTIVE', 'idle'],
    ['bogus', 'idle'],
    ['ended', 'ended'],
    ['active', 'active'],
  ])('phase %j → %s', (raw, want) => {
    expect(decodeState(JSON.stringify({ ...base, phase: raw })).state.phase).toBe(want);
    expect(normalizePhase(raw)).toBe(want);
  });

  it('a missing phase is idle', () => {
    expect(decodeState(JSON.stringify(base)).state.phase).toBe('idle');
  });

  it('deprecated offsets fill a zero checkpoint_transcript_start and are dropped', () => {
    const a = decodeState(JSON.stringify({ ...base, condensed_transcript_lines: 7, transcript_lines_at_start: 3 })).state;
    expect(a.checkpoint_transcript_start).toBe(7);
    const b = decodeState(JSON.stringify({ ...base, transcript_lines_at_start: 3 })).state;
    expect(b.checkpoint_transcript_start).toBe(3);
    const c = decodeState(JSON.stringify({ ...base, checkpoint_transcript_start: 11, transcript_lines_at_start: 3 })).state;
    expect(c.checkpoint_transcript_start).toBe(11);
    const text = encodeState(a);
    expect(text).not.toContain('condensed_transcript_lines');
    expect(text).not.toContain('transcript_lines_at_start');
  });

  it('backfills attribution_base_commit from base_commit', () => {
    expect(decodeState(JSON.stringify(base)).state.attribution_base_commit).toBe('b1');
    expect(decodeState(JSON.stringify({ ...base, attribution_base_commit: 'x' })).state.attribution_base_commit).toBe('x');
    expect(decodeState(JSON.stringify({ ...base, base_commit: '' })).state.attribution_base_commit).toBeUndefined();
  });

  it('drops an invalid last_checkpoint_id with a warning', () => {
    const bad = decodeState(JSON.stringify({ ...base, last_checkpoint_id: 'ABCDEF123456' }));
    expect(bad.state.last_checkpoint_id).toBeUndefined();
    expect(bad.warnings).toHaveLength(1);
    expect(bad.warnings[0]).toContain('last_checkpoint_id');
    const good = decodeState(JSON.stringify({ ...base, last_checkpoint_id: 'abcdef123456' }));
    expect(good.state.last_checkpoint_id).toBe('abcdef123456');
    expect(good.warnings).toEqual([]);
  });

  it('treats null as absent and fills Go defaults for missing always-written fields', () => {
    const { state } = decodeState(JSON.stringify({ session_id: 's', files_touched: null, token_usage: null }));
    expect(state.files_touched).toBeUndefined();
    expect(state.token_usage).toBeUndefined();
    expect(state.started_at).toBe(GO_ZERO_TIME);
    expect(state.base_commit).toBe('');
    expect(state.checkpoint_count).toBe(0);
  });

  it('takes the session id from the file name when the document lacks one', () => {
    expect(decodeState('{}', { sessionId: 'from-name' }).state.session_id).toBe('from-name');
  });

  it.each([
    ['not json', '{"session_id":'],
    ['an array', '[]'],
    ['a wrong type', '{"session_id":"s","checkpoint_count":"two"}'],
    ['a wrong nested type', '{"session_id":"s","pending_condensations":[{"checkpoint_id":5}]}'],
    ['no session id', '{"base_commit":"b"}'],
  ])('rejects %s with CORRUPT_STATE', (_name, text) => {
    let err: unknown;
    try {
      decodeState(text, { where: '/x/s.json' });
    } catch (e) {
      err = e;
    }
    expect(isEntireError(err, 'CORRUPT_STATE')).toBe(true);
    expect((err as Error).message).toContain('/x/s.json');
  });
});

describe('session ids', () => {
  it.each(['abc', 'c4d8e2a1-6f3b-47c9-9e05-b8a1d3f6e2c7', '2025-01-01-uuid', 'a'.repeat(128), 'é'.repeat(64)])('accepts %j', (sid) => {
    expect(() => validateSessionId(sid)).not.toThrow();
  });

  it.each(['', '.', '..', 'a/b', 'a\\b', 'a\nb', 'a\u0000b', 'a\u007fb', 'a'.repeat(129), 'é'.repeat(65), 'x.pending-0123456789ab'])(
    'rejects %j with INVALID_SESSION_ID',
    (sid) => {
      let err: unknown;
      try {
        validateSessionId(sid);
      } catch (e) {
        err = e;
      }
      expect(isEntireError(err, 'INVALID_SESSION_ID')).toBe(true);
    },
  );
});

describe('helpers', () => {
  it('shadow branch names follow SPEC §2.1', () => {
    expect(shadowBranchName('abc1234ffff', '')).toBe('entire/abc1234-e3b0c4');
    expect(shadowBranchName('abc1234ffff', 'test-123')).toBe('entire/abc1234-37eb19');
    expect(shadowBranchName('abc1234ffff', 'wt')).toBe('entire/abc1234-a721db');
  });

  it('liveness: not ended, or pending work, or files_touched', () => {
    const s = newSessionState({ session_id: 's', started_at: 't' });
    expect(isLiveState(s)).toBe(true);
    s.phase = 'ended';
    expect(isLiveState(s)).toBe(false);
    expect(isLiveState({ ...s, files_touched: ['a'] })).toBe(true);
    expect(isLiveState({ ...s, turn_checkpoint_ids: ['aaaaaaaaaaaa'] })).toBe(true);
  });
});
