/**
 * Where every edits reader puts what it found (SPEC-3 §B.1): paths made repo-relative through
 * one `RepoPaths`, the bounds of `EDITS_LIMITS` applied, skipped calls counted. Calls are kept
 * in transcript order; a later result may drop a call (it failed) or replace its lines (the
 * transcript also carries the diff the tool applied, whole lines instead of strings).
 */
import { EDITS_LIMITS, type AgentEdit, type EditKind, type EditsResult, type EditsSkipped, type ReadEditsOptions } from '../edits.js';
import { RepoPaths } from './paths.js';

/** One file change as a reader saw it, before its path is checked. */
export interface RawEdit {
  toolUseId: string;
  tool: string;
  /** The path as written (absolute, or relative to `cwd`, else to the repository root). */
  path: unknown;
  cwd?: string;
  kind: EditKind;
  added: string[];
  removed: string[];
  partial?: boolean;
  /** A patch's rename source, as written. */
  movedFrom?: string;
  subagent?: string;
}

/** Where the call sits in the transcript. */
export interface EditPlace {
  turn: number;
  promptIndex: number;
  position: number;
}

export function emptySkipped(): EditsSkipped {
  return { outside: 0, malformed: 0, failed: 0, overBudget: 0 };
}

export class EditCollector {
  readonly paths: RepoPaths;
  readonly skipped: EditsSkipped = emptySkipped();
  private readonly edits: AgentEdit[] = [];
  /** Indexes in `edits` per call id (a call may edit several files). */
  private readonly byCall = new Map<string, number[]>();
  private dropped = new Set<number>();
  private totalLines = 0;
  private readonly from: number;
  private readonly subagent: string | undefined;

  constructor(opts: ReadEditsOptions) {
    this.paths = new RepoPaths(opts.repoRoot, opts.projectRoots ?? []);
    this.from = typeof opts.from === 'number' && Number.isFinite(opts.from) ? opts.from : 0;
    this.subagent = opts.subagent;
  }

  /** Before `from`: the call is not wanted (its turn still counted by the reader). */
  wanted(position: number): boolean {
    return position >= this.from;
  }

  malformed(): void {
    this.skipped.malformed++;
  }

  overBudget(): void {
    this.skipped.overBudget++;
  }

  add(raw: RawEdit, at: EditPlace): void {
    if (!this.wanted(at.position)) return;
    const path = this.paths.relative(raw.path, raw.cwd);
    if (path === undefined) {
      this.skipped.outside++;
      return;
    }
    const lines = raw.added.length + raw.removed.length;
    if (this.edits.length - this.dropped.size >= EDITS_LIMITS.maxEdits || lines > EDITS_LIMITS.maxLinesPerEdit || this.totalLines + lines > EDITS_LIMITS.maxTotalLines) {
      this.skipped.overBudget++;
      return;
    }
    this.totalLines += lines;
    const edit: AgentEdit = {
      turn: at.turn,
      promptIndex: at.promptIndex,
      position: at.position,
      toolUseId: raw.toolUseId,
      tool: raw.tool,
      path,
      kind: raw.kind,
      added: raw.added,
      removed: raw.removed,
    };
    if (raw.partial) edit.partial = true;
    if (raw.movedFrom !== undefined) {
      const from = this.paths.relative(raw.movedFrom, raw.cwd);
      if (from !== undefined) edit.movedFrom = from;
    }
    const sub = raw.subagent ?? this.subagent;
    if (sub !== undefined && sub !== '') edit.subagent = sub;
    const i = this.edits.push(edit) - 1;
    if (raw.toolUseId !== '') {
      const list = this.byCall.get(raw.toolUseId);
      if (list) list.push(i);
      else this.byCall.set(raw.toolUseId, [i]);
    }
  }

  /** Whether a call id has edits kept so far. */
  has(toolUseId: string): boolean {
    return toolUseId !== '' && (this.byCall.get(toolUseId)?.some((i) => !this.dropped.has(i)) ?? false);
  }

  /** The call's result says it failed or was rejected: its edits go. */
  fail(toolUseId: string): void {
    const list = toolUseId === '' ? undefined : this.byCall.get(toolUseId);
    if (!list) return;
    for (const i of list) {
      if (this.dropped.has(i)) continue;
      this.dropped.add(i);
      this.totalLines -= this.edits[i]!.added.length + this.edits[i]!.removed.length;
      this.skipped.failed++;
    }
  }

  /**
   * The call's result carries the diff it applied to `rawPath` (whole lines): they replace the
   * call's lines for that file. A call with one edit takes it whatever the path's spelling.
   */
  applied(toolUseId: string, rawPath: unknown, cwd: string | undefined, added: string[], removed: string[]): void {
    const list = (toolUseId === '' ? undefined : this.byCall.get(toolUseId))?.filter((i) => !this.dropped.has(i));
    if (!list || list.length === 0) return;
    const path = this.paths.relative(rawPath, cwd);
    const i = list.length === 1 ? list[0]! : list.find((j) => this.edits[j]!.path === path);
    if (i === undefined) return;
    const e = this.edits[i]!;
    const delta = added.length + removed.length - (e.added.length + e.removed.length);
    if (added.length + removed.length > EDITS_LIMITS.maxLinesPerEdit || this.totalLines + delta > EDITS_LIMITS.maxTotalLines) return;
    this.totalLines += delta;
    e.added = added;
    e.removed = removed;
    delete e.partial;
  }

  result(): EditsResult {
    return { edits: this.edits.filter((_, i) => !this.dropped.has(i)), skipped: this.skipped };
  }
}

/** The transcript as text, cut at `maxBytes` (at a line end when one is near): the bound on what a read holds. */
export function transcriptText(transcript: Buffer | string, opts: ReadEditsOptions, collector: EditCollector): string {
  const max = typeof opts.maxBytes === 'number' && opts.maxBytes > 0 ? Math.min(opts.maxBytes, EDITS_LIMITS.maxTranscriptBytes) : EDITS_LIMITS.maxTranscriptBytes;
  if (typeof transcript === 'string') {
    if (transcript.length <= max) return transcript;
    collector.overBudget();
    const cut = transcript.lastIndexOf('\n', max);
    return transcript.slice(0, cut > 0 ? cut + 1 : max);
  }
  if (transcript.length <= max) return transcript.toString('utf8');
  collector.overBudget();
  const cut = transcript.lastIndexOf(10, max);
  return transcript.toString('utf8', 0, cut > 0 ? cut + 1 : max);
}
