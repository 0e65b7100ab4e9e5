/**
 * Per-session transcript bookkeeping in `.entire/tmp/transcript-<sid>.json`
 * (SPEC §10: hook work proportional to new bytes). JSONL transcripts are
 * append-only, so we remember cursors (byte offset ↔ line) and the
 * (redacted) prompts seen so far; each hook reads only what was appended.
 * A transcript that shrank or was replaced invalidates everything.
 */
import { readSync, closeSync } from 'node:fs';
import { openTranscript } from '../trust/transcript-file.js';
import type { AgentAdapter, TranscriptAnalysis, TranscriptCursor } from '../agents/types.js';
import type { BlobRef } from '../store/content.js';
import { readScratch, writeScratch } from './scratch.js';
import { validateSessionId } from '../session/state.js';
import { sha1Hex } from '../git/checksums.js';

interface CacheFile {
  version: 1;
  path: string;
  /** SHA-1 of the first 4 KiB (`sha1:` hex; a sha256 from older caches just starts afresh): a replaced transcript starts differently. */
  head: string;
  cursors: TranscriptCursor[];
  /** Redacted prompts of lines before `promptsCursor`. */
  prompts: string[];
  promptsCursor: TranscriptCursor | null;
  /** The redacted transcript of this many bytes is stored in git as this blob. */
  blob?: BlobRef | null;
  /** Completed line groups of the shadow copy: byte ranges of the redacted text and their blobs. */
  shadowChunks?: ShadowChunk[];
}

export interface ShadowChunk {
  start: number;
  end: number;
  oid: string;
}

const MAX_CURSORS = 64;

function cacheName(sid: string): string {
  validateSessionId(sid);
  return `transcript-${sid}.json`;
}

