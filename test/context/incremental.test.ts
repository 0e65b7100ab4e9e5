/**
 * SPEC-2 §F.4's incremental derivation: a fold resumed from its saved state (written as JSON
 * and read back through the one validating parser) gives exactly the fresh fold's layers and
 * state, however the transcript grew between derivations; a transcript whose folded prefix
 * changed, a state for another root, or a tampered state fold from scratch.
 */
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES } from '../helpers/repo.js';
import { getAgent } from '../../src/agents/registry.js';
import type { AgentAdapter } from '../../src/agents/types.js';
import { bytesOf } from '../../src/byte-source.js';
import { contextLayers } from '../../src/context/layers.js';
import { foldTranscript } from '../../src/context/incremental.js';
import { parseCheckpoint, type Checkpoint } from '../../src/context/fold-state.js';

const cases: { file: string; agent: string; root: string }[] = [
  { file: 'transcripts/claude-small.jsonl', agent: 'claude-code', root: '/' },
  { file: 'transcripts/claude-midturn-commit.jsonl', agent: 'claude-code', root: '/' },
  ...readdirSync(join(FIXTURES, 'real-agents/claude-code'))
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => ({ file: `real-agents/claude-code/${f}`, agent: 'claude-code', root: '/' })),
  { file: 'real-agents/codex/rollout-sample.jsonl', agent: 'codex', root: '/tmp/ra/dc1/repo' },
  { file: 'real-agents/copilot-cli/events-sample.jsonl', agent: 'copilot-cli', root: '/tmp/ra/cp1/repo' },
];

const adapters = new Map<string, AgentAdapter>();
for (const c of cases) if (!adapters.has(c.agent)) adapters.set(c.agent, await getAgent(c.agent));
const texts = cases.map((c) => readFileSync(join(FIXTURES, c.file)));

function fold(i: number, bytes: Buffer, saved: Checkpoint | null, root = cases[i]!.root) {
  return foldTranscript({ adapter: adapters.get(cases[i]!.agent)!, transcript: bytesOf(bytes), format: 'jsonl', prompts: [], root, saved });
}

/** What a hook does between two derivations: write the state, read it back. */
function roundTrip(cp: Checkpoint | null): Checkpoint | null {
  if (!cp) return null;
  const back = parseCheckpoint(JSON.stringify(cp));
  expect(back).not.toBeNull();
  return back;
}

describe('incremental context fold (SPEC-2 §F.4 Bounds)', () => {
  it('resumed at any split of every line-local fixture = a fresh fold (property)', () => {
    fc.assert(
      fc.property(fc.nat(cases.length - 1), fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 4 }), (i, fractions) => {
        const full = texts[i]!;
        const cuts = [...fractions.map((f) => Math.floor(f * full.length)), full.length].sort((a, b) => a - b);
        let saved: Checkpoint | null = null;
        for (const cut of cuts) {
          const prefix = full.subarray(0, cut);
          const incremental = fold(i, prefix, saved);
          const fresh = fold(i, prefix, null);
          expect(incremental.resumedAt).toBe(saved ? saved.offset : 0);
          expect(incremental.layers).toEqual(fresh.layers);
          expect(JSON.stringify(incremental.checkpoint)).toBe(JSON.stringify(fresh.checkpoint));
          // and the fold everyone else runs (no saved state at all)
          expect(fresh.layers).toEqual(contextLayers({ adapter: adapters.get(cases[i]!.agent)!, transcript: prefix, format: 'jsonl', prompts: [], root: cases[i]!.root }));
          saved = roundTrip(incremental.checkpoint);
        }
      }),
      { numRuns: 60, seed: 19 },
    );
  });

  it('every line of a fixture folded one derivation at a time = a fresh fold', () => {
    const i = cases.findIndex((c) => c.agent === 'codex');
    const full = texts[i]!;
    let saved: Checkpoint | null = null;
    let resumed = 0;
    for (let at = full.indexOf(0x0a); at >= 0; at = full.indexOf(0x0a, at + 1)) {
      const r = fold(i, full.subarray(0, at + 1), saved);
      if (r.resumedAt > 0) resumed++;
      saved = roundTrip(r.checkpoint);
    }
    expect(resumed).toBeGreaterThan(40);
    expect(saved!.lines).toBe(full.toString('utf8').split('\n').length - 1);
    expect(fold(i, full, saved).layers).toEqual(fold(i, full, null).layers);
  });

  it('a changed, shrunk or other-root transcript folds from scratch', () => {
    const i = cases.findIndex((c) => c.agent === 'copilot-cli');
    const full = texts[i]!;
    const half = full.subarray(0, full.indexOf(0x0a, full.length >> 1) + 1);
    const saved = roundTrip(fold(i, half, null).checkpoint)!;
    expect(fold(i, full, saved).resumedAt).toBe(saved.offset);
    // the last folded line rewritten (same length)
    const edited = Buffer.from(full);
    const p = saved.offset - 10;
    edited[p] = edited[p] === 0x41 ? 0x42 : 0x41;
    const r = fold(i, edited, saved);
    expect(r.resumedAt).toBe(0);
    expect(r.layers).toEqual(fold(i, edited, null).layers);
    // the file shrank below the offset
    expect(fold(i, half.subarray(0, half.length - 5), saved).resumedAt).toBe(0);
    // another repository root
    expect(fold(i, full, saved, '/elsewhere').resumedAt).toBe(0);
  });

  it('a saved state out of bounds, mistyped or from another build is refused', () => {
    const i = cases.findIndex((c) => c.agent === 'codex');
    const cp = fold(i, texts[i]!, null).checkpoint!;
    expect(parseCheckpoint(JSON.stringify(cp))).not.toBeNull();
    const bad: ((c: any) => void)[] = [
      (c) => (c.engine = 'ts-0.0.1/fold-0'),
      (c) => (c.state.turns = [...c.state.turns, ...c.state.turns, ...c.state.turns, ...c.state.turns]),
      (c) => (c.state.pending = Array.from({ length: 513 }, (_, n) => ({ id: `c${n}`, kind: 'shell', name: 'x' }))),
      (c) => (c.state.failures = [{ key: 'a', category: null, count: 1, error: '', turn: 1, seq: 1, open: true }, { key: 'a', category: null, count: 1, error: '', turn: 1, seq: 2, open: true }]),
      (c) => (c.state.goal = 42),
      (c) => (c.offset = -1),
      (c) => (c.lastLineHash = 'zz'),
      (c) => delete c.state.files,
    ];
    for (const spoil of bad) {
      const c = JSON.parse(JSON.stringify(cp));
      spoil(c);
      expect(parseCheckpoint(JSON.stringify(c))).toBeNull();
    }
    expect(parseCheckpoint('{')).toBeNull();
    expect(parseCheckpoint('null')).toBeNull();
  });

  it('one-document transcripts and agents without line-local events keep no state', async () => {
    const gemini = await getAgent('gemini');
    const text = readFileSync(join(FIXTURES, 'transcripts/gemini-small.json'));
    const r = foldTranscript({ adapter: gemini, transcript: bytesOf(text), format: 'json', prompts: [], root: '/', saved: null });
    expect(r.checkpoint).toBeNull();
    expect(r.layers).toEqual(contextLayers({ adapter: gemini, transcript: text, format: 'json', prompts: [], root: '/' }));
  });
});
