/**
 * Line provenance's classes (SPEC-3 §B.2), pure: the caller gathers plain data (blame's lines,
 * each commit's links, the agent edits of each linked session, the commit's own hunks) and this
 * module says, per line, `ai` | `mixed` | `human` | `unknown` | `uncommitted`, with evidence.
 * No I/O, no git, no transcript parsing: `blame`, `why`, `stats` and `trace export` share it.
 *
 * Decision order for a committed line of commit C (the first that applies wins):
 * 1. C has no link at all → `human` (`no-agent-link`).
 * 2. its text equals a surviving agent-added line of a readable linked session (edits to the
 *    file, in turns the checkpoint covers) → `ai`, naming the latest edit that added that text;
 * 3. it contains a surviving fragment of a `partial` edit (string replacements) → `ai`;
 * 4. a foreign record with line data puts it in an AI (or mixed) range → `ai` / `mixed`;
 * 5. aligned at the same position of its hunk with an agent line within the distance bound
 *    (`matchHunk`) → `mixed`, naming the agent's line;
 * 6. a linked session's transcript is missing, unreadable or over budget, or a foreign link has
 *    no line data (unless it names the agent of a readable linked session) → `unknown`, naming which;
 * 7. otherwise `human` (`no-agent-edit`).
 *
 * "Surviving": the session's covered edits of the file are replayed in order — a `write` or
 * `delete` drops every earlier agent line of the file, and an edit's removed lines drop the
 * latest earlier agent line of the same text, its added lines taking their place — so a later
 * edit overrides an earlier one of the same line, a line the agent itself took out again is no
 * longer the agent's, and a write followed by patches stays one run in file order (the hunk
 * position `mixed` compares). An edit whose removed lines match nothing starts a run of its own.
 *
 * Types here are structural (the layer rule keeps provenance/, a model-layer directory, from
 * importing agents/): `EditRecord` is the subset of `AgentEdit` this module reads.
 */
import { containsFragment, MIXED_MAX_DISTANCE, matchHunk, normalizeLine } from './match.js';

/** blame's zero commit: the line is not committed. */
export const ZERO_COMMIT = '0000000000000000000000000000000000000000';
/** Quoted text in evidence is cut to this many characters. */
export const EVIDENCE_QUOTE_CHARS = 80;

export type LineClass = 'ai' | 'mixed' | 'human' | 'unknown' | 'uncommitted';

/** The subset of `AgentEdit` (src/agents/edits.ts) read here: an `AgentEdit` is one. */
export interface EditRecord {
  turn: number;
  promptIndex: number;
  position: number;
  toolUseId: string;
  tool: string;
  path: string;
  kind: 'write' | 'edit' | 'patch' | 'delete';
  added: readonly string[];
  removed: readonly string[];
  partial?: boolean;
}

/** One line of the file at the revision, as `git blame --porcelain` gives it. */
export interface BlamedLine {
  /** 1-based line number at the revision. */
  line: number;
  text: string;
  /** The commit that last changed it (40 hex); {@link ZERO_COMMIT} when not committed. */
  commit: string;
  /** 1-based line number in that commit's version of the file (blame's original line). */
  origLine: number;
  /** The file's path in that commit's version (blame's `filename`), when it differs from the classified path. */
  origPath?: string;
}

/** A run of lines a commit added to the file: `start` is the first one's 1-based line in the commit's version. */
export interface CommitHunk {
  start: number;
  lines: readonly string[];
}

export type TranscriptStatus = 'ok' | 'missing' | 'unreadable' | 'over-budget';

/**
 * The part of a session's transcript a checkpoint covers: edits at `position ≥ fromPosition`
 * and `< toPosition` (checkpoint_transcript_start and the transcript's end at commit), and in
 * `turns` when given. Absent bounds do not restrict.
 */
export interface Coverage {
  fromPosition?: number;
  toPosition?: number;
  turns?: readonly number[];
}

export interface LinkedSession {
  sessionId: string;
  agent?: string;
  model?: string;
  transcript: TranscriptStatus;
  covers?: Coverage;
  /** The session's edits (any path: only the classified file's are read), in transcript order. */
  edits: readonly EditRecord[];
}

export interface CheckpointLink {
  kind: 'checkpoint';
  checkpointId: string;
  sessions: readonly LinkedSession[];
}

/** A range of lines (1-based, inclusive) in the commit's version of the file. */
export interface ForeignRange {
  start: number;
  end: number;
  /** Agent Trace's range-level contributor; `ai` when absent. */
  contributor?: 'ai' | 'mixed';
  /** The record's own name for who wrote it (a git-ai `s_…::t_…` key, a conversation url). */
  label?: string;
  agent?: string;
  model?: string;
}

