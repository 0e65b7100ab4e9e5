/**
 * A short conversation with `codex app-server` (JSON-RPC, one JSON object per
 * line on stdin/stdout), the only way to learn what Codex itself decides
 * about our hooks (SPEC-2 §C.1): `hooks/list` gives each handler's approval
 * key, `trustStatus` and `currentHash`; `config/batchWrite` lets Codex write
 * its own `config.toml` (its TOML, its comments) when the user asks us to
 * approve. Everything is bounded: the whole conversation ends within the
 * deadline, and the server we started is killed by its pid.
 */
import type { ChildProcess } from 'node:child_process';
import { childProcess } from '../../builtins.js';

export const APP_SERVER_DEADLINE_MS = 10_000;

export interface CodexHook {
  key: string;
  eventName: string;
  command?: string;
  sourcePath?: string;
  source?: string;
  trustStatus: string;
  currentHash: string;
}

type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void };

export class AppServer {
  private child: ChildProcess | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private buffer = '';
  private failure: Error | null = null;
  private timer: NodeJS.Timeout | null = null;

  /** Start `codex app-server` (null when `codex` is not on PATH or does not start). */
  static async open(cwd: string, env: NodeJS.ProcessEnv, deadlineMs = APP_SERVER_DEADLINE_MS): Promise<AppServer | null> {
    const s = new AppServer();
    try {
      await s.start(cwd, env, deadlineMs);
      return s;
    } catch {
      s.close();
      return null;
    }
  }

  private start(cwd: string, env: NodeJS.ProcessEnv, deadlineMs: number): Promise<void> {
    const child = childProcess().spawn('codex', ['app-server'], { cwd, env, stdio: ['pipe', 'pipe', 'ignore'] });
    this.child = child;
    this.timer = setTimeout(() => this.fail(new Error(`codex app-server did not answer within ${deadlineMs} ms`)), deadlineMs);
    child.on('error', (e) => this.fail(e));
    child.on('exit', () => this.fail(new Error('codex app-server exited')));
    child.stdin!.on('error', () => {});
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => this.onData(chunk));
    return this.request('initialize', { clientInfo: { name: 'entire', version: '1' } }).then(() => this.notify('initialized'));
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    for (let nl = this.buffer.indexOf('\n'); nl >= 0; nl = this.buffer.indexOf('\n')) {
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      let msg: unknown;
      try {
        msg = JSON.parse(line);
      } catch {
        continue;
      }
      if (msg === null || typeof msg !== 'object') continue;
      const { id, result, error } = msg as { id?: unknown; result?: unknown; error?: { message?: unknown } };
      if (typeof id !== 'number') continue; // notifications
      const p = this.pending.get(id);
      if (!p) continue;
      this.pending.delete(id);
      if (error !== undefined) p.reject(new Error(`codex app-server: ${String(error?.message ?? 'error')}`));
      else p.resolve(result);
    }
  }

  private fail(e: Error): void {
    this.failure ??= e;
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
  }

  private send(msg: Record<string, unknown>): void {
    this.child?.stdin?.write(JSON.stringify({ jsonrpc: '2.0', ...msg }) + '\n');
  }

  notify(method: string): void {
    this.send({ method });
  }

  request(method: string, params: unknown): Promise<unknown> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.send({ id, method, params });
    });
  }

  /** The handlers Codex sees for `cwd` (project and user level). */
  async listHooks(cwd: string): Promise<CodexHook[]> {
    const r = (await this.request('hooks/list', { cwds: [cwd] })) as { data?: { hooks?: unknown[] }[] } | null;
    const out: CodexHook[] = [];
    for (const entry of r?.data ?? []) {
      for (const h of entry.hooks ?? []) {
        if (h === null || typeof h !== 'object') continue;
        const o = h as Record<string, unknown>;
        if (typeof o['key'] !== 'string' || typeof o['currentHash'] !== 'string') continue;
        out.push({
          key: o['key'],
          eventName: typeof o['eventName'] === 'string' ? o['eventName'] : '',
          ...(typeof o['command'] === 'string' ? { command: o['command'] } : {}),
          ...(typeof o['sourcePath'] === 'string' ? { sourcePath: o['sourcePath'] } : {}),
          ...(typeof o['source'] === 'string' ? { source: o['source'] } : {}),
          trustStatus: typeof o['trustStatus'] === 'string' ? o['trustStatus'] : 'untrusted',
          currentHash: o['currentHash'],
        });
      }
    }
    return out;
  }

  /** Upsert values into the user's `config.toml`, written by Codex. */
  async upsertConfig(edits: { keyPath: string; value: unknown }[]): Promise<void> {
    await this.request('config/batchWrite', { edits: edits.map((e) => ({ ...e, mergeStrategy: 'upsert' })) });
  }

  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const child = this.child;
    this.child = null;
    if (child && child.exitCode === null && child.pid !== undefined) {
      try {
        child.stdin?.end();
        child.stdout?.destroy();
        child.kill('SIGTERM');
        child.unref();
      } catch {
        /* already gone */
      }
    }
  }
}
