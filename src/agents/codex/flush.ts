/**
 * Codex's turn end on disk (SPEC-2 §B.4): Stop carries
 * `last_assistant_message`; the rollout is flushed once its last assistant
 * message (an `AgentMessage` item, or an assistant `response_item`) says the same.
 */
import { answerProbe, linesFromEnd, type FlushProbe } from '../kit/flush.js';
import { itemText, messageText } from './rollout.js';
import { isObj } from '../kit/obj.js';

/** The last assistant message text in a rollout tail (undefined: none readable). */
export function lastCodexAnswer(tail: string, startsAtFileStart: boolean): string | undefined {
  for (const line of linesFromEnd(tail, startsAtFileStart)) {
    if (line.indexOf('"AgentMessage"') === -1 && line.indexOf('"assistant"') === -1) continue;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      continue; // a line still being written
    }
    const payload = isObj(v) ? v['payload'] : undefined;
    if (!isObj(v) || !isObj(payload)) continue;
    if (v['type'] === 'event_msg' && payload['type'] === 'item_completed') {
      const item = payload['item'];
      if (isObj(item) && item['type'] === 'AgentMessage') return itemText(item);
    } else if (v['type'] === 'response_item' && payload['type'] === 'message' && payload['role'] === 'assistant') {
      return messageText(payload);
    }
  }
  return undefined;
}

export function codexFlushProbe(response: string | undefined): (path: string) => FlushProbe {
  return answerProbe(response, lastCodexAnswer);
}
