import { describe, it, expect } from 'vitest';
import { generateCheckpointId, isCheckpointId, shardPath, slotPath } from '../../src/checkpoint/id.js';
import { encodeJson } from '../../src/go-json.js';
import { worktreeHash, shadowBranchName, parseShadowBranch } from '../../src/checkpoint/shadow.js';
import {
  encodeRootMetadata,
  encodeSessionMetadata,
  decodeSessionMetadata,
  decodeRootMetadata,
  formatCreatedAt,
} from '../../src/checkpoint/metadata.js';
import { chunkJsonl, joinJsonlChunks, contentHash, chunkJsonDocument, joinJsonDocumentChunks, chunkIndexOf } from '../../src/checkpoint/chunks.js';
import { encodeContextFile, encodePromptFile, decodePromptFile, collapsePrompt } from '../../src/checkpoint/prompts.js';
import { condenseMessage, finalizeMessage, shadowStepMessage, stepSubject } from '../../src/checkpoint/messages.js';
import { chooseSlot } from '../../src/checkpoint/layout.js';

describe('checkpoint ids (SPEC §2.2)', () => {
  it('generates 12 lowercase hex and shards as xx/yyyyyyyyyy', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const id = generateCheckpointId();
      expect(id).toMatch(/^[0-9a-f]{12}$/);
      seen.add(id);
    }
    expect(seen.size).toBe(200);
    expect(shardPath('a1b2c3d4e5f6')).toBe('a1/b2c3d4e5f6');
    expect(slotPath('a1b2c3d4e5f6', 3)).toBe('a1/b2c3d4e5f6/3');
  });

  it('rejects invalid ids and slots with stable codes', () => {
    for (const bad of ['A1B2C3D4E5F6', 'a1b2c3', 'a1b2c3d4e5f6a', '../etc/pass', 'REDACTED']) {
      expect(isCheckpointId(bad)).toBe(false);
      expect(() => shardPath(bad)).toThrowError(expect.objectContaining({ code: 'INVALID_CHECKPOINT_ID' }));
    }
    expect(() => slotPath('a1b2c3d4e5f6', -1)).toThrowError(expect.objectContaining({ code: 'INVALID_SLOT' }));
    expect(() => slotPath('a1b2c3d4e5f6', 1.5)).toThrowError(expect.objectContaining({ code: 'INVALID_SLOT' }));
  });
});

describe('Go-compatible JSON (SPEC §2.6)', () => {
  it('indents by two, escapes <>& and U+2028/9, ends with one newline, keeps [] and {} inline', () => {
    const s = encodeJson({ a: '<b> & c\u2028d\u2029', e: [], f: {}, g: [1, 2] });
    expect(s).toBe('{\n  "a": "\\u003cb\\u003e \\u0026 c\\u2028d\\u2029",\n  "e": [],\n  "f": {},\n  "g": [\n    1,\n    2\n  ]\n}\n');
  });
});

describe('shadow branch names (SPEC §2.1)', () => {
  it('hashes worktree ids as the SPEC examples say', () => {
    expect(worktreeHash('')).toBe('e3b0c4');
    expect(worktreeHash('test-123')).toBe('37eb19');
    expect(worktreeHash('wt')).toBe('a721db');
    expect(shadowBranchName('abc1234def5678', '')).toBe('entire/abc1234-e3b0c4');
  });

  it('parses at the last dash, with the legacy form meaning the main worktree', () => {
    expect(parseShadowBranch('entire/abc1234-37eb19')).toEqual({ base: 'abc1234', worktreeHash: '37eb19' });
    expect(parseShadowBranch('entire/abc1234')).toEqual({ base: 'abc1234', worktreeHash: 'e3b0c4' });
    expect(parseShadowBranch('refs/heads/entire/abc1234-e3b0c4')).toEqual({ base: 'abc1234', worktreeHash: 'e3b0c4' });
    expect(parseShadowBranch('entire/checkpoints/v1')).toBeNull();
    expect(parseShadowBranch('entire/xyz')).toBeNull();
  });
});

