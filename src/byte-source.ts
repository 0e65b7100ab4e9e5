/**
 * Bytes too many to hold at once (a redacted transcript of hundreds of MB,
 * SPEC-2 §A.6): a size and positional reads. Stores chunk them, hash them and
 * write them as blobs piece by piece; only code that needs the whole content
 * (small transcripts, a one-document transcript) reads it all.
 */
import { closeSync, fstatSync, openSync, constants } from 'node:fs';
import { readAt } from './fs-read.js';

/** One read of a source: what every streaming loop asks for at a time. */
export const PIECE_BYTES = 1024 * 1024;

export abstract class ByteSource {
  abstract readonly size: number;
  /** Bytes [position, position + length), within the source. */
  abstract read(position: number, length: number): Buffer;

  /** The bytes [start, end) as a source of their own (no copy). */
  slice(start: number, end = this.size): ByteSource {
    if (start === 0 && end === this.size) return this;
    return new SliceSource(this, start, end);
  }

  /** Consecutive pieces of at most `piece` bytes covering [start, end). */
  *pieces(start = 0, end = this.size, piece = PIECE_BYTES): Generator<Buffer> {
    for (let at = start; at < end; ) {
      const b = this.read(at, Math.min(piece, end - at));
      if (b.length === 0) throw new Error(`byte source ended at ${at} of ${end}`);
      yield b;
      at += b.length;
    }
  }

  /** Everything, in one buffer: only for content known to be small. */
  readAll(): Buffer {
    return this.size === 0 ? Buffer.alloc(0) : this.read(0, this.size);
  }
}

export class BufferSource extends ByteSource {
  constructor(readonly buf: Buffer) {
    super();
  }
  get size(): number {
    return this.buf.length;
  }
  read(position: number, length: number): Buffer {
    return this.buf.subarray(position, position + length);
  }
  override readAll(): Buffer {
    return this.buf;
  }
}

class SliceSource extends ByteSource {
  constructor(
    private readonly inner: ByteSource,
    private readonly start: number,
    private readonly end: number,
  ) {
    super();
  }
  get size(): number {
    return this.end - this.start;
  }
  read(position: number, length: number): Buffer {
    return this.inner.read(this.start + position, Math.min(length, this.end - this.start - position));
  }
  override slice(start: number, end = this.size): ByteSource {
    return start === 0 && end === this.size ? this : new SliceSource(this.inner, this.start + start, this.start + end);
  }
}

/** Sources one after another. */
export class ConcatSource extends ByteSource {
  readonly size: number;
  private readonly starts: number[] = [];
  constructor(private readonly parts: ByteSource[]) {
    super();
    let at = 0;
    for (const p of parts) {
      this.starts.push(at);
      at += p.size;
    }
    this.size = at;
  }
  read(position: number, length: number): Buffer {
    const out: Buffer[] = [];
    let want = Math.min(length, this.size - position);
    let i = this.starts.length - 1;
    while (i > 0 && this.starts[i]! > position) i--;
    while (want > 0 && i < this.parts.length) {
      const p = this.parts[i]!;
      const off = position - this.starts[i]!;
      if (off < p.size) {
        const b = p.read(off, Math.min(want, p.size - off));
        out.push(b);
        want -= b.length;
        position += b.length;
      }
      i++;
    }
    return out.length === 1 ? out[0]! : Buffer.concat(out);
  }
}

/**
 * Bytes [start, end) of a file, opened for each read (a source lives as long
 * as a hook; an open descriptor would outlive the tests that make many). The
 * file must still be the inode it was when the source was made: the
 * redaction cache replaces its file by rename when it rebuilds, and a source
 * then fails rather than mixing two files.
 */
export class FileRangeSource extends ByteSource {
  private constructor(
    private readonly path: string,
    private readonly ino: number,
    private readonly start: number,
    private readonly end: number,
  ) {
    super();
  }

  /** A range of the file at `path` as it is now (no symlink followed). */
  static open(path: string, start: number, end: number): FileRangeSource {
    const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const st = fstatSync(fd);
      if (st.size < end) throw new Error(`${path} holds ${st.size} bytes, fewer than ${end}`);
      return new FileRangeSource(path, st.ino, start, end);
    } finally {
      closeSync(fd);
    }
  }

  get size(): number {
    return this.end - this.start;
  }

  read(position: number, length: number): Buffer {
    const fd = openSync(this.path, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      if (fstatSync(fd).ino !== this.ino) throw new Error(`${this.path} was replaced while being read`);
      const n = Math.min(length, this.end - this.start - position);
      const b = readAt(fd, this.start + position, n);
      if (b.length !== n) throw new Error(`${this.path} shrank while being read`);
      return b;
    } finally {
      closeSync(fd);
    }
  }

  override slice(start: number, end = this.size): ByteSource {
    return start === 0 && end === this.size ? this : new FileRangeSource(this.path, this.ino, this.start + start, this.start + end);
  }
}

/** A source of these bytes. */
export function bytesOf(content: Buffer | string): ByteSource {
  return new BufferSource(typeof content === 'string' ? Buffer.from(content, 'utf8') : content);
}
