/**
 * SPEC §3.1 (1): the entropy detector. A region is each greedy,
 * non-overlapping run of `[A-Za-z0-9/+_=-]{10,}` whose byte Shannon entropy
 * is above 4.5. A run needs at least 23 distinct characters to get there
 * (log2(22) < 4.5 < log2(23)), so shorter or poorer runs are skipped without
 * computing anything; hex SHAs (16 symbols) and UUIDs (17) never qualify.
 */

export const ENTROPY_THRESHOLD = 4.5;
/** Shortest run that can exceed the threshold (23 distinct symbols). */
export const MIN_ENTROPY_RUN = 23;
export const MIN_RUN = 10;

/** 1 for the characters of `[A-Za-z0-9/+_=-]`, indexed by char code < 128. */
export const RUN_CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  if (/[A-Za-z0-9/+_=-]/.test(ch)) RUN_CLASS[c] = 1;
}

const counts = new Int32Array(128);

/** Byte Shannon entropy (bits per byte) of a string (UTF-8 bytes). */
export function shannonEntropy(s: string): number {
  if (s.length === 0) return 0;
  if (/^[\x00-\x7f]*$/.test(s)) return asciiEntropy(s);
  const bytes = Buffer.from(s, 'utf8');
  const freq = new Map<number, number>();
  for (const b of bytes) freq.set(b, (freq.get(b) ?? 0) + 1);
  let h = 0;
  const n = bytes.length;
  for (const f of freq.values()) {
    const p = f / n;
    h -= p * Math.log2(p);
  }
  return h;
}

const asciiCounts = new Int32Array(128);

function asciiEntropy(s: string): number {
  const n = s.length;
  for (let i = 0; i < n; i++) asciiCounts[s.charCodeAt(i)]!++;
  let h = 0;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    const f = asciiCounts[c]!;
    if (f > 0) {
      const p = f / n;
      h -= p * Math.log2(p);
      asciiCounts[c] = 0;
    }
  }
  return h;
}

/**
 * Entropy of s[start, end) where every char is in RUN_CLASS (ASCII, so one
 * byte per char). Returns -1 early when fewer than 23 distinct chars occur.
 */
export function runEntropy(s: string, start: number, end: number): number {
  let distinct = 0;
  for (let i = start; i < end; i++) {
    const c = s.charCodeAt(i);
    const f = counts[c]!;
    counts[c] = f + 1;
    if (f === 0) distinct++;
  }
  let h = -1;
  if (distinct >= MIN_ENTROPY_RUN) {
    const n = end - start;
    h = 0;
    for (let i = start; i < end; i++) {
      const c = s.charCodeAt(i);
      const f = counts[c]!;
      if (f > 0) {
        const p = f / n;
        h -= p * Math.log2(p);
        counts[c] = 0;
      }
    }
  }
  for (let i = start; i < end; i++) counts[s.charCodeAt(i)] = 0;
  return h;
}

/**
 * Improvement on SPEC §3.1 (1): an absolute path (`/tmp/build-x7Qz/app/src`) is a
 * run too, and a random directory name makes many a path look like a key, so a
 * run that starts with `/`, holds no `+` or `=` (base64's marks) and whose every
 * `/`-separated segment stays under the threshold on its own is not flagged. A
 * secret that happens to start with `/` keeps one of those marks or a diverse
 * segment far more often than not; named keys are the rules' job anyway.
 */
export function looksLikeAbsolutePath(s: string, start: number, end: number): boolean {
  if (s.charCodeAt(start) !== 0x2f && !continuesPath(s, start)) return false;
  let seg = s.charCodeAt(start) === 0x2f ? start + 1 : start;
  for (let i = start + 1; i <= end; i++) {
    const c = i < end ? s.charCodeAt(i) : 0x2f;
    if (c === 0x2b || c === 0x3d) return false; // + =
    if (c !== 0x2f) continue;
    if (i - seg >= MIN_ENTROPY_RUN && runEntropy(s, seg, i) > ENTROPY_THRESHOLD) return false;
    seg = i + 1;
  }
  return true;
}

/** `/tmp/tmp.<run>`: the run follows a `.` inside a path component (`.` is not a run character). */
function continuesPath(s: string, start: number): boolean {
  if (start < 2 || s.charCodeAt(start - 1) !== 0x2e) return false;
  for (let j = start - 2; j >= 0; j--) {
    const c = s.charCodeAt(j);
    if (c === 0x2f) return true;
    const word = (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x2e || c === 0x2d || c === 0x5f;
    if (!word) return false;
  }
  return false;
}

/** True when s[start, end) (a class run) is flagged by the entropy detector. */
export function runIsHighEntropy(s: string, start: number, end: number): boolean {
  if (end - start < MIN_ENTROPY_RUN) return false;
  return runEntropy(s, start, end) > ENTROPY_THRESHOLD && !looksLikeAbsolutePath(s, start, end);
}

/** Reference implementation (used by tests): the regions of SPEC §3.1 (1). */
export function entropyRegions(s: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  const re = /[A-Za-z0-9/+_=-]{10,}/g;
  for (let m = re.exec(s); m !== null; m = re.exec(s)) {
    if (shannonEntropy(m[0]) > ENTROPY_THRESHOLD && !looksLikeAbsolutePath(s, m.index, m.index + m[0].length)) out.push([m.index, m.index + m[0].length]);
  }
  return out;
}
