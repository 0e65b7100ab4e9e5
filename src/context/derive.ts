/**
 * SPEC-2 §F.4: one deterministic pass over an agent's normalized context events that keeps
 * what the layered `context.md` needs: the goal and current ask, the last working turn, the
 * newest todos, open failures, rejections, and the user's constraints and decisions. No clock,
 * locale or model; bounded state (last 3 turns, ≤ 512 pending calls, ≤ 64 failure keys).
 */
import { createHash } from 'node:crypto';
import type { ContextEvent, ContextTodo } from '../agents/types.js';
import { analyzeCommand } from './shell.js';
import { capBytes, cut, dedupKey, firstErrorLine, oneLine, wordCount } from './text.js';

const MAX_PROMPT_BYTES = 2048;
const MAX_PENDING = 512;
const MAX_FAILURE_KEYS = 64;
const KEPT_TURNS = 3;
/** Files whose edit history is kept for self-revert detection (the least recently edited go first). */
const MAX_EDITED_FILES = 256;

/** A Cognitive Cache item: lower `prio` first, then newer (`seq`). */
export interface CacheItem {
  text: string;
  prio: number;
  seq: number;
  count: number;
}

export interface TurnSummary {
  /** 1-based. */
  index: number;
  prompt: string;
  edits: string[];
  commands: number;
  lastCommand?: { key: string; ok: boolean };
  committed: boolean;
  pushed: boolean;
  rejected: string[];
  lastReply: string;
  activity: boolean;
}

export interface Failure {
  key: string;
  category: string | null;
  count: number;
  error: string;
  turn: number;
  seq: number;
  open: boolean;
  resolvedVia?: string;
}

export interface Derived {
  goal: string;
  currentAsk: string;
  turnCount: number;
  /** The newest turn in which the agent did something. */
  lastActive: TurnSummary | null;
  /** The newest turn. */
  last: TurnSummary | null;
  todos: ContextTodo[] | null;
  /** Repo-relative paths, newest first. */
  activeFiles: string[];
  failures: Failure[];
  /** Set when the conversation ends on a rejection or interrupt the agent has not acted on. */
  awaiting: { what: string; feedback: string; interrupt: boolean } | null;
  rejectedPlan: { text: string; feedback: string } | null;
  compactionNext: string;
  finalText: string;
  constraints: CacheItem[];
  decisions: CacheItem[];
  failed: CacheItem[];
  /** Anything at all from the agent (tools, text). */
  activity: boolean;
}

type ToolEvent = Extract<ContextEvent, { type: 'tool' }>;

/** What the fold keeps of a call until its result: what `result` reads, nothing more. */
export interface PendingCall {
  id: string;
  kind: ToolEvent['kind'];
  name: string;
  paths?: string[];
  command?: string;
  text?: string;
}

/**
 * The fold's whole state as plain data (SPEC-2 §F.4's incremental derivation): a fold resumed
 * from it continues exactly as the one that wrote it. Maps are entry lists in insertion order.
 * `lastActive` is the index of a kept turn when it is one (the same object), else a copy.
 */
export interface FoldState {
  seq: number;
  goal: string;
  currentAsk: string;
  turnCount: number;
  turns: TurnSummary[];
  lastActive: number | TurnSummary | null;
  todos: ContextTodo[] | null;
  files: [string, number][];
  pending: PendingCall[];
  failures: Failure[];
  awaiting: Derived['awaiting'];
  rejectedPlan: Derived['rejectedPlan'];
  compactionNext: string;
  finalText: string;
  lastAssistant: string;
  afterStop: boolean;
  /** Per file, its edits as [hash of old, hash of new]. */
  edits: [string, [string, string][]][];
  activity: boolean;
  constraints: [string, CacheItem][];
  decisions: [string, CacheItem][];
  failed: [string, CacheItem][];
}

/** Edits are compared, never shown: a digest stands for each side (the state stays small). */
function editDigest(text: string): string {
  return createHash('sha256').update(text).digest('base64').slice(0, 22);
}

function copyTurn(t: TurnSummary): TurnSummary {
  const c: TurnSummary = { index: t.index, prompt: t.prompt, edits: [...t.edits], commands: t.commands, committed: t.committed, pushed: t.pushed, rejected: [...t.rejected], lastReply: t.lastReply, activity: t.activity };
  if (t.lastCommand) c.lastCommand = { key: t.lastCommand.key, ok: t.lastCommand.ok };
  return c;
}

function copyFailure(f: Failure): Failure {
  const c: Failure = { key: f.key, category: f.category, count: f.count, error: f.error, turn: f.turn, seq: f.seq, open: f.open };
  if (f.resolvedVia !== undefined) c.resolvedVia = f.resolvedVia;
  return c;
}

