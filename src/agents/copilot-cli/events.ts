/**
 * What one Copilot CLI `events.jsonl` record says (SPEC-2 §C.3). Records are
 * `{type, data, id, timestamp, parentId}`; the ones that matter:
 *
 * - `user.message`: a prompt (./prompts.ts);
 * - `assistant.message`: the answer text, `toolRequests[]` (`create`/`edit` name their `arguments.path`);
 * - `tool.execution_start`: `toolName` + `arguments` (as above);
 * - `tool.execution_complete`: `fileEdits[].path`, `toolTelemetry.(restrictedProperties|properties).filePaths`
 *   (a JSON string holding an array);
 * - `session.usage_record`: one model call's `usage` (tokens, `model`);
 * - `session.shutdown`: `modelMetrics`, the session's totals (tokens when no usage record was seen).
 *
 * Everything else (hook runs, turn markers, the system prompt) counts for positions only.
 */
import { emptyAnalysis, emptyTokenUsage } from '../kit/jsonl.js';
import type { TokenUsage, TranscriptAnalysis } from '../types.js';
import { userMessagePrompt } from './prompts.js';
import { isObj, type Obj } from '../kit/obj.js';

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Tools whose `arguments.path` is the file they write. */
export const EDIT_TOOLS: ReadonlySet<string> = new Set(['create', 'edit']);

/** Record types worth parsing: a line mentioning none of them is only counted. */
const NEEDLES = ['"user.message"', '"assistant.message"', '"tool.execution_', '"session.usage_record"', '"session.shutdown"'] as const;

export function mayMatter(line: string): boolean {
  for (const n of NEEDLES) if (line.indexOf(n) !== -1) return true;
  return false;
}

/** `usage`-shaped token counts (`inputTokens`, `cacheWriteTokens`, `cacheReadTokens`, `outputTokens`). */
function usageOf(u: Obj, calls: number): TokenUsage {
  return {
    input_tokens: num(u['inputTokens']),
    cache_creation_tokens: num(u['cacheWriteTokens']),
    cache_read_tokens: num(u['cacheReadTokens']),
    output_tokens: num(u['outputTokens']),
    api_call_count: calls,
  };
}

function add(a: TokenUsage, b: TokenUsage): void {
  a.input_tokens += b.input_tokens;
  a.cache_creation_tokens += b.cache_creation_tokens;
  a.cache_read_tokens += b.cache_read_tokens;
  a.output_tokens += b.output_tokens;
  a.api_call_count += b.api_call_count;
}

/** `session.shutdown.modelMetrics` `{<model>: {requests: {count}, usage: {…}}}` summed over models. */
function shutdownUsage(metrics: unknown): TokenUsage | undefined {
  if (!isObj(metrics)) return undefined;
  const total = emptyTokenUsage();
  let any = false;
  for (const m of Object.values(metrics)) {
    if (!isObj(m)) continue;
    const u = isObj(m['usage']) ? m['usage'] : m;
    const requests = m['requests'];
    const calls = isObj(requests) ? num(requests['count']) : 0;
    add(total, usageOf(u, calls));
    any = true;
  }
  return any ? total : undefined;
}

/** `filePaths` telemetry: a JSON string holding an array of paths. */
function telemetryPaths(telemetry: unknown): string[] {
  if (!isObj(telemetry)) return [];
  const out: string[] = [];
  for (const key of ['restrictedProperties', 'properties']) {
    const props = telemetry[key];
    const raw = isObj(props) ? props['filePaths'] : undefined;
    if (typeof raw !== 'string' || raw === '') continue;
    try {
      const list: unknown = JSON.parse(raw);
      if (Array.isArray(list)) for (const p of list) if (typeof p === 'string') out.push(p);
    } catch {
      /* telemetry that is not the list we know: nothing */
    }
  }
  return out;
}

function editToolPath(name: unknown, args: unknown): string | undefined {
  if (typeof name !== 'string' || !EDIT_TOOLS.has(name) || !isObj(args)) return undefined;
  const p = args['path'];
  return typeof p === 'string' && p !== '' ? p : undefined;
}

/**
 * The analysis of records fed in order (a range of the transcript).
 * `wholeSession`: the range starts at the first line, so the session's
 * shutdown totals may stand for it (a later range would count earlier turns again).
 */
export class CopilotAnalyzer {
  constructor(private readonly wholeSession: boolean) {}

  private readonly prompts: string[] = [];
  private readonly files: string[] = [];
  private readonly seen = new Set<string>();
  private readonly recorded = emptyTokenUsage();
  private recordedAny = false;
  private shutdown: TokenUsage | undefined;
  private readonly answered = emptyTokenUsage();
  private summary = '';
  private model = '';

  private edited(p: string | undefined): void {
    if (p === undefined || p === '' || this.seen.has(p)) return;
    this.seen.add(p);
    this.files.push(p);
  }

  /** One line of the transcript (unparsed lines and other types are ignored). */
  line(text: string): void {
    if (text.length < 2 || !mayMatter(text)) return;
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch {
      return; // a line still being written
    }
    if (!isObj(v) || !isObj(v['data'])) return;
    // a subagent's lines carry its `agentId`: its prompt is its task, not the user's (./subagents.ts)
    if (v['type'] === 'user.message' && typeof v['agentId'] === 'string') return;
    this.record(str(v['type']), v['data']);
  }

  record(type: string, data: Obj): void {
    switch (type) {
      case 'user.message': {
        const p = userMessagePrompt(data);
        if (p !== '') this.prompts.push(p);
        break;
      }
      case 'assistant.message': {
        const text = str(data['content']);
        if (text.trim() !== '') this.summary = text;
        const requests = data['toolRequests'];
        if (Array.isArray(requests)) for (const r of requests) if (isObj(r)) this.edited(editToolPath(r['name'], r['arguments']));
        const out = num(data['outputTokens']);
        if (out > 0) {
          this.answered.output_tokens += out;
          this.answered.api_call_count += 1;
        }
        if (this.model === '' && typeof data['model'] === 'string') this.model = data['model'];
        break;
      }
      case 'tool.execution_start':
        this.edited(editToolPath(data['toolName'], data['arguments']));
        break;
      case 'tool.execution_complete': {
        const edits = data['fileEdits'];
        if (Array.isArray(edits)) for (const e of edits) if (isObj(e) && typeof e['path'] === 'string') this.edited(e['path']);
        for (const p of telemetryPaths(data['toolTelemetry'])) this.edited(p);
        break;
      }
      case 'session.usage_record': {
        const u = data['usage'];
        if (!isObj(u)) break;
        add(this.recorded, usageOf(u, 1));
        this.recordedAny = true;
        if (typeof u['model'] === 'string' && u['model'] !== '') this.model = u['model'];
        break;
      }
      case 'session.shutdown':
        this.shutdown = shutdownUsage(data['modelMetrics']) ?? this.shutdown;
        break;
    }
  }

  /** The range's analysis, with the whole transcript's position and last identifier. */
  result(position: number, lastIdentifier: string): TranscriptAnalysis {
    const r = emptyAnalysis(position, lastIdentifier);
    r.prompts = [...this.prompts];
    r.modifiedFiles = [...this.files];
    r.summary = this.summary;
    // usage records are per call; without them the shutdown totals (whole sessions only), else the answers' output counts
    const shutdown = this.wholeSession ? this.shutdown : undefined;
    r.tokenUsage = { ...(this.recordedAny ? this.recorded : (shutdown ?? this.answered)) };
    if (this.model !== '') r.model = this.model;
    return r;
  }
}
