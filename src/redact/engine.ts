/**
 * The redaction engine (SPEC §3.1, §3.2 `redactString`).
 *
 * One pass over a string does the cheap work for both detectors:
 * - an Aho-Corasick automaton over every rule keyword (ASCII case-folded,
 *   a full DFA: one table lookup per character) records which rules can
 *   match (the keyword prefilter) and, for anchored rules, where their
 *   keywords start;
 * - the same loop tracks runs of `[A-Za-z0-9/+_=-]` and computes the entropy
 *   of runs long enough (≥ 23) to qualify.
 * Only rules whose keywords occur run their regex. A keyword of an
 * `assignment` rule (`<name> = <value>` shapes: generic-api-key,
 * secret-assignment…) counts only when an operator follows its name
 * (assignmentFollows): `token` in `input_tokens` or `accessToken.refresh()`
 * costs a few character checks, not a regex call per rule. Most strings of a
 * transcript have no keyword and no high-entropy run and leave after the pass.
 *
 * Everything is built on first use: importing this module costs nothing.
 */
import { readFileNoFollow, writeFileIn } from '../trust/confined.js';
import { trustedCacheDir } from '../cache-dir.js';
import { basename, dirname, join } from 'node:path';
import { RULES } from './rules.js';
import type { CompiledRule } from './types.js';
import { MIN_ENTROPY_RUN, RUN_CLASS, runIsHighEntropy, shannonEntropy } from './entropy.js';
import { crypto } from '../builtins.js';

export const REDACTED = 'REDACTED';

/** Stats bucket for the entropy detector. */
export const ENTROPY_RULE_ID = 'entropy';

/** Secrets never re-redacted (keeps redaction idempotent). */
const GLOBAL_ALLOW = /^(?:REDACTED)+$/;
/** Shorter secrets are dropped: every occurrence of a secret is redacted, and
 * a two-letter "secret" would shred the text around it. */
const MIN_SECRET = 4;

interface Automaton {
  rules: CompiledRule[];
  /**
   * The scan loop's table: for state st and char c < 128,
   * step[st * 128 + c] = next << 2 | (next has outputs) << 1 | (c in the run class).
   */
  step: Uint16Array;
  /** Keywords ending in each state (its own and its suffixes'), as rule index * 256 + keyword length. */
  out: Array<number[] | null>;
  /** 1 where out[state] is non-null. */
  hasOut: Uint8Array;
}

let automaton: Automaton | null = null;

function build(): Automaton {
  const rules = compileRules();
  // trie
  const gotoRows: Array<Int32Array> = [new Int32Array(128).fill(-1)];
  const outSets: Array<Set<number>> = [new Set()];
  for (const rule of rules) {
    for (const kw of rule.keywords) {
      let st = 0;
      for (let i = 0; i < kw.length; i++) {
        const c = kw.charCodeAt(i);
        if (c >= 128) throw new Error(`rule ${rule.id}: keyword must be ASCII`);
        const lc = c >= 65 && c <= 90 ? c + 32 : c;
        let nx = gotoRows[st]![lc]!;
        if (nx === -1) {
          nx = gotoRows.length;
          gotoRows.push(new Int32Array(128).fill(-1));
          outSets.push(new Set());
          gotoRows[st]![lc] = nx;
        }
        st = nx;
      }
      if (kw.length > 255) throw new Error(`rule ${rule.id}: keyword too long`);
      outSets[st]!.add(rule.index * 256 + kw.length);
    }
  }
  const n = gotoRows.length;
  const fail = new Int32Array(n);
  const delta = new Uint32Array(n * 128);
  // BFS
  const queue: number[] = [];
  for (let c = 0; c < 128; c++) {
    const nx = gotoRows[0]![c]!;
    if (nx > 0) {
      fail[nx] = 0;
      queue.push(nx);
      delta[c] = nx;
    } else delta[c] = 0;
  }
  for (let qi = 0; qi < queue.length; qi++) {
    const st = queue[qi]!;
    for (const r of outSets[fail[st]!]!) outSets[st]!.add(r);
    for (let c = 0; c < 128; c++) {
      const nx = gotoRows[st]![c]!;
      if (nx > 0) {
        fail[nx] = delta[fail[st]! * 128 + c]!;
        queue.push(nx);
        delta[st * 128 + c] = nx;
      } else {
        delta[st * 128 + c] = delta[fail[st]! * 128 + c]!;
      }
    }
  }
  // case folding: uppercase letters follow their lowercase transitions
  for (let st = 0; st < n; st++) {
    for (let c = 65; c <= 90; c++) delta[st * 128 + c] = delta[st * 128 + c + 32]!;
  }
  // each entry: rule index * 256 + keyword length
  const out = outSets.map((s) => (s.size === 0 ? null : [...s].sort((a, b) => a - b)));
  const hasOut = new Uint8Array(n);
  for (let st = 0; st < n; st++) hasOut[st] = out[st] === null ? 0 : 1;
  if (n >= 1 << 14) throw new Error('keyword automaton too large');
  const step = new Uint16Array(n * 128);
  for (let st = 0; st < n; st++) {
    for (let c = 0; c < 128; c++) {
      const nx = delta[st * 128 + c]!;
      step[st * 128 + c] = (nx << 2) | (hasOut[nx]! << 1) | RUN_CLASS[c]!;
    }
  }
  return { rules, step, out, hasOut };
}

