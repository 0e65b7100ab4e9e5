/** One API dialect of the scripted model server (Anthropic Messages, Gemini, …). */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Conversation, Plan } from '../scripts.js';

export interface DialectRequest {
  method: string;
  /** Path and query, as received. */
  url: string;
  headers: IncomingMessage['headers'];
  /** Parsed JSON body, or the raw text when it is not JSON. */
  body: unknown;
}

/** What the server logs about one answered request. */
export interface Answer {
  /** A route name for the log (`messages`, `count_tokens`, …). */
  route: string;
  conversation?: Conversation;
  plan?: Plan | null;
  /** Tool names the request declared (drift shows up here). */
  tools?: string[];
}

export interface Dialect {
  name: string;
  /**
   * Answer the request if this dialect owns its route; return null when it
   * does not (the server then tries the next dialect, then logs it as unknown).
   */
  handle(req: DialectRequest, res: ServerResponse): Answer | null;
}

/** Write one server-sent-events stream and end the response. */
export function sendSse(res: ServerResponse, events: { event?: string; data: unknown }[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'close' });
  for (const e of events) {
    if (e.event !== undefined) res.write(`event: ${e.event}\n`);
    res.write(`data: ${JSON.stringify(e.data)}\n\n`);
  }
  res.end();
}

export function sendJson(res: ServerResponse, status: number, data: unknown): void {
  const body = JSON.stringify(data);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** Absolute path of a script's repo-relative path, given the workspace named in the request. */
export function inWorkdir(workdir: string | null, rel: string): string {
  return workdir === null ? rel : `${workdir.replace(/\/+$/, '')}/${rel}`;
}
