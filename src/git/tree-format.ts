/**
 * git's tree object format, the one parser of it: a tree is a run of entries
 * `<mode> SP <name> NUL <object id as raw bytes>`. Every reader of tree bytes
 * goes through `TreeCursor` (the decoded list `parseTree`, the in-place lookup
 * `findTreeEntry`, and the tree editor in odb.ts), so a hostile tree meets the
 * same rules wherever it is read.
 *
 * Two kinds of damage, as git tells them apart:
 * - the entry boundaries cannot be found (no space after the mode, a mode that
 *   is not octal digits, no NUL after the name, fewer id bytes than the id
 *   length): the object is corrupt, git's own tree decoder dies on it, and so
 *   does this one (`CorruptTreeError`); nothing after that point can be trusted.
 *   A lookup, like git's, answers from the entries before the damage and
 *   throws only if it has to scan past it.
 * - an entry is well delimited but not one git would check out: its name is
 *   empty, `.`, `..`, or `.git` in any case (git's verify_path refuses these),
 *   or contains `/` (a NUL cannot occur: it ends the name); or its mode is not
 *   one of 100644, 100755, 120000, 40000 (also written 040000) and 160000.
 *   Such an entry is **dropped**: `parseTree` does not return it, `findTreeEntry`
 *   does not find it, and the tree editor (odb.ts) leaves it out of any tree it
 *   writes. Dropping rather than flagging means no caller can forget to look at
 *   a flag: a name like `..` never reaches code that joins names into paths.
 *
 * Names are otherwise taken as git takes them: any other bytes, control
 * characters included, are a valid name.
 */

export interface TreeEntry {
  mode: string;
  name: string;
  oid: string;
}

/** The object is not a well-formed tree (entry boundaries cannot be found). */
export class CorruptTreeError extends Error {
  constructor(detail: string) {
    super(`corrupt tree object: ${detail}`);
    this.name = 'CorruptTreeError';
  }
}

export const MODE_FILE = 0o100644;
export const MODE_EXECUTABLE = 0o100755;
export const MODE_SYMLINK = 0o120000;
export const MODE_TREE = 0o040000;
export const MODE_GITLINK = 0o160000;

/** A mode string names a tree (`40000`, as git writes it, or `040000`). */
export function isTreeMode(mode: string): boolean {
  return mode === '40000' || mode === '040000';
}

/** One of git's modes, as a number; -1 if the spelling or the value is not git's. */
export function modeValue(mode: string): number {
  const b = Buffer.from(mode, 'latin1');
  return modeAt(b, 0, b.length);
}

/**
 * The mode spelt by bytes [start, end) of `b`: git's value, -1 for one git does
 * not write (the only spelling with a leading zero accepted is `040000`),
 * -2 when the bytes are not octal digits at all (a corrupt entry).
 */
function modeAt(b: Buffer, start: number, end: number): number {
  const len = end - start;
  if (len === 0 || len > 7) return len === 0 ? -2 : octalOnly(b, start, end) ? -1 : -2;
  let v = 0;
  for (let i = start; i < end; i++) {
    const c = b[i]! - 48;
    if (c < 0 || c > 7) return -2;
    v = v * 8 + c;
  }
  if (v === MODE_TREE) return len === 5 || (len === 6 && b[start] === 48) ? v : -1;
  if (len !== 6) return -1;
  return v === MODE_FILE || v === MODE_EXECUTABLE || v === MODE_SYMLINK || v === MODE_GITLINK ? v : -1;
}

function octalOnly(b: Buffer, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (b[i]! < 48 || b[i]! > 55) return false;
  return true;
}

/** Whether bytes [start, end) are a name git would check out (see the module comment). */
function nameOkAt(b: Buffer, start: number, end: number): boolean {
  const len = end - start;
  if (len === 0) return false;
  if (b[start] === 0x2e) {
    if (len === 1 || (len === 2 && b[start + 1] === 0x2e)) return false;
    // `.git`, any case
    if (len === 4 && (b[start + 1]! | 0x20) === 0x67 && (b[start + 2]! | 0x20) === 0x69 && (b[start + 3]! | 0x20) === 0x74) return false;
  }
  for (let i = start; i < end; i++) if (b[i] === 0x2f || b[i] === 0) return false;
  return true;
}

