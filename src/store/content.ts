/**
 * Text that is already redacted. Only the redaction engine's incremental
 * cache produces it; the stores redact every plain string themselves, so a
 * caller cannot forget to (SPEC §3.3: redaction inside UpdateCommitted).
 *
 * A transcript already stored in git as one blob can be passed by reference
 * (its oid, size and sha256): the stores then write a tree entry instead of
 * sending and compressing megabytes again (SPEC §10).
 */
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
    private readonly loader: (() => Promise<string>) | null,
    /** Set when this exact content is stored in git as one blob. */
    readonly blob: BlobRef | null,
  ) {
    this.value = value;
  }

  /** @internal used by the redaction cache only */
  static fromRedactor(text: string): PreRedacted {
    return new PreRedacted(text, null, null);
  }

  /** @internal content known to be in git as `blob.oid`; loaded only if needed. */
  static fromKnownBlob(blob: BlobRef, load: () => Promise<string>): PreRedacted {
    return new PreRedacted(null, load, blob);
  }

  async text(): Promise<string> {
    if (this.value === null) this.value = await this.loader!();
    return this.value;
  }
}

export type TranscriptInput = string | PreRedacted | null;
