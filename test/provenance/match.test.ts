/** SPEC-3 §B.2's line matching (src/provenance/match.ts): pure, so properties over random lines. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { containsFragment, editDistance, isSmallEdit, matchHunk, normalizedEditDistance, MAX_COMPARED_CHARS } from '../../src/provenance/match.js';

/** The textbook recursion, memoized: the reference for small strings. */
function reference(a: string, b: string): number {
  const x = Array.from(a);
  const y = Array.from(b);
  const memo = new Map<string, number>();
  const d = (i: number, j: number): number => {
    if (i === 0) return j;
    if (j === 0) return i;
    const k = `${i},${j}`;
    const hit = memo.get(k);
    if (hit !== undefined) return hit;
    const v = Math.min(d(i - 1, j) + 1, d(i, j - 1) + 1, d(i - 1, j - 1) + (x[i - 1] === y[j - 1] ? 0 : 1));
    memo.set(k, v);
    return v;
  };
  return d(x.length, y.length);
}

const small = fc.string({ maxLength: 12, unit: fc.constantFrom('a', 'b', 'c', ' ', '\t', 'é', '😀') });
const line = fc.string({ maxLength: 30, unit: fc.constantFrom('a', 'b', 'c', 'x', '(', ')', ' ', ';') });

describe('edit distance', () => {
  it('equals the reference recursion, over code points', () => {
    fc.assert(fc.property(small, small, (a, b) => editDistance(a, b) === reference(a, b)));
    expect(editDistance('😀', 'a')).toBe(1);
  });

  it('normalized: in [0, 1], symmetric, 0 exactly when equal after trimming trailing whitespace', () => {
    fc.assert(
      fc.property(small, small, (a, b) => {
        const d = normalizedEditDistance(a, b);
        expect(d).toBeGreaterThanOrEqual(0);
        expect(d).toBeLessThanOrEqual(1);
        expect(normalizedEditDistance(b, a)).toBe(d);
        expect(d === 0).toBe(a.trimEnd() === b.trimEnd());
      }),
    );
    expect(normalizedEditDistance('return x;   ', 'return x;')).toBe(0);
    expect(normalizedEditDistance('  return x;', 'return x;')).toBeGreaterThan(0); // leading whitespace counts
  });

  it('small edits: ≤ 0.4 and not equal', () => {
    expect(isSmallEdit('const total = sum(a, b);', 'const total = sum(a, b, c);')).toBe(true);
    expect(isSmallEdit('const total = sum(a, b);', 'const total = sum(a, b);  ')).toBe(false); // equal: ai, not mixed
    expect(isSmallEdit('}', 'return;')).toBe(false);
    expect(isSmallEdit('abcde', 'abxyz')).toBe(false); // 3/5 = 0.6
    expect(isSmallEdit('abcde', 'abcyz')).toBe(true); // 2/5 = 0.4
  });

  it('a line over the comparison bound is only compared for equality', () => {
    const long = 'x'.repeat(MAX_COMPARED_CHARS + 1);
    expect(normalizedEditDistance(long, long + 'y')).toBe(1);
    expect(normalizedEditDistance(long, long + '  ')).toBe(0);
  });

  it('fragments of partial edits', () => {
    expect(containsFragment('func Hello() string { return "hello" }', 'return "hello"')).toBe(true);
    expect(containsFragment('anything', '   ')).toBe(false);
  });
});

describe('matchHunk', () => {
  it('P1: untouched agent lines exact, two edited lines mixed, an added line none', () => {
    const agent = ['package a', '', 'func Hello() string {', '\treturn "hello"', '}', '', 'func Bye() {}'];
    const file = ['package a', '', '// added by a person', 'func Hello() string {', '\treturn "hello, world"', '}', '', 'func Bye() { log() }'];
    expect(matchHunk(file, agent).map((m) => m.kind)).toEqual(['exact', 'exact', 'none', 'exact', 'mixed', 'exact', 'exact', 'mixed']);
    expect(matchHunk(file, agent)[4]).toMatchObject({ kind: 'mixed', agentIndex: 3 });
  });

  it('properties: one result per line, exact means equal, agent lines used once and in order', () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 25 }), fc.array(line, { maxLength: 25 }), (hunk, agent) => {
        const r = matchHunk(hunk, agent);
        expect(r).toHaveLength(hunk.length);
        let last = -1;
        r.forEach((m, i) => {
          if (m.kind === 'none') return;
          expect(m.agentIndex).toBeGreaterThan(last);
          last = m.agentIndex;
          if (m.kind === 'exact') expect(hunk[i]!.trimEnd()).toBe(agent[m.agentIndex]!.trimEnd());
          else expect(m.distance).toBeGreaterThan(0), expect(m.distance).toBeLessThanOrEqual(0.4);
        });
      }),
    );
  });

  it('the agent lines themselves match exactly, all of them; no agent lines match nothing', () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: 25 }), (agent) => {
        expect(matchHunk(agent, agent).map((m) => (m.kind === 'exact' ? m.agentIndex : -1))).toEqual(agent.map((_, i) => i));
        expect(matchHunk(agent, []).every((m) => m.kind === 'none')).toBe(true);
      }),
    );
  });

  it('over the alignment bound: first-come exact matches, still in order', () => {
    const agent = Array.from({ length: 2100 }, (_, i) => `line ${i}`);
    const hunk = agent.flatMap((l, i) => (i % 3 === 0 ? [l, `person ${i}`] : [l])); // 2100 × 2800 cells
    const r = matchHunk(hunk, agent);
    const exact = r.flatMap((m) => (m.kind === 'exact' ? [m.agentIndex] : []));
    expect(exact).toEqual(agent.map((_, i) => i));
    expect(r.filter((m) => m.kind === 'none')).toHaveLength(700);
  });
});
