/**
 * Gemini CLI's session file since 0.61 (SPEC-2 §B.7): append-only JSONL.
 * Line 1 is the metadata `{sessionId, projectHash, startTime, lastUpdated, kind}`;
 * message records `{id, timestamp, type, content, …}` follow, and a message
 * that changes is appended again with the same `id` (a `gemini` message once
 * it has `toolCalls`); `{"$set":{…}}` patches the metadata, and its
 * `messages` replaces the whole list (first message, resume, compression);
 * `{"$rewindTo":"<id>"}` drops that message and all later ones.
 *
 * The thread we read: messages in order of first appearance, each in its
 * last version, rewinds applied; a `$set.messages` list only adds ids not
 * seen yet (a compression must not erase the history we link to commits).
 * Each message keeps the line it first appeared on: a range from offset N
 * (the agent's position unit is the line) is the messages first seen on
 * line N or later.
 */
import { countLines } from '../jsonl.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** SPEC-2 §A.6: a longer line is not parsed (it still counts for the position). */
const MAX_PARSED_LINE = 16 * 1024 * 1024;

export interface ThreadMessage {
  /** 0-based line on which this id (last) first appeared. */
  line: number;
  /** The message record, in its last version. */
  record: Obj;
}

export interface GeminiThread {
  /** Line count (SPEC §7.1 position). */
  position: number;
  /** Line 1 merged with every `$set` patch (without `messages`). */
  meta: Obj;
  messages: ThreadMessage[];
}

/** The id of the thread's last message (`""` when there is none). */
export function lastMessageId(thread: GeminiThread): string {
  const last = thread.messages[thread.messages.length - 1];
  const id = last?.record['id'];
  return typeof id === 'string' ? id : '';
}

/** Read a JSONL session file's text into its thread. Malformed lines are skipped. */
export function readGeminiThread(text: string): GeminiThread {
  const byId = new Map<string, ThreadMessage>(); // insertion order = first appearance
  const meta: Obj = {};
  const addUnseen = (list: unknown[], line: number): void => {
    for (const m of list) {
      if (isObj(m) && typeof m['id'] === 'string' && !byId.has(m['id'])) byId.set(m['id'], { line, record: m });
    }
  };
  let line = 0;
  for (let pos = 0; pos < text.length; line++) {
    let end = text.indexOf('\n', pos);
    if (end === -1) end = text.length;
    const start = pos;
    pos = end + 1;
    if (end - start < 2 || end - start > MAX_PARSED_LINE) continue;
    let v: unknown;
    try {
      v = JSON.parse(text.slice(start, end));
    } catch {
      continue; // a line still being written, or damage
    }
    if (!isObj(v)) continue;
    // the record kinds, tested in the order the CLI's own reader tests them
    const rewind = v['$rewindTo'];
    if (typeof rewind === 'string') {
      // that message and all later ones go; an unknown id empties the thread (as the CLI does)
      let found = false;
      for (const id of [...byId.keys()]) {
        if (id === rewind) found = true;
        if (found) byId.delete(id);
      }
      if (!found) byId.clear();
    } else if (typeof v['id'] === 'string') {
      const seen = byId.get(v['id']);
      if (seen) seen.record = v;
      else byId.set(v['id'], { line, record: v });
    } else if (isObj(v['$set'])) {
      const { messages, ...rest } = v['$set'];
      if (Array.isArray(messages)) addUnseen(messages, line);
      Object.assign(meta, rest);
    } else if (typeof v['sessionId'] === 'string') {
      const { messages, ...rest } = v;
      if (Array.isArray(messages)) addUnseen(messages, line);
      Object.assign(meta, rest);
    }
  }
  return { position: countLines(text), meta, messages: [...byId.values()] };
}