/**
 * Another tool's link (SPEC-3 §C.2). `ranges` present (even empty) means the record carries
 * line data for this file: lines outside every range are not AI by it. Absent: a commit-level
 * link (a trailer), which never makes a line `ai`.
 */
export interface ForeignLink {
  kind: 'foreign';
  /** `agent-trace`, `git-ai`, or the trailer's key (`Agent-Logs-Url`, `Co-authored-by`…). */
  source: string;
  /** What it names: the trailer's value, the tool's name; untrusted, printed escaped by the caller. */
  label: string;
  ranges?: readonly ForeignRange[];
  agent?: string;
  model?: string;
}

export type CommitLink = CheckpointLink | ForeignLink;

export interface CommitInfo {
  links: readonly CommitLink[];
  /** The commit's added lines of the file, in order (its diff against its first parent). */
  hunks?: readonly CommitHunk[];
}

/** A live (uncommitted) session whose edits may hold a work-tree line. */
export interface LiveSession {
  sessionId: string;
  agent?: string;
  model?: string;
  covers?: Coverage;
  edits: readonly EditRecord[];
}

export interface ClassifyInput {
  /** The classified file's repo-relative path (edits are filtered to it). */
  path: string;
  lines: readonly BlamedLine[];
  /** Per commit (40 hex) of `lines`; a commit missing here has no link. */
  commits: ReadonlyMap<string, CommitInfo> | Readonly<Record<string, CommitInfo>>;
  live?: readonly LiveSession[];
}

export type EvidenceKind =
  | 'agent-edit'
  | 'agent-fragment'
  | 'agent-line-edited'
  | 'foreign-range'
  | 'no-agent-link'
  | 'no-agent-edit'
  | 'transcript-missing'
  | 'transcript-unreadable'
  | 'transcript-over-budget'
  | 'foreign-no-lines'
  | 'uncommitted'
  | 'live-edit';

export interface Evidence {
  kind: EvidenceKind;
  /** One short sentence; holds untrusted text (tool names, urls, quoted lines): escape when printing. */
  text: string;
}

export interface ClassifiedLine {
  line: number;
  text: string;
  commit: string;
  class: LineClass;
  evidence: Evidence;
  agent?: string;
  model?: string;
  checkpoint_id?: string;
  session_id?: string;
  turn?: number;
  prompt_index?: number;
  tool?: string;
  tool_use_id?: string;
  /** `mixed`: the agent's line it came from, and their normalized distance. */
  agent_text?: string;
  distance?: number;
  /** The foreign link that decided it (`foreign-range`, `foreign-no-lines`). */
  source?: string;
  uncommitted?: true;
}

export interface Summary {
  ai: number;
  mixed: number;
  human: number;
  unknown: number;
  uncommitted: number;
}

// ---------------------------------------------------------------------------------------------

/** One agent line still standing after replaying a session's edits. */
interface AgentLine {
  text: string; // normalized
  edit: EditRecord;
  /** A `partial` edit's string line: a file line contains it rather than equals it. */
  fragment: boolean;
}

function covered(e: EditRecord, c: Coverage | undefined): boolean {
  if (!c) return true;
  if (c.fromPosition !== undefined && e.position < c.fromPosition) return false;
  if (c.toPosition !== undefined && e.position >= c.toPosition) return false;
  if (c.turns && !c.turns.includes(e.turn)) return false;
  return true;
}

/**
 * Replays the covered edits of `path` in order; returns the surviving agent lines grouped by edit
 * (each group in the edit's own line order, for position alignment).
 */
function survivors(edits: readonly EditRecord[], path: string, covers: Coverage | undefined): AgentLine[][] {
  const groups: AgentLine[][] = [];
  for (const e of edits) {
    if (e.path !== path || !covered(e, covers)) continue;
    if (e.kind === 'write' || e.kind === 'delete') groups.length = 0;
    if (e.kind === 'delete') continue;
    const added = e.added.map((a) => ({ text: normalizeLine(a), edit: e, fragment: e.partial === true }));
    // where the first removed line stood: a whole-line edit's added lines take its place there,
    // so the agent's lines keep the file's order (the hunk position `mixed` needs)
    let at: { group: AgentLine[]; index: number } | undefined;
    if (e.kind !== 'write') {
      for (const r of e.removed) {
        const t = e.partial ? r.trim() : normalizeLine(r);
        if (t === '') continue;
        const gone = dropLatest(groups, (l) => (l.fragment || e.partial ? l.text.trim() === t : l.text === t));
        if (!gone) continue;
        if (!at) at = gone;
        else if (gone.group === at.group && gone.index < at.index) at.index--;
      }
    }
    if (at && !e.partial && !at.group[0]?.fragment) at.group.splice(at.index, 0, ...added);
    else groups.push(added);
  }
  return groups.filter((g) => g.length > 0);
}

