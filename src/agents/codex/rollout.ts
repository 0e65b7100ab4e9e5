/**
 * What a Codex rollout says (SPEC-2 §C.1). A rollout is append-only JSONL,
 * one `{timestamp, ordinal, type, payload}` per line:
 *
 * - position = lines; identifier = the last `ordinal`;
 * - prompts = `event_msg` `item_completed` `UserMessage` texts; a file with
 *   none falls back to user `response_item` messages whose
 *   `content_item_kinds` is exactly `["user.text"]` (never the
 *   `<environment_context>` or developer items Codex injects);
 * - edit paths = `FileChange.changes` keys (absolute) and `move_path`; a tool
 *   call with no FileChange falls back to its apply_patch headers, relative
 *   to the latest `turn_context.cwd`;
 * - tokens = the change of `token_count.info.total_token_usage` (cumulative,
 *   also across resumes) from the last snapshot before the range to the last
 *   one in it; calls = `token_usage_record` lines.
 *
 * A range needs the snapshot before it, so a file is always read whole, in
 * line windows (SPEC-2 §A.6); lines are parsed only when a substring says
 * they can matter.
 */
import { cleanPrompt } from '../kit/text.js';
import { emptyAnalysis } from '../kit/jsonl.js';
import type { TokenUsage, TranscriptAnalysis } from '../types.js';
import { isObj, type Obj } from '../kit/obj.js';

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

interface Totals {
  input: number;
  cached: number;
  cacheWrite: number;
  output: number;
}

function totalsOf(u: unknown): Totals | undefined {
  if (!isObj(u)) return undefined;
  return { input: num(u['input_tokens']), cached: num(u['cached_input_tokens']), cacheWrite: num(u['cache_write_input_tokens']), output: num(u['output_tokens']) };
}

/** Texts of a `UserMessage` / `AgentMessage` item (`text` or `Text` parts). */
export function itemText(item: Obj): string {
  const content = item['content'];
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((p): p is Obj => isObj(p) && typeof p['text'] === 'string')
    .map((p) => p['text'] as string)
    .join('\n\n');
}

/** Texts of a `response_item` message's content (`input_text` / `output_text`). */
export function messageText(payload: Obj): string {
  const content = payload['content'];
  if (!Array.isArray(content)) return '';
  return content
    .filter((p): p is Obj => isObj(p) && (p['type'] === 'input_text' || p['type'] === 'output_text' || p['type'] === 'text') && typeof p['text'] === 'string')
    .map((p) => p['text'] as string)
    .join('\n\n');
}

/** A user `response_item` the user typed: `content_item_kinds` exactly `["user.text"]`. */
export function isTypedUserMessage(payload: Obj): boolean {
  if (payload['type'] !== 'message' || payload['role'] !== 'user') return false;
  const meta = payload['internal_chat_message_metadata_passthrough'];
  const kinds = isObj(meta) ? meta['content_item_kinds'] : undefined;
  return Array.isArray(kinds) && kinds.length === 1 && kinds[0] === 'user.text';
}

const PATCH_HEADER_RE = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$/gm;

/** The files an apply_patch text names (as written: usually relative). */
export function patchPaths(patch: string): string[] {
  const out: string[] = [];
  for (const m of patch.matchAll(PATCH_HEADER_RE)) {
    const p = m[1]!.trim();
    if (p !== '') out.push(p);
  }
  return out;
}

/** The patch text of an apply_patch tool call (`custom_tool_call` input, or `function_call` arguments). */
export function applyPatchText(payload: Obj): string | undefined {
  if (payload['name'] !== 'apply_patch') return undefined;
  if (payload['type'] === 'custom_tool_call') return str(payload['input']) || undefined;
  if (payload['type'] !== 'function_call') return undefined;
  const args = str(payload['arguments']);
  try {
    const v: unknown = JSON.parse(args);
    if (isObj(v)) for (const k of ['input', 'patch', 'command']) if (typeof v[k] === 'string') return v[k];
  } catch {
    /* the arguments are the patch itself */
  }
  return args || undefined;
}

function joinPath(cwd: string, p: string): string {
  if (p.startsWith('/') || cwd === '') return p;
  return `${cwd.replace(/\/+$/, '')}/${p.replace(/^\.\//, '')}`;
}

interface EditRecord {
  callId: string;
  paths: string[];
  fromFileChange: boolean;
}

/** `"ordinal":N` near a line's start (every rollout line has one). */
export const ORDINAL_RE = /"ordinal":\s*(\d+)/;

const BEFORE_RANGE_NEEDLES = ['"turn_context"', '"token_count"', '"UserMessage"'];

/** The lines that can matter to the analysis (a substring test before any parse). */
const NEEDLES = ['"item_completed"', '"token_count"', '"token_usage_record"', '"turn_context"', '"response_item"'];

/**
 * The analysis fed line by line, in order, with the range start known up
 * front (lines before it still count: the token baseline, the cwd, whether
 * the file has UserMessage items at all).
 */
export class RolloutReader {
  private line = 0;
  private lastOrdinal = '';
  private cwd = '';
  private hasUserItems = false;
  private readonly itemPrompts: string[] = [];
  private readonly typedPrompts: string[] = [];
  private baseline: Totals | undefined;
  private last: Totals | undefined;
  private calls = 0;
  private readonly edits: EditRecord[] = [];
  private summary = '';
  private fallbackSummary = '';
  /** `turn_context.model`: the model in effect, from the last turn context at or before the range's end. */
  private model = '';

  constructor(private readonly from: number) {}