function headHash(path: string): { hash: string; size: number } | null {
  let fd: number;
  let size: number;
  try {
    const o = openTranscript(path);
    if (!o) return null;
    ({ fd, size } = o);
  } catch {
    return null;
  }
  try {
    const buf = Buffer.alloc(Math.min(4096, size));
    readSync(fd, buf, 0, buf.length, 0);
    // an identity check, not a security one: the wasm SHA-1 spares loading node:crypto
    return { hash: 'sha1:' + sha1Hex(buf), size };
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

export class TranscriptCache {
  private data: CacheFile;
  private dirty = false;

  private constructor(
    private readonly file: { root: string; name: string },
    readonly adapter: AgentAdapter,
    readonly path: string,
    data: CacheFile,
  ) {
    this.data = data;
  }

  /** Open the cache of a session's transcript (never throws; a bad cache starts empty). */
  static open(root: string, sid: string, adapter: AgentAdapter, path: string): TranscriptCache {
    const file = { root, name: cacheName(sid) };
    const fresh = (h: string): CacheFile => ({ version: 1, path, head: h, cursors: [], prompts: [], promptsCursor: null });
    const hh = headHash(path);
    const stored = readScratch<CacheFile>(root, file.name);
    let data: CacheFile;
    if (
      stored &&
      stored.version === 1 &&
      stored.path === path &&
      hh &&
      stored.head === hh.hash &&
      Array.isArray(stored.cursors) &&
      Array.isArray(stored.prompts) &&
      stored.cursors.every((c) => c.byte <= hh.size)
    ) {
      data = stored;
    } else {
      data = fresh(hh?.hash ?? '');
    }
    const c = new TranscriptCache(file, adapter, path, data);
    if (data !== stored) c.dirty = true;
    return c;
  }

  private best(line: number): TranscriptCursor | undefined {
    let best: TranscriptCursor | undefined;
    for (const c of this.data.cursors) if (c.line <= line && (!best || c.line > best.line)) best = c;
    return best;
  }

  private remember(c: TranscriptCursor | undefined): void {
    if (!c || c.byte <= 0) return;
    if (this.data.cursors.some((x) => x.byte === c.byte)) return;
    this.data.cursors.push(c);
    this.data.cursors.sort((a, b) => a.line - b.line);
    if (this.data.cursors.length > MAX_CURSORS) this.data.cursors.splice(1, this.data.cursors.length - MAX_CURSORS);
    this.dirty = true;
  }

  /** Analysis of lines [from, end); null when the transcript cannot be read. */
  analyze(from: number): TranscriptAnalysis | null {
    try {
      // a reader that keeps no cursors (documents, patched JSONL) never returned one to remember
      const cursor = this.best(from);
      const r = this.adapter.analyzeTranscriptFile(this.path, { from, cursor });
      if (!r.exists) return null;
      this.remember(r.cursor);
      return r.analysis;
    } catch {
      return null;
    }
  }

  /** Current position and last identifier (JSONL: reads only new bytes). */
  position(): { position: number; lastIdentifier: string } {
    try {
      const cursor = this.best(Number.MAX_SAFE_INTEGER);
      const r = this.adapter.transcriptPosition(this.path, cursor);
      if (!r.exists) return { position: 0, lastIdentifier: '' };
      this.remember(r.cursor);
      return { position: r.position, lastIdentifier: r.lastIdentifier };
    } catch {
      return { position: 0, lastIdentifier: '' };
    }
  }

  /** Every user prompt of the transcript, redacted (new lines only are analysed). */
  async prompts(): Promise<string[]> {
    // the redactor loads only when there are prompts not redacted yet
    const redactAll = async (ps: string[]): Promise<string[]> => {
      if (ps.length === 0) return [];
      const { redactString } = await import('../redact/index.js');
      return ps.map(redactString);
    };
    try {
      let pc = this.data.promptsCursor;
      let r = this.adapter.analyzeTranscriptFile(this.path, { from: pc?.line ?? 0, cursor: pc ?? undefined });
      if (!r.exists) return this.data.prompts;
      if (!r.cursor) {
        // a reader that reads the whole file each time (documents; JSONL whose records
        // patch or drop earlier ones): its prompts are all of them, nothing to cache
        if (pc) r = this.adapter.analyzeTranscriptFile(this.path, { from: 0 });
        return redactAll(r.analysis.prompts);
      }
      if (pc && (!r.cursor || r.cursor.byte < pc.byte)) {
        // the reader could not use the cursor (file rewritten): start over
        pc = null;
        this.data.prompts = [];
        r = this.adapter.analyzeTranscriptFile(this.path, { from: 0 });
      }
      const end = r.cursor;
      // prompts on an unterminated last line are not final: not cached
      let tail: string[] = [];
      if (end && r.analysis.position > end.line) {
        const t = this.adapter.analyzeTranscriptFile(this.path, { from: end.line, cursor: end });
        tail = t.exists ? t.analysis.prompts : [];
      }
      const complete = r.analysis.prompts.slice(0, r.analysis.prompts.length - tail.length);
      if (complete.length > 0) this.data.prompts = [...this.data.prompts, ...(await redactAll(complete))];
      if (end && (!pc || end.byte !== pc.byte)) {
        this.data.promptsCursor = end;
        this.dirty = true;
      }
      this.remember(end);
      return [...this.data.prompts, ...(await redactAll(tail))];
    } catch {
      return this.data.prompts;
    }
  }

  storedBlob(bytes: number): BlobRef | null {
    const b = this.data.blob;
    return b && b.bytes === bytes && /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(b.oid) ? b : null;
  }

  setStoredBlob(b: BlobRef): void {
    this.data.blob = b;
    this.dirty = true;
  }

  shadowChunks(): ShadowChunk[] {
    const list = Array.isArray(this.data.shadowChunks) ? this.data.shadowChunks : [];
    // only a contiguous run from the start is usable
    const out: ShadowChunk[] = [];
    let expect = 0;
    for (const c of list) {
      if (c.start !== expect || c.end < c.start || !/^[0-9a-f]{40,64}$/.test(c.oid)) break;
      out.push(c);
      expect = c.end + 1;
    }
    return out;
  }

  setShadowChunks(list: ShadowChunk[]): void {
    this.data.shadowChunks = list;
    this.dirty = true;
  }

  save(): void {
    if (!this.dirty) return;
    try {
      writeScratch(this.file.root, this.file.name, this.data);
      this.dirty = false;
    } catch {
      /* a cache only */
    }
  }
}