/**
 * The keyword automaton's tables take ~25 ms to build in a cold process
 * (interpreted loops), which every hook that redacts would pay; they depend
 * only on the rule keywords, so they are kept in the user's cache directory
 * (beside the V8 code cache) and read back in well under a millisecond.
 */
function cacheFile(): string | null {
  // only the directory the launcher vetted (ours, private, not a symlink: SPEC-2 §A.9)
  const dir = trustedCacheDir();
  if (!dir) return null;
  const h = crypto().createHash('sha256');
  for (const r of RULES) h.update(r.id + '\0' + r.keywords.join('\0') + '\n');
  return join(dir, `redact-automaton-${h.digest('hex').slice(0, 16)}.bin`);
}

function serialise(a: Automaton): Buffer {
  const n = a.hasOut.length;
  const outs: number[] = [];
  for (let st = 0; st < n; st++) {
    const o = a.out[st];
    if (!o) continue;
    outs.push(st, o.length, ...o);
  }
  const head = Buffer.alloc(8);
  head.writeUInt32LE(n, 0);
  head.writeUInt32LE(outs.length, 4);
  return Buffer.concat([head, Buffer.from(a.step.buffer, a.step.byteOffset, a.step.byteLength), Buffer.from(new Uint32Array(outs).buffer)]);
}

function deserialise(buf: Buffer, rules: CompiledRule[]): Automaton | null {
  if (buf.length < 8) return null;
  const n = buf.readUInt32LE(0);
  const outLen = buf.readUInt32LE(4);
  if (buf.length !== 8 + n * 128 * 2 + outLen * 4) return null;
  const copy = new Uint8Array(buf.length);
  copy.set(buf);
  const step = new Uint16Array(copy.buffer, 8, n * 128);
  const outs = new Uint32Array(copy.buffer, 8 + n * 256, outLen);
  const out: Array<number[] | null> = new Array(n).fill(null);
  const hasOut = new Uint8Array(n);
  for (let i = 0; i < outs.length; ) {
    const st = outs[i]!;
    const len = outs[i + 1]!;
    out[st] = Array.from(outs.subarray(i + 2, i + 2 + len));
    hasOut[st] = 1;
    i += 2 + len;
  }
  return { rules, step, out, hasOut };
}

/** Rules with their regexes built on first use: most texts never reach most rules. */
function compileRules(): CompiledRule[] {
  return RULES.map((r, index) => {
    let re: RegExp | null | undefined;
    let sticky: RegExp | null | undefined;
    return {
      ...r,
      index,
      get re(): RegExp | null {
        if (re === undefined) re = r.regex === undefined ? null : new RegExp(r.regex, 'g' + (r.flags ?? ''));
        return re;
      },
      get sticky(): RegExp | null {
        if (sticky === undefined) sticky = r.regex === undefined || r.anchored !== true ? null : new RegExp(r.regex, 'y' + (r.flags ?? ''));
        return sticky;
      },
    };
  });
}

