/**
 * Unified diffs as agents record the change a tool applied (a tool result's diff field), and
 * hunk lists (`[{lines: [" ctx", "-old", "+new"]}]`): their `+`/`-` lines are whole file lines.
 *
 * A diff is trusted only when complete: every hunk holds exactly the lines its `@@ -a,b +c,d @@`
 * header counts. A trimmed or cut diff (a capture's `…[+N chars]`, a truncated field) fails
 * that test and the caller keeps what the tool input says instead. Pure; never throws.
 */

export interface DiffLines {
  added: string[];
  removed: string[];
}

const HUNK_RE = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/;

/** The lines of a complete single-file unified diff; undefined when it has no hunk or a hunk is incomplete. */
export function parseUnifiedDiff(text: string): DiffLines | undefined {
  if (typeof text !== 'string' || text.indexOf('@@') === -1) return undefined;
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const out: DiffLines = { added: [], removed: [] };
  let hunks = 0;
  let oldLeft = 0;
  let newLeft = 0;
  let inHunk = false;
  for (let line of lines) {
    if (line.endsWith('\r')) line = line.slice(0, -1);
    const h = HUNK_RE.exec(line);
    if (h) {
      if (inHunk && (oldLeft !== 0 || newLeft !== 0)) return undefined;
      oldLeft = h[1] === undefined ? 1 : Number(h[1]);
      newLeft = h[2] === undefined ? 1 : Number(h[2]);
      inHunk = true;
      hunks++;
      continue;
    }
    if (!inHunk) continue; // file headers (`diff --git`, `---`, `+++`, `Index:`)
    if (line.startsWith('\\')) continue; // `\ No newline at end of file`
    if (oldLeft === 0 && newLeft === 0) {
      // after a hunk: another file's header, or nothing; a body line means the counts lied
      if (/^[ +-]/.test(line) && !line.startsWith('--- ') && !line.startsWith('+++ ')) return undefined;
      inHunk = false;
      continue;
    }
    const c = line[0];
    if (c === '+') {
      if (--newLeft < 0) return undefined;
      out.added.push(line.slice(1));
    } else if (c === '-') {
      if (--oldLeft < 0) return undefined;
      out.removed.push(line.slice(1));
    } else if (c === ' ' || line === '') {
      if (--oldLeft < 0 || --newLeft < 0) return undefined;
    } else {
      return undefined;
    }
  }
  if (hunks === 0 || oldLeft !== 0 || newLeft !== 0) return undefined;
  return out;
}

/** A hunk list `[{oldLines, newLines, lines: [" ctx", "-old", "+new"]}]`; undefined when malformed or empty. */
export function hunkListLines(patch: unknown): DiffLines | undefined {
  if (!Array.isArray(patch) || patch.length === 0) return undefined;
  const out: DiffLines = { added: [], removed: [] };
  for (const hunk of patch) {
    if (hunk === null || typeof hunk !== 'object') return undefined;
    const lines = (hunk as { lines?: unknown }).lines;
    if (!Array.isArray(lines)) return undefined;
    for (const l of lines) {
      if (typeof l !== 'string') return undefined;
      if (l.startsWith('+')) out.added.push(l.slice(1));
      else if (l.startsWith('-')) out.removed.push(l.slice(1));
    }
  }
  return out;
}
