/**
 * An OpenCode session as `opencode export <id>` prints it (SPEC-2 §C.2):
 * one JSON document `{info, messages: [{info, parts}]}`. Position = message
 * count, identifier = the last message's `info.id`, offsets are message
 * indexes. One assistant message is one model call.
 */
import { emptyAnalysis, emptyTokenUsage } from '../kit/jsonl.js';
import { cleanPrompt } from '../kit/text.js';
import { str, toolLine, type TranscriptEntry } from '../kit/entries.js';
import { isObj } from '../kit/obj.js';
import type { AnalyzeFileOptions, TokenUsage, TranscriptAnalysis, TranscriptFileResult, TranscriptPositionResult } from '../types.js';
import { readTranscriptFile } from '../../trust/transcript-file.js';
import { childExportPaths, childSessionIdsOf } from './subagents.js';

type Obj = Record<string, unknown>;

export interface OpenCodeExport {
  info: Obj;
  /** The messages in order (anything in the list that is not an object is skipped). */
  messages: { info: Obj; parts: Obj[] }[];
}

/** The document, or null when `text` is not `{info, messages[]}` (a failed or foreign export). */
export function parseOpenCodeExport(text: string): OpenCodeExport | null {
  if (!text.trimStart().startsWith('{')) return null;
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isObj(doc) || !isObj(doc['info']) || !Array.isArray(doc['messages'])) return null;
  const messages: OpenCodeExport['messages'] = [];
  for (const m of doc['messages']) {
    if (!isObj(m) || !isObj(m['info'])) continue;
    messages.push({ info: m['info'], parts: Array.isArray(m['parts']) ? m['parts'].filter(isObj) : [] });
  }
  return { info: doc['info'], messages };
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);

/** What the user typed: the message's own text parts (not the ones OpenCode adds, `synthetic`), joined. */
export function userPromptOf(parts: readonly Obj[]): string {
  const texts = parts.filter((p) => p['type'] === 'text' && p['synthetic'] !== true && p['ignored'] !== true).map((p) => str(p['text']));
  return cleanPrompt(texts.join('\n\n'));
}

/** Paths a message's edit tools and patches name (absolute, as OpenCode writes them). */
export function editedPathsOf(parts: readonly Obj[]): string[] {
  const out: string[] = [];
  for (const p of parts) {
    if (p['type'] === 'tool') {
      const state = isObj(p['state']) ? p['state'] : {};
      const input = isObj(state['input']) ? state['input'] : {};
      const tool = str(p['tool']);
      if ((tool === 'write' || tool === 'edit' || tool === 'multiedit') && str(input['filePath'])) out.push(str(input['filePath']));
      if (tool === 'apply_patch') {
        const meta = isObj(state['metadata']) ? state['metadata'] : {};
        for (const f of Array.isArray(meta['files']) ? meta['files'] : []) if (isObj(f) && str(f['filePath'])) out.push(str(f['filePath']));
      }
    } else if (p['type'] === 'patch' && Array.isArray(p['files'])) {
      for (const f of p['files']) if (typeof f === 'string' && f !== '') out.push(f);
    }
  }
  return out;
}

function assistantText(parts: readonly Obj[]): string {
  return parts
    .filter((p) => p['type'] === 'text' && p['synthetic'] !== true)
    .map((p) => str(p['text']).trim())
    .filter((t) => t !== '')
    .join('\n\n');
}

/** An assistant message's model as OpenCode names it: `providerID/modelID` (the id alone without a provider). */
function assistantModel(info: Obj): string | undefined {
  const id = str(info['modelID']);
  if (id === '') return undefined;
  const provider = str(info['providerID']);
  return provider === '' ? id : `${provider}/${id}`;
}