function getAutomaton(): Automaton {
  if (automaton !== null) return automaton;
  const file = process.env['ENTIRE_NO_CODE_CACHE'] === '1' ? null : cacheFile();
  if (file) {
    try {
      const buf = readFileNoFollow(file);
      automaton = buf === null ? null : deserialise(buf, compileRules());
    } catch {
      automaton = null;
    }
  }
  if (automaton === null) {
    automaton = build();
    if (file) {
      try {
        writeFileIn(dirname(file), basename(file), serialise(automaton), 0o600);
      } catch {
        /* a cache only */
      }
    }
  }
  return automaton;
}

/** The compiled rules (built on first use). */
export function compiledRules(): CompiledRule[] {
  return getAutomaton().rules;
}

// ── The `assignment` prefilter (types.ts) ────────────────────────────────

/** Most name characters an `assignment` rule's match has before its operator, counted from the keyword's start. */
export const ASSIGNMENT_NAME_MAX = 64;

/** 1 for `[A-Za-z0-9_.-]`. */
const NAME_CHAR = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  NAME_CHAR[c] = (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 46 || c === 45 ? 1 : 0;
}

// Last answer of assignmentFollows: every p in [glueFrom, glueEnd) of glueText has
// only name characters up to glueEnd, so shares the verdict glueOk (within the bound).
let glueText = '';
let glueFrom = 0;
let glueEnd = 0;
let glueOk = false;

/**
 * The glue of an `assignment` rule (types.ts) follows the keyword at p: name
 * characters `[A-Za-z0-9_.-]` (fewer than ASSIGNMENT_NAME_MAX from p), an
 * optional `\`, an optional quote, at most 3 whitespace, then `:` or `=`.
 * A necessary condition only: false means the rule's regex cannot match at p.
 * A non-ASCII character where whitespace may be (`\s` has some) passes.
 * `skip`: characters at p known to be name characters (a keyword found there).
 * The last answer is kept: the next keyword in the same name (`token` then
 * `secret` in `tokenSecret`, or the same keyword for the next rule) reuses it.
 */
export function assignmentFollows(s: string, p: number, skip = 0): boolean {
  if (p < glueEnd && p >= glueFrom && s === glueText) return glueOk && glueEnd - p < ASSIGNMENT_NAME_MAX;
  const n = s.length;
  const lim = p + ASSIGNMENT_NAME_MAX < n ? p + ASSIGNMENT_NAME_MAX : n;
  let j = p + skip;
  let c = 0;
  for (; j < lim; j++) {
    c = s.charCodeAt(j);
    if (c >= 128 || NAME_CHAR[c] === 0) break;
  }
  if (j >= lim) return false;
  const end = j;
  let ok = false;
  if (c === 92 /* \ */) c = ++j < n ? s.charCodeAt(j) : 0;
  if (c === 34 || c === 39) c = ++j < n ? s.charCodeAt(j) : 0;
  for (let k = 0; k <= 3; k++) {
    if (c === 58 /* : */ || c === 61 /* = */ || c >= 128) {
      ok = true;
      break;
    }
    if (k === 3 || !(c === 32 || (c >= 9 && c <= 13))) break;
    c = ++j < n ? s.charCodeAt(j) : 0;
  }
  glueText = s;
  glueFrom = p;
  glueEnd = end;
  glueOk = ok;
  return ok;
}

/** Every keyword of the rule is made of name characters `[A-Za-z0-9_.-]`. */
function keywordsAreNames(rule: CompiledRule): boolean {
  for (const w of rule.keywords) {
    for (let i = 0; i < w.length; i++) {
      const c = w.charCodeAt(i);
      if (c >= 128 || NAME_CHAR[c] !== 1) return false;
    }
  }
  return true;
}