  /** One line (without its `\n`). */
  feed(text: string): void {
    const at = this.line++;
    if (text.length < 2) return;
    const inRange = at >= this.from;
    const ordinal = ORDINAL_RE.exec(text.slice(0, 160))?.[1];
    if (ordinal !== undefined) this.lastOrdinal = ordinal;
    if (!NEEDLES.some((n) => text.includes(n))) return;
    // before the range only the cwd, the token baseline and whether UserMessage items exist matter
    if (!inRange && !BEFORE_RANGE_NEEDLES.some((n) => text.includes(n))) return;
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch {
      return; // a malformed or partly written line counts for position only
    }
    if (!isObj(v)) return;
    const payload = v['payload'];
    if (!isObj(payload)) return;
    switch (v['type']) {
      case 'turn_context':
        if (typeof payload['cwd'] === 'string') this.cwd = payload['cwd'];
        if (typeof payload['model'] === 'string' && payload['model'] !== '') this.model = payload['model'];
        return;
      case 'token_usage_record':
        if (inRange) this.calls++;
        return;
      case 'event_msg':
        this.eventMsg(payload, inRange);
        return;
      case 'response_item':
        if (inRange) this.responseItem(payload);
        return;
    }
  }

  /** A line too long to parse: it only counts. */
  skip(): void {
    this.line++;
  }

  private eventMsg(payload: Obj, inRange: boolean): void {
    if (payload['type'] === 'token_count') {
      const info = payload['info'];
      const totals = isObj(info) ? totalsOf(info['total_token_usage']) : undefined;
      if (totals === undefined) return;
      if (inRange) this.last = totals;
      else this.baseline = totals;
      return;
    }
    if (payload['type'] !== 'item_completed') return;
    const item = payload['item'];
    if (!isObj(item)) return;
    if (item['type'] === 'UserMessage') {
      this.hasUserItems = true;
      const p = cleanPrompt(itemText(item));
      if (inRange && p !== '') this.itemPrompts.push(p);
    } else if (!inRange) {
      return;
    } else if (item['type'] === 'AgentMessage') {
      const t = itemText(item);
      if (t.trim() !== '') this.summary = t;
    } else if (item['type'] === 'FileChange') {
      const changes = item['changes'];
      if (!isObj(changes)) return;
      const paths: string[] = [];
      for (const [p, change] of Object.entries(changes)) {
        paths.push(joinPath(this.cwd, p));
        const moved = isObj(change) ? change['move_path'] : undefined;
        if (typeof moved === 'string' && moved !== '') paths.push(joinPath(this.cwd, moved));
      }
      this.edits.push({ callId: str(item['id']), paths, fromFileChange: true });
    }
  }

  private responseItem(payload: Obj): void {
    if (payload['type'] === 'message') {
      if (payload['role'] === 'user' && isTypedUserMessage(payload)) {
        const p = cleanPrompt(messageText(payload));
        if (p !== '') this.typedPrompts.push(p);
      } else if (payload['role'] === 'assistant') {
        // AgentMessage items win; an assistant message is the summary only in a file without them
        const t = messageText(payload);
        if (t.trim() !== '') this.fallbackSummary = t;
      }
      return;
    }
    const patch = applyPatchText(payload);
    if (patch !== undefined) this.edits.push({ callId: str(payload['call_id']), paths: patchPaths(patch).map((p) => joinPath(this.cwd, p)), fromFileChange: false });
  }

  /** The analysis of the range, with the whole file's position and last ordinal. */
  result(): TranscriptAnalysis {
    const r = emptyAnalysis(this.line, this.lastOrdinal);
    r.prompts = this.hasUserItems ? [...this.itemPrompts] : [...this.typedPrompts];
    const changed = new Set(this.edits.filter((e) => e.fromFileChange && e.callId !== '').map((e) => e.callId));
    const seen = new Set<string>();
    for (const e of this.edits) {
      if (!e.fromFileChange && e.callId !== '' && changed.has(e.callId)) continue;
      for (const p of e.paths) {
        if (seen.has(p)) continue;
        seen.add(p);
        r.modifiedFiles.push(p);
      }
    }
    r.tokenUsage = this.tokens();
    r.summary = this.summary || this.fallbackSummary;
    if (this.model !== '') r.model = this.model;
    return r;
  }

  private tokens(): TokenUsage {
    const t: TokenUsage = { input_tokens: 0, cache_creation_tokens: 0, cache_read_tokens: 0, output_tokens: 0, api_call_count: this.calls };
    if (this.last === undefined) return t;
    const b = this.baseline ?? { input: 0, cached: 0, cacheWrite: 0, output: 0 };
    // a counter that went backwards (a reset) counts from zero
    const d = (k: keyof Totals) => (this.last![k] >= b[k] ? this.last![k] - b[k] : this.last![k]);
    const cached = d('cached');
    t.input_tokens = Math.max(0, d('input') - cached);
    t.cache_read_tokens = cached;
    t.cache_creation_tokens = d('cacheWrite');
    t.output_tokens = d('output');
    return t;
  }
}

/** Analyse rollout text from line `from` (0-based). */
export function analyzeRolloutText(text: string, from = 0): TranscriptAnalysis {
  const reader = new RolloutReader(Math.max(0, Math.floor(from)));
  let pos = 0;
  while (pos < text.length) {
    let nl = text.indexOf('\n', pos);
    if (nl === -1) nl = text.length;
    reader.feed(text.slice(pos, nl));
    pos = nl + 1;
  }
  return reader.result();
}
