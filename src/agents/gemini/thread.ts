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
 *
 * The builder takes one line at a time and keeps, per message, only what
 * `digest` makes of its record, so a hook streams a large file without
 * holding it (SPEC-2 §A.6); `explain` keeps whole records.
 */
import { isObj, type Obj } from '../kit/obj.js';

/** SPEC-2 §A.6: a longer line is not parsed (it still counts for the position). */
export const MAX_PARSED_LINE = 16 * 1024 * 1024;

export interface ThreadMessage<T> {
  id: string;
  /** 0-based line on which this id (last) first appeared. */
  line: number;
  /** What the digest made of the message's last version. */
  value: T;
}

export interface GeminiThread<T> {
  /** Line count (SPEC §7.1 position). */
  position: number;
  /** Line 1 merged with every `$set` patch (without `messages`). */
  meta: Obj;
  messages: ThreadMessage<T>[];
}

export class ThreadBuilder<T> {
  private readonly byId = new Map<string, ThreadMessage<T>>(); // insertion order = first appearance
  private readonly meta: Obj = {};
  private line = 0;

  constructor(private readonly digest: (record: Obj) => T) {}

  /** The next line, without its `\n`; null for a line too long to parse. */
  push(text: string | null): void {
    const line = this.line++;
    if (text === null || text.length < 2 || text.length > MAX_PARSED_LINE) return;
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch {
      return; // a line still being written, or damage
    }
    if (!isObj(v)) return;
    // the record kinds, tested in the order the CLI's own reader tests them
    const rewind = v['$rewindTo'];
    if (typeof rewind === 'string') {
      // that message and all later ones go; an unknown id empties the thread (as the CLI does)
      let found = false;
      for (const id of [...this.byId.keys()]) {
        if (id === rewind) found = true;
        if (found) this.byId.delete(id);
      }
      if (!found) this.byId.clear();
    } else if (typeof v['id'] === 'string') {
      const seen = this.byId.get(v['id']);
      if (seen) seen.value = this.digest(v);
      else this.byId.set(v['id'], { id: v['id'], line, value: this.digest(v) });
    } else if (isObj(v['$set'])) {
      this.patch(v['$set'], line);
    } else if (typeof v['sessionId'] === 'string') {
      this.patch(v, line);
    }
  }

  /** Metadata keys (a `messages` list only adds unseen messages). */
  private patch(fields: Obj, line: number): void {
    for (const [k, val] of Object.entries(fields)) {
      if (k === 'messages') {
        if (Array.isArray(val)) this.addUnseen(val, line);
      } else if (k !== '__proto__') {
        this.meta[k] = val;
      }
    }
  }

  private addUnseen(list: unknown[], line: number): void {
    for (const m of list) {
      if (isObj(m) && typeof m['id'] === 'string' && !this.byId.has(m['id'])) this.byId.set(m['id'], { id: m['id'], line, value: this.digest(m) });
    }
  }

  finish(): GeminiThread<T> {
    return { position: this.line, meta: this.meta, messages: [...this.byId.values()] };
  }
}

/** The thread of JSONL text (SPEC §7.1 lines: every `\n`, plus a non-empty unterminated tail). */
export function readGeminiThread<T = Obj>(text: string, digest: (record: Obj) => T = (r) => r as T): GeminiThread<T> {
  const b = new ThreadBuilder(digest);
  let pos = 0;
  while (pos < text.length) {
    let end = text.indexOf('\n', pos);
    if (end === -1) end = text.length;
    b.push(text.slice(pos, end));
    pos = end + 1;
  }
  return b.finish();
}

/** The id of the thread's last message (`""` when there is none). */
export function lastMessageId(thread: GeminiThread<unknown>): string {
  return thread.messages[thread.messages.length - 1]?.id ?? '';
}