/** Removes the latest agent line that `hit` accepts; returns where it stood. */
function dropLatest(groups: AgentLine[][], hit: (l: AgentLine) => boolean): { group: AgentLine[]; index: number } | undefined {
  for (let g = groups.length - 1; g >= 0; g--) {
    const group = groups[g]!;
    for (let i = group.length - 1; i >= 0; i--) {
      if (hit(group[i]!)) {
        group.splice(i, 1);
        return { group, index: i };
      }
    }
  }
  return undefined;
}

/** Per readable session of a commit: its surviving lines, indexed for lookups. */
interface SessionIndex {
  checkpointId: string;
  session: LinkedSession | LiveSession;
  groups: AgentLine[][];
  /** normalized whole-line text → the latest surviving line of that text. */
  exact: Map<string, AgentLine>;
  /** fragments, latest first. */
  fragments: AgentLine[];
}

function indexSession(checkpointId: string, session: LinkedSession | LiveSession, path: string): SessionIndex {
  const groups = survivors(session.edits, path, session.covers);
  const exact = new Map<string, AgentLine>();
  const fragments: AgentLine[] = [];
  for (const g of groups) {
    for (const l of g) {
      if (l.fragment) fragments.unshift(l);
      else exact.set(l.text, l); // later groups overwrite: the latest edit wins
    }
  }
  return { checkpointId, session, groups, exact, fragments };
}

/** Untrusted text in evidence (tool names, ids, urls, labels) is cut to `max` code points. */
function cut(s: string, max = EVIDENCE_QUOTE_CHARS): string {
  const cps = Array.from(s);
  return cps.length > max ? `${cps.slice(0, max).join('')}…` : s;
}

function quote(s: string): string {
  return JSON.stringify(cut(s));
}

function callName(e: EditRecord): string {
  return `${cut(e.tool)} ${cut(e.toolUseId)}`.trim();
}

function fromEdit(idx: SessionIndex, e: EditRecord): Partial<ClassifiedLine> {
  const out: Partial<ClassifiedLine> = {
    session_id: idx.session.sessionId,
    turn: e.turn,
    prompt_index: e.promptIndex,
    tool: e.tool,
    tool_use_id: e.toolUseId,
  };
  if (idx.checkpointId) out.checkpoint_id = idx.checkpointId;
  if (idx.session.agent) out.agent = idx.session.agent;
  if (idx.session.model) out.model = idx.session.model;
  return out;
}

/** Whole-line then fragment match of one line against the sessions, in link order. */
function agentMatch(text: string, sessions: readonly SessionIndex[]): { idx: SessionIndex; line: AgentLine } | undefined {
  const t = normalizeLine(text);
  for (const idx of sessions) {
    const l = idx.exact.get(t);
    if (l) return { idx, line: l };
  }
  for (const idx of sessions) {
    const l = idx.fragments.find((f) => containsFragment(t, f.text));
    if (l) return { idx, line: l };
  }
  return undefined;
}

interface MixedPair {
  idx: SessionIndex;
  line: AgentLine;
  distance: number;
}

/**
 * Each hunk line's `mixed` pairing: the hunk aligned (matchHunk) with each surviving whole-line
 * group of each session; the smallest distance wins, ties to the later edit.
 */
function mixedPairs(hunk: readonly string[], sessions: readonly SessionIndex[]): Array<MixedPair | undefined> {
  const out: Array<MixedPair | undefined> = hunk.map(() => undefined);
  for (const idx of sessions) {
    for (const g of idx.groups) {
      if (g[0]?.fragment) continue;
      const m = matchHunk(
        hunk,
        g.map((l) => l.text),
        MIXED_MAX_DISTANCE,
      );
      m.forEach((r, i) => {
        if (r.kind !== 'mixed') return;
        const cur = out[i];
        if (!cur || r.distance <= cur.distance) out[i] = { idx, line: g[r.agentIndex]!, distance: r.distance };
      });
    }
  }
  return out;
}