describe('metadata.json (SPEC §2.4, §2.5)', () => {
  it('writes session metadata in the Go key order with omitempty', () => {
    const text = encodeSessionMetadata({
      cli_version: 'ts-0.1.0',
      checkpoint_id: 'a1b2c3d4e5f6',
      session_id: 's1',
      strategy: 'manual-commit',
      created_at: '2026-02-09T06:35:43.769Z',
      branch: 'main',
      checkpoints_count: 2,
      files_touched: ['b.ts', 'a.ts'],
      agent: 'Claude Code',
      turn_id: '0b298bf58fb7',
      transcript_identifier_at_start: 'u1',
      checkpoint_transcript_start: 14,
      token_usage: { input_tokens: 1, cache_creation_tokens: 2, cache_read_tokens: 3, output_tokens: 4, api_call_count: 5 },
      transcript_path: '.claude/projects/x/s1.jsonl',
      extra: { future_key: 1 },
    });
    expect(Object.keys(JSON.parse(text))).toEqual([
      'cli_version',
      'checkpoint_id',
      'session_id',
      'strategy',
      'created_at',
      'branch',
      'checkpoints_count',
      'files_touched',
      'agent',
      'turn_id',
      'transcript_identifier_at_start',
      'checkpoint_transcript_start',
      'token_usage',
      'transcript_path',
      'future_key',
    ]);
    expect(text.endsWith('}\n')).toBe(true);
    const empty = JSON.parse(
      encodeSessionMetadata({ checkpoint_id: 'a1b2c3d4e5f6', session_id: 's', strategy: 'manual-commit', created_at: 'x', checkpoints_count: 0, files_touched: [] }),
    );
    expect(empty.files_touched).toBeNull();
    expect('branch' in empty).toBe(false);
    expect('token_usage' in empty).toBe(false);
  });

  it('reads legacy session shapes', () => {
    const m = decodeSessionMetadata(
      {
        checkpoint_id: 'REDACTED',
        session_id: '2026-01-21-0cf3db51-1c73-43bb-8d05-dc02739514a5',
        strategy: 'shadow',
        created_at: '2026-01-21T18:21:33.041592+11:00',
        branch: '',
        steps_count: 2,
        files_touched: null,
        transcript_uuid_at_start: 'u-1',
        transcript_lines_at_start: 964,
      },
      'ba5e23ccb05b',
    );
    expect(m.checkpoint_id).toBe('ba5e23ccb05b');
    expect(m.strategy).toBe('manual-commit');
    expect(m.checkpoints_count).toBe(2);
    expect(m.files_touched).toBeNull();
    expect(m.branch).toBeUndefined();
    expect(m.transcript_identifier_at_start).toBe('u-1');
    expect(m.checkpoint_transcript_start).toBe(964);
  });

  it('root metadata: key order, empty paths as "", unknown keys kept after known ones', () => {
    const root = decodeRootMetadata({ checkpoint_id: 'a1b2c3d4e5f6', strategy: 'manual-commit', migration_source_commit: 'abc', checkpoints_count: 1, files_touched: [], sessions: [] });
    root.sessions.push({ metadata: '/a1/b2c3d4e5f6/0/metadata.json', transcript: '/a1/b2c3d4e5f6/0/full.jsonl', context: '', content_hash: '/a1/b2c3d4e5f6/0/content_hash.txt', prompt: '' });
    const o = JSON.parse(encodeRootMetadata(root));
    expect(Object.keys(o)).toEqual(['checkpoint_id', 'strategy', 'checkpoints_count', 'files_touched', 'sessions', 'migration_source_commit']);
    expect(o.files_touched).toBeNull();
    expect(Object.keys(o.sessions[0])).toEqual(['metadata', 'transcript', 'context', 'content_hash', 'prompt']);
  });

  it('formats created_at as UTC RFC 3339 with trailing zeros trimmed', () => {
    expect(formatCreatedAt(new Date('2026-02-09T06:35:43.700Z'))).toBe('2026-02-09T06:35:43.7Z');
    expect(formatCreatedAt(new Date('2026-02-09T06:35:43.000Z'))).toBe('2026-02-09T06:35:43Z');
    expect(formatCreatedAt(new Date('2026-02-09T06:35:43.769Z'))).toBe('2026-02-09T06:35:43.769Z');
  });
});

