/**
 * Text that is already redacted. Only the redaction engine's incremental
 * cache produces it; the stores redact every plain string themselves, so a
 * caller cannot forget to (SPEC §3.3: redaction inside UpdateCommitted).
 */
export class PreRedacted {
  private constructor(readonly text: string) {}
  /** @internal used by the redaction cache only */
  static fromRedactor(text: string): PreRedacted {
    return new PreRedacted(text);
  }
}

export type TranscriptInput = string | PreRedacted | null;