/** The commit's hunks, or, without them, the runs of consecutive original lines blame gives it. */
function hunksOf(commit: string, info: CommitInfo, lines: readonly BlamedLine[]): CommitHunk[] {
  if (info.hunks && info.hunks.length > 0) return [...info.hunks];
  const mine = lines.filter((l) => l.commit === commit).sort((a, b) => a.origLine - b.origLine);
  const out: Array<{ start: number; lines: string[] }> = [];
  for (const l of mine) {
    const last = out[out.length - 1];
    if (last && l.origLine === last.start + last.lines.length) last.lines.push(l.text);
    else out.push({ start: l.origLine, lines: [l.text] });
  }
  return out;
}

function lookup(commits: ClassifyInput['commits'], sha: string): CommitInfo | undefined {
  if (commits instanceof Map) return commits.get(sha);
  const rec = commits as Readonly<Record<string, CommitInfo>>;
  return Object.prototype.hasOwnProperty.call(rec, sha) ? rec[sha] : undefined;
}

const short = (sha: string): string => sha.slice(0, 7);

function rangeText(r: ForeignRange): string {
  return r.start === r.end ? `line ${r.start}` : `lines ${r.start}-${r.end}`;
}

/** Everything about one commit needed to classify its lines, computed once. */
interface CommitContext {
  sha: string;
  /** The file's path in the commit's version. */
  path: string;
  info: CommitInfo;
  sessions: SessionIndex[];
  /** Linked sessions whose transcript is not readable, in link order. */
  unreadable: Array<{ checkpointId: string; session: LinkedSession }>;
  checkpointIds: string[];
  foreign: ForeignLink[];
  /** origLine → mixed pairing. */
  mixed: Map<number, MixedPair>;
}

function commitContext(sha: string, info: CommitInfo, input: ClassifyInput, path: string): CommitContext {
  const sessions: SessionIndex[] = [];
  const unreadable: CommitContext['unreadable'] = [];
  const checkpointIds: string[] = [];
  const foreign: ForeignLink[] = [];
  for (const link of info.links) {
    if (link.kind === 'foreign') {
      foreign.push(link);
      continue;
    }
    checkpointIds.push(link.checkpointId);
    for (const s of link.sessions) {
      if (s.transcript === 'ok') sessions.push(indexSession(link.checkpointId, s, path));
      else unreadable.push({ checkpointId: link.checkpointId, session: s });
    }
  }
  const mixed = new Map<number, MixedPair>();
  if (sessions.length > 0) {
    for (const h of hunksOf(sha, info, input.lines)) {
      mixedPairs(h.lines, sessions).forEach((p, i) => {
        if (p) mixed.set(h.start + i, p);
      });
    }
  }
  return { sha, path, info, sessions, unreadable, checkpointIds, foreign, mixed };
}