describe('chunking (SPEC §2.7)', () => {
  it('keeps content ≤ M as one chunk, unchanged', () => {
    const b = Buffer.from('a\nb\n');
    expect(chunkJsonl(b, 4)).toEqual([b]);
  });

  it('groups lines greedily so each chunk ≤ M and the \\n-join is the input', () => {
    const input = Buffer.from('aaa\nbbb\ncc\nd\n');
    const chunks = chunkJsonl(input, 7);
    for (const c of chunks) expect(c.length).toBeLessThanOrEqual(7);
    expect(chunks.map(String)).toEqual(['aaa\nbbb', 'cc\nd\n']);
    expect(joinJsonlChunks(chunks).equals(input)).toBe(true);
  });

  it('replaces a single line longer than M by an entire-omitted marker', () => {
    const long = 'x'.repeat(200);
    const chunks = chunkJsonl(Buffer.from(`a\n${long}\nb`), 120);
    const marker = JSON.parse(chunks.find((c) => c.includes('entire-omitted'))!.toString());
    expect(marker).toMatchObject({ type: 'entire-omitted', original_bytes: 200 });
    expect(marker.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('chunks Gemini documents losslessly', () => {
    const doc = { sessionId: 's', messages: Array.from({ length: 20 }, (_, i) => ({ id: `m${i}`, type: 'user', content: 'x'.repeat(30) })) };
    const chunks = chunkJsonDocument(Buffer.from(JSON.stringify(doc)), 300);
    expect(chunks.length).toBeGreaterThan(1);
    const back = JSON.parse(joinJsonDocumentChunks(chunks).toString());
    expect(back.messages).toEqual(doc.messages);
    expect(back.sessionId).toBe('s');
  });

  it('names chunks full.jsonl, .001, … and recognises the legacy full.log', () => {
    expect(chunkIndexOf('full.jsonl')).toBe(0);
    expect(chunkIndexOf('full.jsonl.001')).toBe(1);
    expect(chunkIndexOf('full.jsonl.012')).toBe(12);
    expect(chunkIndexOf('full.log')).toBe(0);
    expect(chunkIndexOf('metadata.json')).toBeNull();
  });

  it('hashes content as sha256:<hex>', () => {
    expect(contentHash(Buffer.from(''))).toBe('sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });
});

describe('prompts and context (SPEC §2.3)', () => {
  it('joins prompts with the separator and builds context.md', () => {
    expect(encodePromptFile(['a', 'b'])).toBe('a\n\n---\n\nb');
    expect(decodePromptFile('a\n\n---\n\nb')).toEqual(['a', 'b']);
    expect(encodeContextFile(['first', 'second'])).toBe('# Session Context\n\n## User Prompts\n\n### Prompt 1\n\nfirst\n\n### Prompt 2\n\nsecond\n\n');
    expect(encodeContextFile([])).toBe('');
  });

  it('cuts prompts over 500 bytes at a code-point boundary', () => {
    const p = 'é'.repeat(300); // 600 bytes
    const ctx = encodeContextFile([p]);
    const shown = ctx.split('### Prompt 1\n\n')[1]!.replace(/\n\n$/, '');
    expect(shown.endsWith('...')).toBe(true);
    expect(Buffer.byteLength(shown.slice(0, -3))).toBe(500);
  });

  it('collapses whitespace for first_prompt', () => {
    expect(collapsePrompt('  a\n\n b  ', 100)).toBe('a b');
    expect(collapsePrompt('x'.repeat(120), 100)).toBe('x'.repeat(100) + '...');
  });
});

describe('commit messages (SPEC §2.8)', () => {
  it('are byte-exact', () => {
    expect(condenseMessage({ checkpointId: 'a1b2c3d4e5f6', sessionId: 's1', agent: 'Claude Code', shadowBranch: 'entire/abc1234-e3b0c4' })).toBe(
      'Checkpoint: a1b2c3d4e5f6\n\nEntire-Session: s1\nEntire-Strategy: manual-commit\nEntire-Agent: Claude Code\nEphemeral-branch: entire/abc1234-e3b0c4\n',
    );
    expect(condenseMessage({ checkpointId: 'a1b2c3d4e5f6', sessionId: 's1', shadowBranch: 'entire/abc1234-e3b0c4' })).not.toContain('Entire-Agent');
    expect(finalizeMessage('a1b2c3d4e5f6')).toBe('Finalize transcript for Checkpoint: a1b2c3d4e5f6');
    expect(shadowStepMessage({ subject: 'Add x', sessionId: 's1' })).toBe(
      'Add x\n\nEntire-Metadata: .entire/metadata/s1\nEntire-Session: s1\nEntire-Strategy: manual-commit\n',
    );
  });

  it('derives step subjects from the last prompt', () => {
    expect(stepSubject('Can you add a healthz endpoint?', 'Claude Code')).toBe('Add a healthz endpoint');
    expect(stepSubject("please let's fix it", 'Claude Code')).toBe('Fix it');
    expect(stepSubject('', 'Claude Code')).toBe('Claude Code session updates');
    expect(Array.from(stepSubject('y'.repeat(100), 'X')).length).toBe(72);
  });
});

describe('slot choice (SPEC §2.3)', () => {
  it('reuses the slot of the same session, else appends after the highest', () => {
    const mk = (slot: number, sid: string) => ({ slot, sessionId: sid, metadata: {} as never, files: [] });
    expect(chooseSlot([], 'a')).toEqual({ slot: 0, existing: false });
    expect(chooseSlot([mk(0, 'a'), mk(1, 'b')], 'a')).toEqual({ slot: 0, existing: true });
    expect(chooseSlot([mk(0, 'a'), mk(2, 'b')], 'c')).toEqual({ slot: 3, existing: false });
  });
});

describe('line groups for shadow transcript copies', () => {
  it('equal chunkJsonl for lines within the limit, join back to the input, and only the last group changes on append', async () => {
    const { lineGroupRanges } = await import('../../src/checkpoint/chunks.js');
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
    for (let trial = 0; trial < 200; trial++) {
      const lines = Array.from({ length: 1 + Math.floor(rnd() * 30) }, () => 'x'.repeat(Math.floor(rnd() * 40)));
      const text = lines.join('\n') + (rnd() < 0.5 ? '\n' : '');
      const buf = Buffer.from(text);
      const max = 20 + Math.floor(rnd() * 60);
      const ranges = lineGroupRanges(buf, max);
      const pieces = ranges.map(([a, b]) => buf.subarray(a, b));
      expect(Buffer.concat(pieces.flatMap((p, i) => (i ? [Buffer.from('\n'), p] : [p]))).equals(buf)).toBe(true);
      if (!lines.some((l) => l.length > max)) expect(pieces.map(String)).toEqual(chunkJsonl(buf, max).map(String));
      const longer = lineGroupRanges(Buffer.from(text + (text.endsWith('\n') ? '' : '\n') + 'yyyy\nzz\n'), max);
      expect(longer.slice(0, ranges.length - 1)).toEqual(ranges.slice(0, -1));
    }
  });
});