function copyPending(call: PendingCall): PendingCall {
  const c: PendingCall = { id: call.id, kind: call.kind, name: call.name };
  if (call.paths) c.paths = [...call.paths];
  if (call.command !== undefined) c.command = call.command;
  if (call.text !== undefined) c.text = call.text;
  return c;
}

const copyItem = (i: CacheItem): CacheItem => ({ text: i.text, prio: i.prio, seq: i.seq, count: i.count });

const ACK_RE = /^(y|ya|yes|yeah|yep|yup|ok|okay|k|kk|sure|go|go ahead|go for it|do it|please do|proceed|continue|sounds good|looks good|lgtm|approved|yes please|ok please|please|ship it|perfect|great|good|nice|thanks|thank you|ok thanks|yes do it|ok do it|yes go ahead|ok go ahead|sure go ahead|correct|right|exactly|agreed)[\s.!,]*$/i;
const CORRECTION_START_RE = /^(no|nope|stop|wait|actually|instead|don'?t|do not)\b/i;
const CONSTRAINT_RE = /\b(don'?t|do not|never|always|must|avoid|make sure|let'?s not|prefer)\b/i;
const DECISION_RE = /\b(let'?s (go with|use|keep)|option \d+)\b/i;
const CHOICE_RE = /\b(which|prefer|or|option|approach)\b/i;
const OFFER_RE = /\b(?:would you like me to|do you want me to|shall i|should i)\s+([^?]+)\?/i;

export function isAck(text: string): boolean {
  return ACK_RE.test(text.trim());
}

/** `Implement the following plan: # Title …` → `Implement plan: Title`. */
function planPrompt(text: string): string {
  const m = /^implement the following plan:\s*#*\s*([^\n]+)/i.exec(text);
  return m ? `Implement plan: ${m[1]!.replace(/^#+\s*/, '').trim()}` : text;
}

function isCodeOrLog(sentence: string): boolean {
  return /[{}`]|=>|\$ |^\s*(at |\d+:\d+|error:|warn)/i.test(sentence) || /[;{]\s*$/.test(sentence);
}

/** Sentences of a prompt, one line each. */
function sentences(text: string): string[] {
  return text
    .split(/\n+|(?<=[.!?])\s+/)
    .map((s) => oneLine(s))
    .filter((s) => s !== '');
}

/** The last question of an assistant message (what a short reply answers). */
function trailingQuestion(text: string): string {
  const t = text.trim();
  if (!t.endsWith('?')) return '';
  const parts = t.split(/\n+|(?<=[.!:])\s+/);
  return oneLine(parts[parts.length - 1] ?? '');
}

export class ContextDeriver {
  private seq = 0;
  private goal = '';
  private currentAsk = '';
  private turnCount = 0;
  private turns: TurnSummary[] = [];
  private lastActive: TurnSummary | null = null;
  private todos: ContextTodo[] | null = null;
  private files = new Map<string, number>();
  private pending = new Map<string, PendingCall>();
  private failures = new Map<string, Failure>();
  private awaiting: Derived['awaiting'] = null;
  private rejectedPlan: Derived['rejectedPlan'] = null;
  private compactionNext = '';
  private finalText = '';
  private lastAssistant = '';
  /** The next prompt follows an interrupt or a rejection: a correction. */
  private afterStop = false;
  private edits = new Map<string, [string, string][]>();
  private activity = false;
  private cache = { constraints: new Map<string, CacheItem>(), decisions: new Map<string, CacheItem>(), failed: new Map<string, CacheItem>() };

  /** `toRepoPath` turns a path the transcript names into a repo-relative one, or null (outside the project: dropped). */
  constructor(private readonly toRepoPath: (path: string) => string | null) {}

  private add(list: 'constraints' | 'decisions' | 'failed', text: string, prio: number): void {
    const t = oneLine(text);
    if (t === '') return;
    const key = dedupKey(t);
    if (key === '') return;
    const map = this.cache[list];
    const had = map.get(key);
    const seq = ++this.seq;
    if (had) {
      had.count++;
      had.seq = seq;
      had.prio = Math.min(had.prio, prio);
      return;
    }
    // bounded: the lowest-ranked item goes (the render keeps ≤ 40 anyway)
    if (map.size >= 64) {
      let worst: [string, CacheItem] | null = null;
      for (const e of map) if (!worst || e[1].prio > worst[1].prio || (e[1].prio === worst[1].prio && e[1].seq < worst[1].seq)) worst = e;
      if (worst) map.delete(worst[0]);
    }
    map.set(key, { text: t, prio, seq, count: 1 });
  }

  private get turn(): TurnSummary {
    let t = this.turns[this.turns.length - 1];
    if (!t) {
      // activity before any prompt (a resumed or seeded thread)
      t = this.newTurn('');
    }
    return t;
  }

  private newTurn(prompt: string): TurnSummary {
    this.turnCount++;
    const t: TurnSummary = { index: this.turnCount, prompt, edits: [], commands: 0, committed: false, pushed: false, rejected: [], lastReply: '', activity: false };
    this.turns.push(t);
    if (this.turns.length > KEPT_TURNS) this.turns.shift();
    return t;
  }

  private acted(): TurnSummary {
    const t = this.turn;
    t.activity = true;
    this.activity = true;
    this.lastActive = t;
    this.awaiting = null;
    return t;
  }

  push(ev: ContextEvent): void {
    switch (ev.type) {
      case 'prompt':
        return this.prompt(ev.text);
      case 'user-note': {
        const t = oneLine(capBytes(ev.text, MAX_PROMPT_BYTES));
        if (t) this.add('constraints', `(mid-turn) ${t}`, 0);
        return;
      }
      case 'interrupt':
        this.afterStop = true;
        this.awaiting = { what: 'interrupted the agent', feedback: '', interrupt: true };
        return;
      case 'assistant': {
        const text = ev.text.trim();
        if (!text) return;
        const t = this.acted();
        t.lastReply = text;
        this.lastAssistant = text;
        this.finalText = text;
        return;
      }
      case 'tool':
        return this.tool(ev);
      case 'result':
        return this.result(ev);
      case 'compaction':
        return this.compaction(ev.text);
    }
  }

  private prompt(raw: string): void {
    const text = capBytes(raw, MAX_PROMPT_BYTES).trim();
    if (!text) return;
    const line = oneLine(text);
    const words = wordCount(line);
    const ack = isAck(line);
    const question = trailingQuestion(this.lastAssistant);
    if (question && ack) {
      const offer = OFFER_RE.exec(question);
      this.add('decisions', `User approved: ${offer ? offer[1]!.trim() : question}`, 0);
    } else if (question && !ack && words <= 6 && CHOICE_RE.test(question)) {
      this.add('decisions', `User chose "${line}" (re: ${question})`, 1);
    }
    const correction = !ack && words >= 4 && !line.includes('?') && (this.afterStop || CORRECTION_START_RE.test(line));
    if (correction) {
      this.add('constraints', `(correction) ${line}`, 0);
    } else if (!ack) {
      for (const s of sentences(text)) {
        if (s.endsWith('?') || isCodeOrLog(s)) continue;
        if (CONSTRAINT_RE.test(s)) this.add('constraints', s, 1);
      }
    }
    if (!ack) for (const s of sentences(text)) if (!s.endsWith('?') && DECISION_RE.test(s)) this.add('decisions', s, 2);
    if (!this.goal && !ack && words >= 2) this.goal = planPrompt(text);
    if (!ack && words >= 4) this.currentAsk = planPrompt(text);
    this.afterStop = false;
    this.awaiting = null;
    this.lastAssistant = '';
    this.newTurn(oneLine(planPrompt(text)));
  }

  private tool(ev: ToolEvent): void {
    const t = this.acted();
    if (this.pending.size >= MAX_PENDING) this.pending.delete(this.pending.keys().next().value!);
    this.pending.set(ev.id, copyPending(ev));
    if (ev.kind === 'edit') {
      for (const p of ev.paths ?? []) {
        const rel = this.toRepoPath(p);
        if (rel === null) continue;
        if (!t.edits.includes(rel)) t.edits.push(rel);
        this.files.delete(rel);
        this.files.set(rel, ++this.seq);
        if (ev.edit && ev.edit.old !== ev.edit.new) {
          const edit: [string, string] = [editDigest(ev.edit.old), editDigest(ev.edit.new)];
          const history = this.edits.get(rel) ?? [];
          if (history.some((e) => e[0] === edit[1] && e[1] === edit[0])) this.add('failed', `Reverted own edit to \`${rel}\``, 2);
          history.push(edit);
          if (history.length > 16) history.shift();
          this.edits.delete(rel);
          this.edits.set(rel, history);
          if (this.edits.size > MAX_EDITED_FILES) this.edits.delete(this.edits.keys().next().value!);
        }
      }
    } else if (ev.kind === 'todo' && ev.todos) {
      this.todos = ev.todos.map((x) => ({ text: oneLine(x.text), status: x.status })).filter((x) => x.text !== '');
    }
  }

  private describe(call: PendingCall | undefined): string {
    if (!call) return 'a tool call';
    if (call.kind === 'shell' && call.command) return `\`${cut(call.command, 60)}\``;
    if (call.kind === 'edit') {
      const p = (call.paths ?? []).map((x) => this.toRepoPath(x)).find((x) => x !== null);
      return p ? `${call.name} \`${p}\`` : call.name;
    }
    if (call.kind === 'plan') return 'the plan';
    return call.name;
  }

  private result(ev: Extract<ContextEvent, { type: 'result' }>): void {
    const call = this.pending.get(ev.id);
    this.pending.delete(ev.id);
    if (ev.status === 'rejected') {
      const t = this.turn;
      const action = this.describe(call);
      const feedback = oneLine(ev.text ?? '');
      t.rejected.push(action);
      this.add('failed', feedback ? `Rejected ${action}: "${feedback}"` : `Rejected ${action}`, feedback ? 0 : 2);
      if (call?.kind === 'plan') this.rejectedPlan = { text: oneLine(call.text ?? ''), feedback };
      this.afterStop = true;
      this.awaiting = { what: `rejected ${action}`, feedback, interrupt: false };
      return;
    }
    if (!call) return;
    const t = this.acted();
    if (call.kind === 'shell' && call.command) {
      // counted once it ran (a rejected command did not)
      t.commands++;
      const c = analyzeCommand(call.command);
      if (ev.status === 'ok' && c.commits) t.committed = true;
      if (ev.status === 'ok' && c.pushes) t.pushed = true;
      if (c.probe) return;
      t.lastCommand = { key: c.key, ok: ev.status === 'ok' };
      if (ev.status === 'error') {
        const had = this.failures.get(c.key);
        const error = firstErrorLine(ev.text ?? '');
        if (had) {
          had.count = had.open ? had.count + 1 : 1;
          had.open = true;
          had.error = error || had.error;
          had.turn = t.index;
          had.seq = ++this.seq;
          delete had.resolvedVia;
        } else {
          if (this.failures.size >= MAX_FAILURE_KEYS) {
            // forget the oldest resolved failure, else the oldest
            let drop: Failure | null = null;
            for (const f of this.failures.values()) if (!drop || (!f.open && drop.open) || (f.open === drop.open && f.seq < drop.seq)) drop = f;
            if (drop) this.failures.delete(drop.key);
          }
          this.failures.set(c.key, { key: c.key, category: c.category, count: 1, error, turn: t.index, seq: ++this.seq, open: true });
        }
      } else {
        for (const f of this.failures.values()) {
          if (f.open && (f.key === c.key || (f.category !== null && f.category === c.category))) {
            f.open = false;
            f.resolvedVia = c.key;
          }
        }
      }
      return;
    }
    if (ev.status !== 'ok') return;
    if (call.kind === 'question') {
      const answer = oneLine(ev.text ?? '');
      if (answer) this.add('decisions', `${oneLine(call.text ?? call.name)} \u2192 ${answer}`, 0);
    } else if (call.kind === 'plan') {
      const first = oneLine((call.text ?? '').split('\n').find((l) => l.trim() !== '')?.replace(/^#+\s*/, '') ?? '');
      this.add('decisions', first ? `Approved plan: ${first}` : 'Approved the plan', 0);
      this.rejectedPlan = null;
    }
  }

  private compaction(text: string): void {
    const lines = text.split('\n');
    let section = '';
    let next = '';
    const pendingTasks: string[] = [];
    for (const raw of lines) {
      const l = raw.trim();
      const heading = /^(?:#+\s*|\d+\.\s*)?(?:\*\*)?([A-Za-z][A-Za-z ]+?)(?:\*\*)?:?\s*$/.exec(l);
      if (heading && l.length < 60) {
        section = heading[1]!.toLowerCase();
        continue;
      }
      if (!l) continue;
      if (section.includes('next step') && !next) next = l.replace(/^[-*]\s*/, '');
      else if (section.includes('pending task') && /^[-*]\s+/.test(l)) pendingTasks.push(l.replace(/^[-*]\s*/, ''));
    }
    this.compactionNext = next || pendingTasks[0] || '';
  }

  /** The state as plain data (copies: the fold may go on). */
  snapshot(): FoldState {
    const turns = this.turns.map(copyTurn);
    const active = this.lastActive;
    const entries = (m: Map<string, CacheItem>): [string, CacheItem][] => [...m].map(([k, v]) => [k, copyItem(v)]);
    return {
      seq: this.seq,
      goal: this.goal,
      currentAsk: this.currentAsk,
      turnCount: this.turnCount,
      turns,
      lastActive: active === null ? null : this.turns.includes(active) ? active.index : copyTurn(active),
      todos: this.todos ? this.todos.map((t) => ({ text: t.text, status: t.status })) : null,
      files: [...this.files],
      pending: [...this.pending.values()].map(copyPending),
      failures: [...this.failures.values()].map(copyFailure),
      awaiting: this.awaiting ? { ...this.awaiting } : null,
      rejectedPlan: this.rejectedPlan ? { ...this.rejectedPlan } : null,
      compactionNext: this.compactionNext,
      finalText: this.finalText,
      lastAssistant: this.lastAssistant,
      afterStop: this.afterStop,
      edits: [...this.edits].map(([p, h]) => [p, h.map((e): [string, string] => [e[0], e[1]])]),
      activity: this.activity,
      constraints: entries(this.cache.constraints),
      decisions: entries(this.cache.decisions),
      failed: entries(this.cache.failed),
    };
  }

  /** A fold that goes on from `state` (validated by the caller: src/context/fold-state.ts). */
  static resume(state: FoldState, toRepoPath: (path: string) => string | null): ContextDeriver {
    const d = new ContextDeriver(toRepoPath);
    d.seq = state.seq;
    d.goal = state.goal;
    d.currentAsk = state.currentAsk;
    d.turnCount = state.turnCount;
    d.turns = state.turns.map(copyTurn);
    const la = state.lastActive;
    d.lastActive = la === null ? null : typeof la === 'number' ? (d.turns.find((t) => t.index === la) ?? null) : copyTurn(la);
    d.todos = state.todos ? state.todos.map((t) => ({ text: t.text, status: t.status })) : null;
    d.files = new Map(state.files);
    d.pending = new Map(state.pending.map((c) => [c.id, copyPending(c)]));
    d.failures = new Map(state.failures.map((f) => [f.key, copyFailure(f)]));
    d.awaiting = state.awaiting ? { ...state.awaiting } : null;
    d.rejectedPlan = state.rejectedPlan ? { ...state.rejectedPlan } : null;
    d.compactionNext = state.compactionNext;
    d.finalText = state.finalText;
    d.lastAssistant = state.lastAssistant;
    d.afterStop = state.afterStop;
    d.edits = new Map(state.edits.map(([p, h]) => [p, h.map((e): [string, string] => [e[0], e[1]])]));
    d.activity = state.activity;
    for (const list of ['constraints', 'decisions', 'failed'] as const) d.cache[list] = new Map(state[list].map(([k, v]) => [k, copyItem(v)]));
    return d;
  }

  result0(): Derived {
    const sorted = (m: Map<string, CacheItem>) => [...m.values()].sort((a, b) => a.prio - b.prio || b.seq - a.seq);
    const failures = [...this.failures.values()].sort((a, b) => b.seq - a.seq);
    return {
      goal: this.goal,
      currentAsk: this.currentAsk,
      turnCount: this.turnCount,
      lastActive: this.lastActive,
      last: this.turns[this.turns.length - 1] ?? null,
      todos: this.todos,
      activeFiles: [...this.files].sort((a, b) => b[1] - a[1]).map(([p]) => p),
      failures,
      awaiting: this.awaiting,
      rejectedPlan: this.rejectedPlan,
      compactionNext: this.compactionNext,
      finalText: this.finalText,
      constraints: sorted(this.cache.constraints),
      decisions: sorted(this.cache.decisions),
      failed: [...sorted(this.cache.failed), ...failures.filter((f) => f.count >= 2 || (f.resolvedVia === undefined && f.open)).map((f, i) => failureItem(f, i))].sort(
        (a, b) => a.prio - b.prio || b.seq - a.seq,
      ),
      activity: this.activity,
    };
  }
}

function failureItem(f: Failure, _i: number): CacheItem {
  const times = f.count >= 2 ? ` \u00d7${f.count}` : '';
  const err = f.error ? ` (${cut(f.error, 80)})` : '';
  const outcome = f.open ? 'still failing' : `passed later via \`${f.resolvedVia}\``;
  return { text: `\`${f.key}\` failed${times}${err} \u2192 ${outcome}`, prio: 1, seq: f.seq, count: 1 };
}

/** Fold a whole event stream. */
export function deriveContext(events: Iterable<ContextEvent>, toRepoPath: (path: string) => string | null): Derived {
  const d = new ContextDeriver(toRepoPath);
  for (const ev of events) d.push(ev);
  return d.result0();
}