function classifyCommitted(l: BlamedLine, ctx: CommitContext): ClassifiedLine {
  const path = ctx.path;
  const base = { line: l.line, text: l.text, commit: l.commit };
  if (ctx.info.links.length === 0) {
    return { ...base, class: 'human', evidence: { kind: 'no-agent-link', text: `commit ${short(l.commit)} has no agent link` } };
  }
  const hit = agentMatch(l.text, ctx.sessions);
  if (hit) {
    const e = hit.line.edit;
    const evidence: Evidence = hit.line.fragment
      ? { kind: 'agent-fragment', text: `turn ${e.turn}: ${callName(e)} added ${quote(hit.line.text.trim())}, part of this line` }
      : { kind: 'agent-edit', text: `turn ${e.turn}: ${callName(e)} added this line` };
    return { ...base, class: 'ai', evidence, ...fromEdit(hit.idx, e) };
  }
  for (const f of ctx.foreign) {
    const r = f.ranges?.find((x) => l.origLine >= x.start && l.origLine <= x.end);
    if (!r) continue;
    const who = r.label ? ` (${cut(r.label)})` : '';
    const out: ClassifiedLine = {
      ...base,
      class: r.contributor === 'mixed' ? 'mixed' : 'ai',
      evidence: { kind: 'foreign-range', text: `${cut(f.source)} ${cut(f.label)} marks ${rangeText(r)} of ${cut(path)} as ${r.contributor ?? 'ai'}${who}` },
      source: f.source,
    };
    const agent = r.agent ?? f.agent;
    const model = r.model ?? f.model;
    if (agent) out.agent = agent;
    if (model) out.model = model;
    return out;
  }
  const m = ctx.mixed.get(l.origLine);
  if (m) {
    const e = m.line.edit;
    return {
      ...base,
      class: 'mixed',
      evidence: {
        kind: 'agent-line-edited',
        text: `edited from ${quote(m.line.text)}, added in turn ${e.turn} by ${callName(e)} (distance ${m.distance.toFixed(2)})`,
      },
      ...fromEdit(m.idx, e),
      agent_text: m.line.text,
      distance: m.distance,
    };
  }
  const u = ctx.unreadable[0];
  if (u) {
    const kind =
      u.session.transcript === 'missing' ? 'transcript-missing' : u.session.transcript === 'unreadable' ? 'transcript-unreadable' : 'transcript-over-budget';
    const why = kind === 'transcript-missing' ? 'is missing' : kind === 'transcript-unreadable' ? 'is unreadable' : 'is over the read budget';
    const out: ClassifiedLine = {
      ...base,
      class: 'unknown',
      evidence: { kind, text: `checkpoint ${cut(u.checkpointId)}: session ${cut(u.session.sessionId)}'s transcript ${why}` },
      checkpoint_id: u.checkpointId,
      session_id: u.session.sessionId,
    };
    if (u.session.agent) out.agent = u.session.agent;
    if (u.session.model) out.model = u.session.model;
    return out;
  }
  // a trailer naming the agent of a readable linked session (the agent's own `Co-authored-by`) adds
  // nothing that session's edits do not already say; one naming another tool leaves the line open
  const readableAgents = new Set(ctx.sessions.map((s) => s.session.agent).filter((a) => a !== undefined));
  const bare = ctx.foreign.find((f) => f.ranges === undefined && !(f.agent !== undefined && readableAgents.has(f.agent)));
  if (bare) {
    const out: ClassifiedLine = {
      ...base,
      class: 'unknown',
      evidence: { kind: 'foreign-no-lines', text: `${cut(bare.source)}: ${cut(bare.label, 300)} links the commit, without line data` },
      source: bare.source,
    };
    if (bare.agent) out.agent = bare.agent;
    if (bare.model) out.model = bare.model;
    return out;
  }
  const names = [...ctx.checkpointIds, ...ctx.foreign.map((f) => f.source)].map((n) => cut(n)).join(', ');
  return { ...base, class: 'human', evidence: { kind: 'no-agent-edit', text: `linked (${names}) but in no agent edit of ${cut(path)}` } };
}

function classifyUncommitted(l: BlamedLine, live: readonly SessionIndex[]): ClassifiedLine {
  const base = { line: l.line, text: l.text, commit: l.commit };
  const hit = agentMatch(l.text, live);
  if (!hit) return { ...base, class: 'uncommitted', evidence: { kind: 'uncommitted', text: 'not committed yet' } };
  const e = hit.line.edit;
  return {
    ...base,
    class: 'ai',
    evidence: {
      kind: 'live-edit',
      text: `not committed yet; turn ${e.turn}: ${callName(e)} of live session ${cut(hit.idx.session.sessionId)} added ${hit.line.fragment ? 'part of ' : ''}this line`,
    },
    ...fromEdit(hit.idx, e),
    uncommitted: true,
  };
}

/** SPEC-3 §B.2: one result per blamed line, in the given order. */
export function classifyLines(input: ClassifyInput): ClassifiedLine[] {
  const contexts = new Map<string, CommitContext>();
  let live: SessionIndex[] | undefined;
  return input.lines.map((l) => {
    if (l.commit === ZERO_COMMIT) {
      live ??= (input.live ?? []).map((s) => indexSession('', s, input.path));
      return classifyUncommitted(l, live);
    }
    let ctx = contexts.get(l.commit);
    if (!ctx) {
      // a renamed file: the commit's agent edits name the path it had then
      ctx = commitContext(l.commit, lookup(input.commits, l.commit) ?? { links: [] }, input, l.origPath ?? input.path);
      contexts.set(l.commit, ctx);
    }
    return classifyCommitted(l, ctx);
  });
}

/** Class totals; they add up to the number of lines (an `ai` line with `uncommitted: true` counts as `ai`). */
export function summarize(lines: readonly Pick<ClassifiedLine, 'class'>[]): Summary {
  const s: Summary = { ai: 0, mixed: 0, human: 0, unknown: 0, uncommitted: 0 };
  for (const l of lines) s[l.class]++;
  return s;
}

/** SPEC-3 §B.5: (ai + mixed) / (ai + mixed + human), `unknown` (and `uncommitted`) apart; undefined with no such line. */
export function aiShare(s: Summary): number | undefined {
  const d = s.ai + s.mixed + s.human;
  return d === 0 ? undefined : (s.ai + s.mixed) / d;
}
