/**
 * The scripted model server of the real-agent tier: plain HTTP on
 * 127.0.0.1:<random port>, speaking each agent's API dialect. Every request is
 * logged (in memory and, if asked, as JSON lines in a file) so tests can see
 * what the CLI sent, and requests no dialect owns are answered harmlessly
 * (404 JSON) and flagged, so API drift is visible instead of silent.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { appendFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Answer, Dialect, DialectRequest } from './dialects/types.js';
import { sendJson } from './dialects/types.js';
import { anthropicDialect } from './dialects/anthropic.js';
import { geminiDialect } from './dialects/gemini.js';
import { openAiChatDefault } from './dialects/openai-chat.js';

/** Every dialect, for a server started by hand (tests pass their driver's). */
export const ALL_DIALECTS: Dialect[] = [anthropicDialect, geminiDialect, openAiChatDefault];

export interface LoggedRequest extends DialectRequest, Partial<Answer> {
  at: string;
  dialect: string | null;
}

export interface ModelServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  requests: LoggedRequest[];
  /** Requests no dialect answered. */
  unknown(): LoggedRequest[];
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startModelServer(opts: { dialects?: Dialect[]; logFile?: string } = {}): Promise<ModelServer> {
  const dialects = opts.dialects ?? ALL_DIALECTS;
  const requests: LoggedRequest[] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const text = await readBody(req);
      let body: unknown = text;
      try {
        body = text === '' ? null : JSON.parse(text);
      } catch {
        /* not JSON: keep the text */
      }
      const dreq: DialectRequest = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body };
      let answer: Answer | null = null;
      let dialect: string | null = null;
      try {
        for (const d of dialects) {
          answer = d.handle(dreq, res);
          if (answer !== null) {
            dialect = d.name;
            break;
          }
        }
        if (answer === null) sendJson(res, 404, { error: { type: 'not_found_error', message: `not scripted: ${dreq.method} ${dreq.url}` } });
      } catch (e) {
        if (!res.headersSent) sendJson(res, 500, { error: { type: 'api_error', message: String(e) } });
        else res.end();
        answer = { route: `error: ${String(e)}` };
      }
      const entry: LoggedRequest = { at: new Date().toISOString(), dialect, ...dreq, ...(answer ?? {}) };
      requests.push(entry);
      if (opts.logFile !== undefined) appendFileSync(opts.logFile, JSON.stringify(entry) + '\n');
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    unknown: () => requests.filter((r) => r.dialect === null),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