/** Per rule index: name characters every keyword of an `assignment` rule starts with (its shortest keyword's length). */
const assignmentSkips: number[] = [];

function assignmentSkip(rule: CompiledRule): number {
  let k = assignmentSkips[rule.index];
  if (k === undefined) {
    k = keywordsAreNames(rule) ? Math.min(...rule.keywords.map((w) => w.length)) : 0;
    assignmentSkips[rule.index] = k;
  }
  return k;
}

// Scan results, reused between calls (the engine is synchronous).
let hitMark = new Uint8Array(0);
const hitList: number[] = [];
const entropyStarts: number[] = [];
const entropyEnds: number[] = [];

/**
 * Start positions of keyword occurrences, per anchored rule (valid while hitMark is set);
 * for `assignment` rules, only the keywords followed by the glue (assignmentFollows).
 */
let anchorPos: number[][] = [];
/** Per rule: 0 not anchored, 1 anchored, 2 anchored `assignment` rule. */
let anchoredRule = new Uint8Array(0);

/** A keyword occurred in the last scan, kept or not (see redactStringStats). */
let keywordSeen = false;

function recordHits(s: string, o: number[], i: number): void {
  keywordSeen = true;
  for (let k = 0; k < o.length; k++) {
    const code = o[k]!;
    const r = code >>> 8;
    const kind = anchoredRule[r]!;
    // an assignment rule's keyword without its glue is no hit (its regex cannot match there)
    if (kind === 2 && !assignmentFollows(s, i + 1 - (code & 255), code & 255)) continue;
    if (hitMark[r] === 0) {
      hitMark[r] = 1;
      hitList.push(r);
      if (kind !== 0) anchorPos[r]!.length = 0;
    }
    if (kind !== 0) anchorPos[r]!.push(i + 1 - (code & 255));
  }
}

/**
 * One pass: fills hitList (rules whose keyword occurs; for `assignment` rules,
 * followed by its glue) and the entropy regions. Returns true when anything was found.
 */
function scan(s: string): boolean {
  const a = getAutomaton();
  if (hitMark.length !== a.rules.length) {
    hitMark = new Uint8Array(a.rules.length);
    anchoredRule = new Uint8Array(a.rules.length);
    anchorPos = a.rules.map(() => []);
    for (const r of a.rules) {
      anchoredRule[r.index] = r.regex === undefined || r.anchored !== true ? 0 : r.assignment === true && keywordsAreNames(r) ? 2 : 1;
    }
  }
  for (const r of hitList) hitMark[r] = 0;
  hitList.length = 0;
  keywordSeen = false;
  entropyStarts.length = 0;
  entropyEnds.length = 0;
  const step = a.step;
  const out = a.out;
  const n = s.length;
  let st = 0;
  let runStart = 0;
  let runLen = 0;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c < 128) {
      const e = step[(st << 7) | c]!;
      st = e >>> 2;
      if ((e & 2) !== 0) recordHits(s, out[st]!, i);
      if ((e & 1) !== 0) {
        if (runLen === 0) runStart = i;
        runLen++;
        continue;
      }
    } else {
      st = 0;
    }
    if (runLen !== 0) {
      if (runLen >= MIN_ENTROPY_RUN && runIsHighEntropy(s, runStart, i)) {
        entropyStarts.push(runStart);
        entropyEnds.push(i);
      }
      runLen = 0;
    }
  }
  if (runLen >= MIN_ENTROPY_RUN && runIsHighEntropy(s, runStart, n)) {
    entropyStarts.push(runStart);
    entropyEnds.push(n);
  }
  return hitList.length > 0 || entropyStarts.length > 0;
}

/**
 * Cheap test: can `redactString(s)` change s? False means it certainly
 * returns s unchanged; true means a keyword (of an `assignment` rule: one
 * followed by an operator) or a high-entropy run occurs.
 */
export function mayNeedRedaction(s: string): boolean {
  return scan(s);
}

