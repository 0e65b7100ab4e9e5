/**
 * Gemini CLI's turn end on disk (SPEC-2 §B.7, §B.4). AfterAgent carries the
 * answer (`prompt_response`): a JSONL session is flushed once its last
 * `gemini` message says the same; else the size must settle (capped). A
 * legacy document is flushed once it parses (until then a settled size
 * proves nothing).
 */
import { answerProbe, linesFromEnd, readTail, type FlushProbe } from '../kit/flush.js';
import { readTranscriptFile } from '../../trust/transcript-file.js';
import { geminiContentText } from './messages.js';
import { isObj } from '../kit/obj.js';

/** The content of the last `gemini` message in a JSONL tail (a `$set.messages` list counts too); undefined: none readable. */
export function lastGeminiText(tail: string, startsAtFileStart: boolean): string | undefined {
  for (const line of linesFromEnd(tail, startsAtFileStart)) {
    if (line.indexOf('"gemini"') === -1) continue;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      continue; // a line still being written
    }
    if (!isObj(v)) continue;
    if (v['type'] === 'gemini' && typeof v['id'] === 'string') return geminiContentText(v['content']);
    const set = v['$set'];
    const list = isObj(set) && Array.isArray(set['messages']) ? set['messages'] : [];
    for (let i = list.length - 1; i >= 0; i--) {
      const m: unknown = list[i];
      if (isObj(m) && m['type'] === 'gemini') return geminiContentText(m['content']);
    }
  }
  return undefined;
}

export function geminiJsonlProbe(response: string | undefined): (path: string) => FlushProbe {
  return answerProbe(response, lastGeminiText);
}

export function geminiDocumentProbe(path: string): FlushProbe {
  const size = readTail(path, 0).size;
  if (size < 0) return { size, flushed: false };
  try {
    JSON.parse(readTranscriptFile(path)?.toString('utf8') ?? '');
    return { size, flushed: true };
  } catch {
    return { size, flushed: false, mayStabilise: false };
  }
}
