/**
 * Object reads for one repository: first in-process (local-odb.ts), which
 * answers the common cases without a process; otherwise a long-lived
 * `git cat-file --batch` process, spawned on first need, where each read is
 * a line written and a record parsed.
 */
import type { ChildProcess } from 'node:child_process';
import { EntireError } from '../errors.js';
import { spawnGit } from './exec.js';
import type { LocalObjects } from './local-odb.js';

export interface GitObject {
  oid: string;
  type: 'blob' | 'tree' | 'commit' | 'tag';
  data: Buffer;
}

interface Pending {
  name: string;
  resolve: (o: GitObject | null) => void;
  reject: (e: unknown) => void;
}

export class ObjectReader {
  private child: ChildProcess | undefined;
  private queue: Pending[] = [];
  private buf: Buffer = Buffer.alloc(0);
  private failed: unknown;

  /** `local`: read from the object store in-process first; git answers what it cannot. */
  constructor(
    private readonly cwd: string,
    readonly objectFormat: 'sha1' | 'sha256',
    private readonly local: LocalObjects | null = null,
  ) {}

  /** Read an object by any name cat-file accepts (`<oid>`, `<rev>:<path>`); null if missing. */
  read(name: string): Promise<GitObject | null> {
    if (name.includes('\n')) return Promise.resolve(null);
    if (this.local) {
      try {
        const o = this.local.read(name);
        if (o !== undefined) return Promise.resolve(o);
      } catch {
        /* a format this reader does not know: git reads it */
      }
    }
    return new Promise((resolve, reject) => {
      const child = this.start();
      if (this.failed) {
        reject(this.failed);
        return;
      }
      this.queue.push({ name, resolve, reject });
      this.setRef(true);
      child.stdin!.write(name + '\n');
    });
  }

  /**
   * The tree entry at `path` in `rev` (mode as a number), read in-process;
   * null if there is none, undefined if only git can tell.
   */
  treeEntry(rev: string, path: string): { mode: number; oid: string } | null | undefined {
    if (!this.local) return undefined;
    try {
      return this.local.entryAt(rev, path);
    } catch {
      return undefined;
    }
  }

  async readText(name: string): Promise<string | null> {
    const o = await this.read(name);
    return o ? o.data.toString('utf8') : null;
  }

  /** Close the process (reads after this start a new one). */
  close(): void {
    this.local?.close();
    if (this.child) {
      this.child.stdin!.end();
      this.child = undefined;
    }
  }

  private setRef(on: boolean): void {
    const c = this.child;
    if (!c) return;
    // Idle readers must not keep the process alive; busy ones must.
    const items = [c, c.stdout, c.stderr, c.stdin] as unknown as { ref?: () => void; unref?: () => void }[];
    for (const it of items) {
      if (on) it.ref?.();
      else it.unref?.();
    }
  }

  private start(): ChildProcess {
    if (this.child) return this.child;
    this.failed = undefined;
    this.buf = Buffer.alloc(0);
    const child = spawnGit(['cat-file', '--batch'], { cwd: this.cwd });
    this.child = child;
    child.stdout!.on('data', (d: Buffer) => this.onData(d));
    child.stdin!.on('error', () => {});
    const fail = (e: unknown) => {
      this.failed = new EntireError('GIT_FAILED', 'git cat-file --batch stopped', { cause: e });
      const q = this.queue.splice(0);
      for (const p of q) p.reject(this.failed);
      if (this.child === child) this.child = undefined;
    };
    child.on('error', fail);
    child.on('close', (code) => {
      if (this.queue.length > 0) fail(new Error(`exit code ${code}`));
      else if (this.child === child) this.child = undefined;
    });
    return child;
  }

  private onData(d: Buffer): void {
    this.buf = this.buf.length === 0 ? d : Buffer.concat([this.buf, d]);
    for (;;) {
      const p = this.queue[0];
      if (!p) break;
      const nl = this.buf.indexOf(0x0a);
      if (nl < 0) break;
      const header = this.buf.subarray(0, nl).toString('utf8');
      if (header.endsWith(' missing') || header.endsWith(' ambiguous')) {
        this.buf = this.buf.subarray(nl + 1);
        this.queue.shift();
        p.resolve(null);
        continue;
      }
      const parts = header.split(' ');
      const size = Number(parts[2]);
      if (parts.length !== 3 || !Number.isFinite(size)) {
        this.queue.shift();
        p.reject(new EntireError('GIT_FAILED', `unexpected cat-file output: ${header.slice(0, 80)}`));
        this.buf = Buffer.alloc(0);
        break;
      }
      if (this.buf.length < nl + 1 + size + 1) break;
      const data = Buffer.from(this.buf.subarray(nl + 1, nl + 1 + size));
      this.buf = this.buf.subarray(nl + 1 + size + 1);
      this.queue.shift();
      p.resolve({ oid: parts[0]!, type: parts[1] as GitObject['type'], data });
    }
    if (this.queue.length === 0) this.setRef(false);
  }
}