/** Per-rule counters (rule id → regions found), filled when passed in. */
export type Stats = Record<string, number>;

function bump(stats: Stats | undefined, id: string, by = 1): void {
  if (stats !== undefined) stats[id] = (stats[id] ?? 0) + by;
}

/** Secret of a match: the first non-empty capture group, else the match. */
function firstGroup(m: RegExpExecArray): string {
  for (let g = 1; g < m.length; g++) {
    const v = m[g];
    if (v !== undefined && v !== '') return v;
  }
  return m[0];
}

/** Start positions of a rule's keywords in s (case-insensitive); used when no scan ran. */
function keywordStarts(rule: CompiledRule, s: string): number[] {
  const lower = s.toLowerCase().length === s.length ? s.toLowerCase() : s.replace(/[A-Z]/g, (c) => c.toLowerCase());
  const out: number[] = [];
  for (const kw of rule.keywords) {
    for (let at = lower.indexOf(kw); at !== -1; at = lower.indexOf(kw, at + 1)) out.push(at);
  }
  return out;
}

function isSorted(xs: number[]): boolean {
  for (let k = 1; k < xs.length; k++) if (xs[k - 1]! > xs[k]!) return false;
  return true;
}

/** Secrets one rule finds in s, after its entropy and allowlist checks. */
export function ruleSecrets(rule: CompiledRule, s: string, anchors?: number[]): string[] {
  const raw: string[] = [];
  if (rule.find !== undefined) {
    raw.push(...rule.find(s));
  } else if (rule.sticky !== null) {
    const re = rule.sticky;
    const found = anchors ?? keywordStarts(rule, s);
    const starts = isSorted(found) ? found : found.slice().sort((x, y) => x - y);
    // anchors from the scan are already filtered (recordHits)
    const skip = rule.assignment === true ? assignmentSkip(rule) : 0;
    const glue = rule.assignment === true && (anchors === undefined || skip === 0);
    let doneUpTo = -1;
    for (const p of starts) {
      if (p < doneUpTo) continue;
      if (glue && !assignmentFollows(s, p, skip)) continue;
      re.lastIndex = p;
      const m = re.exec(s);
      if (m === null || m[0].length === 0) continue;
      doneUpTo = p + m[0].length;
      if (rule.validateMatch !== undefined && !rule.validateMatch(m)) continue;
      raw.push(firstGroup(m));
    }
  } else if (rule.re !== null) {
    const re = rule.re;
    re.lastIndex = 0;
    for (let m = re.exec(s); m !== null; m = re.exec(s)) {
      if (m[0].length === 0) {
        re.lastIndex++;
        continue;
      }
      if (rule.validateMatch !== undefined && !rule.validateMatch(m)) continue;
      raw.push(firstGroup(m));
    }
  }
  const out: string[] = [];
  for (const secret of raw) {
    if (secret.length < MIN_SECRET || GLOBAL_ALLOW.test(secret)) continue;
    // the checks only drop secrets, so their order is free: the allowlist comes before the
    // entropy (most generic matches in source code are identifiers, dropped by the allowlist)
    if (rule.allowlist !== undefined && rule.allowlist.some((re) => re.test(secret))) continue;
    if (rule.entropy !== undefined && shannonEntropy(secret) <= rule.entropy) continue;
    if (rule.stopwords !== undefined) {
      const lower = secret.toLowerCase();
      if (rule.stopwords.some((w) => lower.includes(w))) continue;
    }
    if (rule.validate !== undefined && !rule.validate(secret)) continue;
    out.push(secret);
  }
  return out;
}

/**
 * Regions (start, end pairs, flattened) to redact in s, unmerged. Uses the
 * scan state left by `scan(s)`, which must have just returned true.
 */