/** The same rule for a name given as a string (a path segment to look up, or to write). */
export function isValidTreeName(name: string): boolean {
  const b = Buffer.from(name, 'utf8');
  return nameOkAt(b, 0, b.length);
}

/**
 * A path to write into a tree (`a/b/c`, empty segments ignored): every
 * segment a valid name, and at least one.
 */
export function isValidTreePath(path: string): boolean {
  const segs = path.split('/').filter((s) => s !== '');
  return segs.length > 0 && segs.every(isValidTreeName);
}

/**
 * Walks a tree's entries in place. After `next()` returns true the current
 * entry is bytes [start, end): mode [start, sp), name (sp, nul), id (nul, end).
 * `next()` throws CorruptTreeError where the boundaries cannot be found; the
 * entry's validity is computed only when asked (`valid()`), so a lookup that
 * skips past most entries pays for one check.
 */
export class TreeCursor {
  start = 0;
  sp = 0;
  nul = 0;
  end = 0;
  private at = 0;
  private modeNum = -1;

  constructor(
    readonly data: Buffer,
    readonly oidBytes: number,
  ) {}

  next(): boolean {
    const d = this.data;
    const i = this.at;
    if (i >= d.length) return false;
    const sp = d.indexOf(0x20, i);
    if (sp < 0) throw new CorruptTreeError('an entry without a mode');
    // git's decoder takes octal digits up to the space, and nothing else
    const mode = modeAt(d, i, sp);
    if (mode === -2) throw new CorruptTreeError('a malformed mode');
    const nul = d.indexOf(0, sp + 1);
    if (nul < 0) throw new CorruptTreeError('an entry name without its end');
    const end = nul + 1 + this.oidBytes;
    if (end > d.length) throw new CorruptTreeError('a truncated object id');
    this.start = i;
    this.sp = sp;
    this.nul = nul;
    this.end = end;
    this.at = end;
    this.modeNum = mode;
    return true;
  }

  /** The current entry's mode as a number, -1 if it is not one of git's. */
  mode(): number {
    return this.modeNum;
  }

  /** The current entry is one git would check out (name and mode). */
  valid(): boolean {
    return nameOkAt(this.data, this.sp + 1, this.nul) && this.mode() >= 0;
  }

  /** The name's bytes equal `want`'s. */
  nameIs(want: Buffer): boolean {
    return this.nul - this.sp - 1 === want.length && this.data.compare(want, 0, want.length, this.sp + 1, this.nul) === 0;
  }

  name(): string {
    return this.data.toString('utf8', this.sp + 1, this.nul);
  }

  modeText(): string {
    return this.data.toString('latin1', this.start, this.sp);
  }

  oid(): string {
    return this.data.toString('hex', this.nul + 1, this.end);
  }
}

function oidBytesOf(format: 'sha1' | 'sha256'): number {
  return format === 'sha256' ? 32 : 20;
}

/** A tree's valid entries, in their order (invalid ones dropped; throws CorruptTreeError). */
export function parseTree(data: Buffer, format: 'sha1' | 'sha256'): TreeEntry[] {
  const c = new TreeCursor(data, oidBytesOf(format));
  const entries: TreeEntry[] = [];
  while (c.next()) if (c.valid()) entries.push({ mode: c.modeText(), name: c.name(), oid: c.oid() });
  return entries;
}

/**
 * The entry `name` of a tree, found without decoding the others: null when
 * there is none, or when the entry there is not valid (the same entries
 * parseTree drops), or when `name` itself could not be a valid entry name.
 */
export function findTreeEntry(data: Buffer, name: string, oidBytes: number): { oid: string; mode: number } | null {
  const want = Buffer.from(name, 'utf8');
  if (!nameOkAt(want, 0, want.length)) return null;
  const c = new TreeCursor(data, oidBytes);
  while (c.next()) {
    if (!c.nameIs(want)) continue;
    const mode = c.mode();
    return mode < 0 ? null : { oid: c.oid(), mode };
  }
  return null;
}
