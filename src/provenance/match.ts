/**
 * Line matching for line provenance (SPEC-3 §B.2), with no diff engine and no I/O: whether a
 * line of a file equals a line an agent added (`ai`), is a small edit of one at the same place
 * in the hunk (`mixed`), or neither. Text is compared after trimming trailing whitespace.
 *
 * - `normalizedEditDistance(a, b)`: Levenshtein distance over code points / the longer length;
 * - `matchHunk(hunk, agentLines)`: aligns a run of the file's lines (a blame hunk, in order)
 *   with an agent edit's added lines (in order): exact matches by a longest common subsequence,
 *   then, between two exact anchors, the unmatched lines paired by their offset in that gap and
 *   kept when their distance is ≤ {@link MIXED_MAX_DISTANCE};
 * - `containsFragment(line, fragment)`: for `partial` edits, whose added lines are the tool's
 *   strings rather than whole lines.
 *
 * Bounded: lines longer than {@link MAX_COMPARED_CHARS} are only compared for equality, and
 * alignments beyond {@link MAX_ALIGN_CELLS} fall back to first-come exact matching.
 */

/** SPEC-3 §B.2: a `mixed` line is at most this far (normalized) from the agent's line. */
export const MIXED_MAX_DISTANCE = 0.4;
/** Longer lines are only compared for equality (the distance is quadratic in the length). */
export const MAX_COMPARED_CHARS = 2000;
/** Largest hunk × agent-lines table aligned by LCS. */
export const MAX_ALIGN_CELLS = 4_000_000;

/** The text compared: trailing whitespace trimmed. */
export function normalizeLine(line: string): string {
  return line.replace(/\s+$/, '');
}

/** Levenshtein distance over code points (insert, delete, substitute: 1 each). */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  const x = Array.from(a);
  const y = Array.from(b);
  if (x.length === 0) return y.length;
  if (y.length === 0) return x.length;
  let prev = new Array<number>(y.length + 1);
  let cur = new Array<number>(y.length + 1);
  for (let j = 0; j <= y.length; j++) prev[j] = j;
  for (let i = 1; i <= x.length; i++) {
    cur[0] = i;
    const xi = x[i - 1];
    for (let j = 1; j <= y.length; j++) {
      const sub = prev[j - 1]! + (xi === y[j - 1] ? 0 : 1);
      const del = prev[j]! + 1;
      const ins = cur[j - 1]! + 1;
      cur[j] = sub < del ? (sub < ins ? sub : ins) : del < ins ? del : ins;
    }
    [prev, cur] = [cur, prev];
  }
  return prev[y.length]!;
}

/**
 * Distance / the longer line's length in code points, on trailing-trimmed text: 0 for equal
 * lines, 1 for nothing in common (and for a line over the comparison bound that differs).
 */
export function normalizedEditDistance(a: string, b: string): number {
  const x = normalizeLine(a);
  const y = normalizeLine(b);
  if (x === y) return 0;
  if (x.length > MAX_COMPARED_CHARS || y.length > MAX_COMPARED_CHARS) return 1;
  const n = Math.max(Array.from(x).length, Array.from(y).length);
  return editDistance(x, y) / n;
}

/** A person's (or another tool's) small edit of an agent's line: different, and within the threshold. */
export function isSmallEdit(line: string, agentLine: string, max = MIXED_MAX_DISTANCE): boolean {
  const d = normalizedEditDistance(line, agentLine);
  return d > 0 && d <= max;
}

/** Whether a file line holds a `partial` edit's added string (trimmed, non-blank). */
export function containsFragment(line: string, fragment: string): boolean {
  const f = fragment.trim();
  return f !== '' && line.includes(f);
}

export type LineMatch = { kind: 'exact'; agentIndex: number } | { kind: 'mixed'; agentIndex: number; distance: number } | { kind: 'none' };

/** Pairs of (hunk index, agent index) of a longest common subsequence of equal (trimmed) lines. */
function lcsPairs(h: readonly string[], a: readonly string[]): Array<[number, number]> {
  const n = h.length;
  const m = a.length;
  if (n * m > MAX_ALIGN_CELLS) return greedyPairs(h, a);
  // suffix table: t[i][j] = LCS length of h[i..] and a[j..]
  const w = m + 1;
  const t = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      t[i * w + j] = h[i] === a[j] ? t[(i + 1) * w + j + 1]! + 1 : Math.max(t[(i + 1) * w + j]!, t[i * w + j + 1]!);
    }
  }
  const out: Array<[number, number]> = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (h[i] === a[j]) {
      out.push([i, j]);
      i++;
      j++;
    } else if (t[(i + 1) * w + j]! >= t[i * w + j + 1]!) i++;
    else j++;
  }
  return out;
}

/** Over the alignment bound: each hunk line takes the first unused equal agent line after the last one taken. */
function greedyPairs(h: readonly string[], a: readonly string[]): Array<[number, number]> {
  const where = new Map<string, number[]>();
  a.forEach((l, j) => {
    const list = where.get(l);
    if (list) list.push(j);
    else where.set(l, [j]);
  });
  const out: Array<[number, number]> = [];
  let last = -1;
  h.forEach((l, i) => {
    const list = where.get(l);
    const j = list?.find((k) => k > last);
    if (j !== undefined) {
      out.push([i, j]);
      last = j;
    }
  });
  return out;
}

/**
 * Each line of `hunk` against `agentLines` (both in file order). Exact matches keep their order
 * (each agent line used once); in each gap between exact anchors, the k-th unmatched hunk line is
 * compared with the k-th unmatched agent line of the same gap and is `mixed` when within `max`.
 */
export function matchHunk(hunk: readonly string[], agentLines: readonly string[], max = MIXED_MAX_DISTANCE): LineMatch[] {
  const h = hunk.map(normalizeLine);
  const a = agentLines.map(normalizeLine);
  const out: LineMatch[] = h.map(() => ({ kind: 'none' }));
  const pairs = lcsPairs(h, a);
  let hi = 0;
  let ai = 0;
  const gap = (hEnd: number, aEnd: number): void => {
    for (let k = 0; hi + k < hEnd && ai + k < aEnd; k++) {
      const d = normalizedEditDistance(h[hi + k]!, a[ai + k]!);
      if (d > 0 && d <= max) out[hi + k] = { kind: 'mixed', agentIndex: ai + k, distance: d };
    }
  };
  for (const [i, j] of pairs) {
    gap(i, j);
    out[i] = { kind: 'exact', agentIndex: j };
    hi = i + 1;
    ai = j + 1;
  }
  gap(h.length, a.length);
  return out;
}