function regionsAfterScan(s: string, stats: Stats | undefined): number[] {
  const regions: number[] = [];
  for (let k = 0; k < entropyStarts.length; k++) regions.push(entropyStarts[k]!, entropyEnds[k]!);
  bump(stats, ENTROPY_RULE_ID, entropyStarts.length);
  if (hitList.length === 0) return regions;
  const rules = getAutomaton().rules;
  const hits = hitList.slice().sort((x, y) => x - y);
  for (const ri of hits) {
    const rule = rules[ri]!;
    const secrets = ruleSecrets(rule, s, anchoredRule[ri] === 0 ? undefined : anchorPos[ri]);
    if (secrets.length === 0) continue;
    const seen = new Set<string>();
    for (const secret of secrets) {
      if (seen.has(secret)) continue;
      seen.add(secret);
      // every occurrence of a found secret is a region
      for (let at = s.indexOf(secret); at !== -1; at = s.indexOf(secret, at + 1)) {
        regions.push(at, at + secret.length);
        bump(stats, rule.id);
      }
    }
  }
  return regions;
}

/** Sort, merge overlapping or touching regions, replace each with REDACTED. */
function applyRegions(s: string, flat: number[]): string {
  const idx: number[] = [];
  for (let k = 0; k < flat.length; k += 2) idx.push(k);
  idx.sort((x, y) => flat[x]! - flat[y]! || flat[x + 1]! - flat[y + 1]!);
  let outStr = '';
  let pos = 0;
  let curStart = -1;
  let curEnd = -1;
  for (const k of idx) {
    const st = flat[k]!;
    const en = flat[k + 1]!;
    if (curStart !== -1 && st <= curEnd) {
      if (en > curEnd) curEnd = en;
      continue;
    }
    if (curStart !== -1) {
      outStr += s.slice(pos, curStart) + REDACTED;
      pos = curEnd;
    }
    curStart = st;
    curEnd = en;
  }
  if (curStart !== -1) {
    outStr += s.slice(pos, curStart) + REDACTED;
    pos = curEnd;
  }
  return outStr + s.slice(pos);
}

const MAX_PASSES = 16;

/** redactString with optional per-rule counting; no caching. */
export function redactStringStats(s: string, stats?: Stats): string {
  let cur = s;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    if (!scan(cur)) {
      // as when every keyword counted as a hit: the entropy bucket is listed (with 0)
      if (keywordSeen) bump(stats, ENTROPY_RULE_ID, 0);
      return cur;
    }
    const regions = regionsAfterScan(cur, stats);
    if (regions.length === 0) return cur;
    const next = applyRegions(cur, regions);
    if (next === cur) return cur;
    cur = next;
  }
  return cur;
}

// Per-string cache for strings that needed the expensive path: transcripts
// repeat the same text (a Write's content echoed in toolUseResult, prompts
// reused). Keyed by length, holding the last string of each length: a lookup
// is one integer map probe plus one string comparison (which fails fast on
// different strings), so no string is ever hashed.
const CACHE_MAX_ENTRIES = 4096;
let cache = new Map<number, [string, string]>();

/** Strings at least this long are looked up before scanning (duplicates skip the scan too). */
const CACHE_FIRST_MIN = 256;

/** SPEC §3.2 `redactString`: both detectors, merged regions, repeated until stable. */
export function redactString(s: string): string {
  // no rule or run can match fewer than 6 characters
  if (s.length < 6) return s;
  const big = s.length >= CACHE_FIRST_MIN;
  if (big) {
    const hit = cache.get(s.length);
    if (hit !== undefined && hit[0] === s) return hit[1];
  }
  if (!scan(s)) {
    if (big) remember(s, s);
    return s;
  }
  if (!big) {
    const hit = cache.get(s.length);
    if (hit !== undefined && hit[0] === s) return hit[1];
  }
  const regions = regionsAfterScan(s, undefined);
  let result = s;
  if (regions.length > 0) {
    const next = applyRegions(s, regions);
    result = next === s ? s : redactStringStats(next);
  }
  remember(s, result);
  return result;
}

function remember(s: string, result: string): void {
  if (cache.size >= CACHE_MAX_ENTRIES) cache = new Map();
  cache.set(s.length, [s, result]);
}

/** Forget cached results (tests, long-lived processes). */
export function clearRedactionCache(): void {
  cache = new Map();
}