export function analyzeOpenCodeExport(doc: OpenCodeExport, from = 0): TranscriptAnalysis {
  const last = doc.messages[doc.messages.length - 1];
  const analysis = emptyAnalysis(doc.messages.length, last ? str(last.info['id']) : '');
  const files = new Set<string>();
  const usage = emptyTokenUsage();
  for (const m of doc.messages.slice(Math.max(0, from))) {
    const role = m.info['role'];
    if (role === 'user') {
      const prompt = userPromptOf(m.parts);
      if (prompt) analysis.prompts.push(prompt);
      continue;
    }
    if (role !== 'assistant') continue;
    for (const p of editedPathsOf(m.parts)) files.add(p);
    for (const id of childSessionIdsOf(m.parts)) if (!analysis.subagentIds.includes(id)) analysis.subagentIds.push(id);
    // one model call per assistant message (its step-finish parts repeat the same counts)
    const t = isObj(m.info['tokens']) ? m.info['tokens'] : null;
    if (t) {
      const cache = isObj(t['cache']) ? t['cache'] : {};
      const counts = [num(t['input']), num(cache['write']), num(cache['read']), num(t['output'])] as const;
      if (counts.some((c) => c > 0)) {
        usage.input_tokens += counts[0];
        usage.cache_creation_tokens += counts[1];
        usage.cache_read_tokens += counts[2];
        usage.output_tokens += counts[3];
        usage.api_call_count += 1;
      }
    }
    const text = assistantText(m.parts);
    if (text) analysis.summary = text;
    const model = assistantModel(m.info);
    if (model !== undefined) analysis.model = model;
  }
  analysis.modifiedFiles = [...files];
  analysis.tokenUsage = usage;
  return analysis;
}

export function analyzeOpenCodeText(text: string, from = 0): TranscriptAnalysis {
  const doc = parseOpenCodeExport(text);
  return doc ? analyzeOpenCodeExport(doc, from) : emptyAnalysis();
}

export function analyzeOpenCodeFile(path: string, options: AnalyzeFileOptions = {}): TranscriptFileResult {
  const buf = readTranscriptFile(path);
  if (buf === null) return { analysis: emptyAnalysis(), exists: false };
  const analysis = analyzeOpenCodeText(buf.toString('utf8'), options.from ?? 0);
  const sub = childTokenUsage(path, analysis.subagentIds);
  if (sub !== undefined) analysis.tokenUsage.subagent_tokens = sub;
  return { analysis, exists: true };
}

/** Summed token usage of the staged child exports (the subagents' model calls); undefined when none is staged. */
function childTokenUsage(path: string, childIds: readonly string[]): TokenUsage | undefined {
  let sum: TokenUsage | undefined;
  for (const id of childIds) {
    for (const file of childExportPaths(path, id)) {
      const buf = readTranscriptFile(file);
      const doc = buf === null ? null : parseOpenCodeExport(buf.toString('utf8'));
      if (doc === null) continue;
      const u = analyzeOpenCodeExport(doc).tokenUsage;
      sum ??= emptyTokenUsage();
      sum.input_tokens += u.input_tokens;
      sum.cache_creation_tokens += u.cache_creation_tokens;
      sum.cache_read_tokens += u.cache_read_tokens;
      sum.output_tokens += u.output_tokens;
      sum.api_call_count += u.api_call_count;
    }
  }
  return sum;
}

export function openCodeFilePosition(path: string): TranscriptPositionResult {
  const { analysis, exists } = analyzeOpenCodeFile(path, { from: Number.MAX_SAFE_INTEGER });
  return { position: analysis.position, lastIdentifier: analysis.lastIdentifier, exists };
}

/** The session's project directory (`info.directory`). */
export function openCodeProjectRoot(text: string): string | undefined {
  const dir = parseOpenCodeExport(text)?.info['directory'];
  return typeof dir === 'string' && dir.startsWith('/') ? dir : undefined;
}

/** An export names its session `ses_…` and holds `messages`. */
export function isOpenCodeExport(text: string): boolean {
  const doc = parseOpenCodeExport(text);
  return doc !== null && str(doc.info['id']).startsWith('ses_');
}

/** `explain`'s entries from message `from` on. */
export function openCodeTranscriptEntries(text: string, from = 0): TranscriptEntry[] {
  const doc = parseOpenCodeExport(text);
  if (!doc) return [];
  const root = str(doc.info['directory']);
  const out: TranscriptEntry[] = [];
  for (const m of doc.messages.slice(Math.max(0, from))) {
    if (m.info['role'] === 'user') {
      const t = userPromptOf(m.parts);
      if (t) out.push({ kind: 'user', text: t });
      continue;
    }
    for (const p of m.parts) {
      if (p['type'] === 'text' && p['synthetic'] !== true && str(p['text']).trim()) out.push({ kind: 'assistant', text: str(p['text']).trim() });
      if (p['type'] === 'tool') {
        const state = isObj(p['state']) ? p['state'] : {};
        const input = isObj(state['input']) ? { ...state['input'] } : {};
        // OpenCode's camelCase path argument, shown as the shared renderer shows paths
        if (typeof input['filePath'] === 'string') input['file_path'] = input['filePath'];
        out.push({ kind: 'tool', text: toolLine(str(p['tool']), input, root) });
      }
    }
  }
  return out;
}
