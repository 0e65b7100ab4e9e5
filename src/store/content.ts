/**
 * Text that is already redacted. Only the redaction engine's incremental
 * cache produces it; the stores redact every plain string themselves, so a
 * caller cannot forget to (SPEC §3.3: redaction inside UpdateCommitted).
 *
 * A transcript already stored in git as one blob can be passed by reference
 * (its oid, size and sha256): the stores then write a tree entry instead of
 * sending and compressing megabytes again (SPEC §10). A big transcript stays
 * on disk (the redaction cache's file) as a ByteSource until a store chunks
 * it and writes its blobs piece by piece (SPEC-2 §A.6).
 */
import { bytesOf, type ByteSource } from '../byte-source.js';

export interface BlobRef {
  oid: string;
  bytes: number;
  /** hex sha256 of the content (for `content_hash.txt`). */
  sha256: string;
}

export class PreRedacted {
  private value: string | null;

  private constructor(
    value: string | null,
    private readonly source: ByteSource | null,
    /** Set when this exact content is stored in git as one blob. */
    readonly blob: BlobRef | null,
  ) {
    this.value = value;
  }

  /** @internal used by the redaction cache only */
  static fromRedactor(text: string): PreRedacted {
    return new PreRedacted(text, null, null);
  }

  /** @internal the redaction cache's redacted bytes, left on disk until a store reads them (SPEC-2 §A.6) */
  static fromRedactedBytes(bytes: ByteSource): PreRedacted {
    return new PreRedacted(null, bytes, null);
  }

  /** @internal content known to be in git as `blob.oid`; read only if needed. */
  static fromKnownBlob(blob: BlobRef, bytes: ByteSource): PreRedacted {
    return new PreRedacted(null, bytes, blob);
  }

  /** The whole text: only for content known to be small, or formats that need it whole. */
  async text(): Promise<string> {
    if (this.value === null) this.value = this.source!.readAll().toString('utf8');
    return this.value;
  }

  /** The redacted bytes, to be read in pieces. */
  bytes(): ByteSource {
    return this.source ?? bytesOf(this.value!);
  }
}

export type TranscriptInput = string | PreRedacted | null;
