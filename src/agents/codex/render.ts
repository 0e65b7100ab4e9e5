/**
 * A stored Codex rollout as `explain` entries (SPEC §8.9): the prompts,
 * the assistant's messages and one line per tool call, from line `from` on.
 * The `event_msg` items are the conversation when the file has them (the
 * `response_item`s repeat it, with Codex's injected context besides).
 */
import { toolLine, type TranscriptEntry } from '../kit/entries.js';
import { cleanPrompt } from '../kit/text.js';
import { applyPatchText, isTypedUserMessage, itemText, messageText, patchPaths } from './rollout.js';
import { isObj } from '../kit/obj.js';

type Obj = Record<string, unknown>;

function parse(line: string): Obj | undefined {
  if (line.length < 2) return undefined;
  try {
    const v: unknown = JSON.parse(line);
    return isObj(v) && isObj(v['payload']) ? v : undefined;
  } catch {
    return undefined;
  }
}

function toolEntry(payload: Obj): TranscriptEntry | undefined {
  if (payload['type'] !== 'custom_tool_call' && payload['type'] !== 'function_call') return undefined;
  const name = typeof payload['name'] === 'string' ? payload['name'] : 'tool';
  const patch = applyPatchText(payload);
  if (patch !== undefined) return { kind: 'tool', text: `${name} ${patchPaths(patch).join(', ')}`.trim() };
  let input: unknown = payload['input'];
  if (typeof payload['arguments'] === 'string') {
    try {
      input = JSON.parse(payload['arguments']);
    } catch {
      input = { command: payload['arguments'] };
    }
  }
  // exec_command names its command `cmd`
  if (isObj(input) && typeof input['cmd'] === 'string' && input['command'] === undefined) input = { ...input, command: input['cmd'] };
  return { kind: 'tool', text: toolLine(name, input) };
}

export function codexTranscriptEntries(text: string, from = 0): TranscriptEntry[] {
  const lines = text.split('\n');
  const records = lines.map((l, i) => ({ at: i, v: l.includes('"item_completed"') || l.includes('"response_item"') ? parse(l) : undefined }));
  const itemOf = (v: Obj | undefined): Obj | undefined => {
    const p = v?.['payload'] as Obj | undefined;
    return v?.['type'] === 'event_msg' && p?.['type'] === 'item_completed' && isObj(p['item']) ? p['item'] : undefined;
  };
  const hasItems = records.some((r) => {
    const t = itemOf(r.v)?.['type'];
    return t === 'UserMessage' || t === 'AgentMessage';
  });
  const out: TranscriptEntry[] = [];
  for (const { at, v } of records) {
    if (at < from || v === undefined) continue;
    const payload = v['payload'] as Obj;
    const item = itemOf(v);
    if (item !== undefined) {
      const t = item['type'] === 'UserMessage' ? cleanPrompt(itemText(item)) : item['type'] === 'AgentMessage' ? itemText(item).trim() : '';
      if (t !== '') out.push({ kind: item['type'] === 'UserMessage' ? 'user' : 'assistant', text: t });
      continue;
    }
    if (v['type'] !== 'response_item') continue;
    const tool = toolEntry(payload);
    if (tool !== undefined) {
      out.push(tool);
    } else if (!hasItems && payload['type'] === 'message') {
      if (payload['role'] === 'user' && isTypedUserMessage(payload)) {
        const t = cleanPrompt(messageText(payload));
        if (t !== '') out.push({ kind: 'user', text: t });
      } else if (payload['role'] === 'assistant') {
        const t = messageText(payload).trim();
        if (t !== '') out.push({ kind: 'assistant', text: t });
      }
    }
  }
  return out;
}
