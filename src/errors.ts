/**
 * One error type for the whole tool. Every failure we raise carries a stable
 * `code` (for tests, logs and `--json` output) and, when it wraps another
 * failure, that failure as `cause` so the log line can say why.
 */
export type ErrorCode =
  | 'NOT_A_REPO'
  | 'NO_COMMITS'
  | 'GIT_FAILED'
  | 'INVALID_CHECKPOINT_ID'
  | 'INVALID_SESSION_ID'
  | 'INVALID_SLOT'
  | 'CHECKPOINT_NOT_FOUND'
  /** SPEC-3 §A.4: not local, and fetching it failed (not the same as "not found"). */
  | 'CHECKPOINT_UNAVAILABLE'
  | 'SESSION_NOT_FOUND'
  | 'CONTEXT_NOT_FOUND'
  | 'CORRUPT_METADATA'
  | 'CORRUPT_STATE'
  | 'REF_RACE'
  | 'LOCK_TIMEOUT'
  | 'INVALID_INPUT'
  | 'INVALID_USAGE'
  | 'INVALID_SETTINGS'
  | 'UNKNOWN_AGENT'
  | 'TRANSCRIPT_UNREADABLE'
  | 'UNSAFE_TRANSCRIPT'
  | 'UNSAFE_PATH'
  | 'NEEDS_FORCE'
  | 'REFUSED'
  | 'INTERNAL';

export class EntireError extends Error {
  readonly code: ErrorCode;
  /** Extra structured detail (paths, ids) for logs; never secrets or content. */
  readonly detail: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown; detail?: Record<string, unknown> }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'EntireError';
    this.code = code;
    this.detail = options?.detail;
  }
}

export function isEntireError(e: unknown, code?: ErrorCode): e is EntireError {
  return e instanceof EntireError && (code === undefined || e.code === code);
}

/** The message of an error and its causes, joined, for one log line. */
export function describeError(e: unknown): string {
  const parts: string[] = [];
  let cur: unknown = e;
  for (let depth = 0; cur !== undefined && cur !== null && depth < 5; depth++) {
    if (cur instanceof Error) {
      parts.push(cur.message);
      cur = (cur as Error & { cause?: unknown }).cause;
    } else {
      parts.push(String(cur));
      break;
    }
  }
  return parts.join(': ');
}
