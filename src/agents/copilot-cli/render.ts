/** `entire explain`'s view of a Copilot CLI transcript (SPEC §8.9): prompts, answers, one line per tool call. */
import { toolLine, type TranscriptEntry } from '../kit/entries.js';
import { isObj } from '../kit/obj.js';
import { userMessagePrompt } from './prompts.js';
import { copilotProjectRoot } from './transcript.js';

export function copilotTranscriptEntries(text: string, _format: string, from: number): TranscriptEntry[] {
  const root = copilotProjectRoot(text) ?? '';
  const out: TranscriptEntry[] = [];
  const lines = text.split('\n');
  for (let i = Math.max(0, from); i < lines.length; i++) {
    const line = lines[i]!;
    if (line.indexOf('"user.message"') === -1 && line.indexOf('"assistant.message"') === -1) continue;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      continue;
    }
    if (!isObj(v) || !isObj(v['data'])) continue;
    const data = v['data'];
    if (v['type'] === 'user.message') {
      // a subagent's task prompt (its lines carry its `agentId`) is not the user's
      if (typeof v['agentId'] === 'string') continue;
      const t = userMessagePrompt(data);
      if (t) out.push({ kind: 'user', text: t });
    } else if (v['type'] === 'assistant.message') {
      const t = typeof data['content'] === 'string' ? data['content'].trim() : '';
      if (t) out.push({ kind: 'assistant', text: t });
      const requests = data['toolRequests'];
      if (Array.isArray(requests)) {
        for (const r of requests) {
          if (isObj(r)) out.push({ kind: 'tool', text: toolLine(typeof r['name'] === 'string' ? r['name'] : '', r['arguments'], root) });
        }
      }
    }
  }
  return out;
}
