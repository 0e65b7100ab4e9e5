/**
 * SPEC-2 §A.2: the one validator per id kind. Every id read from untrusted
 * or semi-trusted data (agent stdin, session states, checkpoint metadata,
 * trailers, tree names, arguments) passes one of these before it names a
 * file, a ref, a tree entry or a command.
 *
 * - session id: valid UTF-8, 1–128 bytes, no `/`, `\`, control character
 *   (C0, DEL, C1), whitespace or format/bidi character, not `.`/`..`, no
 *   leading `-`, not ending `.pending-<12 hex>` (the side-file suffix);
 * - agent, subagent and tool-use id: `^[A-Za-z0-9_-]{1,128}$`;
 * - checkpoint id: v1's `^[0-9a-f]{12}$` or a ULID `^[0-7][0-9A-HJKMNP-TV-Z]{25}$`
 *   (SPEC-3 §A.1: Crockford base32, upper case only, so the id round-trips);
 * - agent session id (a session id as handed to its agent, in argv or a path; issue 25):
 *   `^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`.
 *
 * Plain loops rather than regular expressions: hooks call these on every run,
 * and each distinct expression costs a compile in a cold process.
 */
import { isLowerHex } from '../hex.js';
import { EntireError } from '../errors.js';

export const MAX_ID_BYTES = 128;

/** Checkpoint ID of either kind (SPEC-3 §A.1): v1's 12 lowercase hex or a ULID. */
export function isCheckpointId(s: unknown): s is string {
  return isHexCheckpointId(s) || isUlidCheckpointId(s);
}

/** v1's checkpoint id: exactly 12 lowercase hex characters (the only kind the v1 branch holds). */
export function isHexCheckpointId(s: unknown): s is string {
  return typeof s === 'string' && s.length === 12 && isLowerHex(s);
}

/** Crockford base32 digits, upper case, without I, L, O, U. */
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** The Go refs backend's checkpoint id (SPEC-3 §A.1): a 26-character ULID, first digit 0–7. */
export function isUlidCheckpointId(s: unknown): s is string {
  if (typeof s !== 'string' || s.length !== 26) return false;
  const first = s.charCodeAt(0);
  if (first < 48 || first > 55) return false;
  for (let i = 1; i < 26; i++) if (CROCKFORD.indexOf(s[i]!) < 0) return false;
  return true;
}

/**
 * The checkpoint id as a regular-expression source (one capture-free
 * alternative), for the line parsers of trailers and notes.
 */
export const CHECKPOINT_ID_PATTERN = '[0-9a-f]{12}|[0-7][0-9A-HJKMNP-TV-Z]{25}';

/** Agent, subagent and tool-use ids: 1–128 of `[A-Za-z0-9_-]`. */
const TASK_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** SPEC-2 §F.1: a supervisor's task id (`ENTIRE_TASK_ID`), 1–128 of `[A-Za-z0-9._:-]`. */
export function isTaskId(s: unknown): s is string {
  return typeof s === 'string' && TASK_ID.test(s);
}

export function isAgentId(s: unknown): boolean {
  if (typeof s !== 'string' || s.length === 0 || s.length > MAX_ID_BYTES) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ok = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45;
    if (!ok) return false;
  }
  return true;
}

// Whitespace, controls, format/bidi characters and lone surrogates; only
// reached for ids with a non-ASCII character (compiled on first such id).
let nonAsciiBad: RegExp | undefined;
function hasBadNonAscii(s: string): boolean {
  nonAsciiBad ??= /[\s\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Zs}\p{Cs}\p{Co}\p{Cn}]/u;
  return nonAsciiBad.test(s);
}

function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** `<anything>.pending-<12 hex>`: the name of a side file, never a session. */
function endsWithSideSuffix(s: string): boolean {
  const k = s.length - '.pending-'.length - 12;
  return k >= 0 && s.startsWith('.pending-', k) && isLowerHex(s.slice(k + '.pending-'.length));
}

/** Why `sid` is not a valid session id, or null when it is. */
export function sessionIdProblem(sid: unknown): string | null {
  if (typeof sid !== 'string' || sid === '') return 'session id is empty';
  if (sid.length > MAX_ID_BYTES * 2 || utf8Length(sid) > MAX_ID_BYTES) return 'session id is longer than 128 bytes';
  if (sid === '.' || sid === '..') return `session id must not be "${sid}"`;
  if (sid.charCodeAt(0) === 45) return 'session id must not start with "-"';
  let ascii = true;
  for (let i = 0; i < sid.length; i++) {
    const c = sid.charCodeAt(i);
    if (c === 47 || c === 92) return 'session id must not contain path separators';
    if (c <= 0x20 || c === 0x7f) return 'session id must not contain control characters or whitespace';
    if (c >= 0x80) ascii = false;
  }
  if (!ascii && hasBadNonAscii(sid)) return 'session id must not contain control, format or whitespace characters';
  if (endsWithSideSuffix(sid)) return 'session id must not end in .pending-<checkpoint id>';
  return null;
}

export function isSessionId(sid: unknown): sid is string {
  return sessionIdProblem(sid) === null;
}

/** Throws EntireError('INVALID_SESSION_ID') unless `sid` is a valid session id. */
export function validateSessionId(sid: unknown): asserts sid is string {
  const problem = sessionIdProblem(sid);
  if (problem !== null) {
    const shown = typeof sid === 'string' ? JSON.stringify(sid.length > 140 ? sid.slice(0, 140) + '…' : sid) : typeof sid;
    throw new EntireError('INVALID_SESSION_ID', `invalid session id ${shown}: ${problem}`);
  }
}

/**
 * Issue 25 (1): the session id in the form it is handed to an agent — an argv word after
 * `-r`/`--resume`/`-s`/`resume`, an `export <id>` subcommand, a file or directory name under the
 * agent's root. A session id that passes `sessionIdProblem` may still be `--settings=…` once a
 * Go-era `YYYY-MM-DD-` prefix is taken off, or `.` (a directory name), so this form is checked
 * on its own: 1–128 of `[A-Za-z0-9._-]`, starting with a letter or digit. Such a word is never
 * read as an option (no CLI takes a word starting with a letter or digit for one), never `.`/`..`
 * and never holds a path separator, whatever the CLI or the path does with it. Every agent's id
 * (UUIDs, `ses_…`-style ids) has this form.
 */
export function agentSessionIdProblem(id: unknown): string | null {
  if (typeof id !== 'string' || id === '') return 'agent session id is empty';
  if (id.length > MAX_ID_BYTES) return 'agent session id is longer than 128 bytes';
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    const alnum = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
    if (i === 0 && !alnum) return 'agent session id must start with a letter or digit';
    if (!alnum && c !== 45 && c !== 46 && c !== 95) return 'agent session id may hold only letters, digits, ".", "_" and "-"';
  }
  return null;
}

/** Throws EntireError('INVALID_SESSION_ID') unless `id` is a valid agent session id; returns it. */
export function validAgentSessionId(id: unknown): string {
  const problem = agentSessionIdProblem(id);
  if (problem !== null) {
    const shown = typeof id === 'string' ? JSON.stringify(id.length > 140 ? id.slice(0, 140) + '…' : id) : typeof id;
    throw new EntireError('INVALID_SESSION_ID', `invalid agent session id ${shown}: ${problem}`);
  }
  return id as string;
}
