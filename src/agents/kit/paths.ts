/**
 * A path named in a transcript → repo-relative, or nothing (SPEC-3 §B.1, SPEC-2 §A): the one
 * choke point every edits reader uses. Pure string work, no file system: `..` segments, NUL,
 * absolute paths outside every root, `.git/` and over-long paths are refused.
 */
import { posix } from 'node:path';
import { EDITS_LIMITS } from '../edits.js';

function clean(root: string): string | undefined {
  if (!root.startsWith('/') || root.includes('\0')) return undefined;
  const n = posix.normalize(root);
  return n === '/' ? undefined : n.replace(/\/+$/, '');
}

/** Relative, normalized, inside: `a/b`; else undefined. */
function inside(rel: string): string | undefined {
  if (rel === '' || rel.startsWith('/')) return undefined;
  const n = posix.normalize(rel);
  if (n === '.' || n === '..' || n.startsWith('../') || n.startsWith('/')) return undefined;
  const out = n.replace(/^\.\//, '').replace(/\/+$/, '');
  if (out === '' || out === '.') return undefined;
  const first = out.split('/', 1)[0]!;
  if (first.toLowerCase() === '.git') return undefined; // case-insensitive file systems too
  return out;
}

export class RepoPaths {
  private readonly roots: string[];
  /** Roots the transcript names (where it was recorded): tried after the given ones. */
  private readonly recorded: string[] = [];

  /** `repoRoot` first, then the other roots that stand for the repository (longest match wins). */
  constructor(repoRoot: string, projectRoots: readonly string[] = []) {
    const all = [repoRoot, ...projectRoots].map(clean).filter((r): r is string => r !== undefined);
    this.roots = [...new Set(all)].sort((a, b) => b.length - a.length);
  }

  /**
   * A root the transcript itself names (its recorded project directory). Tried only when no
   * given root holds a path, so a recorded subdirectory of the repository never shortens a path
   * the repository root places; a transcript recorded in a subdirectory of a since-moved clone
   * places its paths relative to that subdirectory (the caller passes `projectRoots` to do better).
   */
  addRoot(root: string): void {
    const r = clean(root);
    if (r !== undefined && !this.roots.includes(r) && !this.recorded.includes(r)) this.recorded.push(r);
  }

  /**
   * `raw` as written in the transcript (absolute, or relative to `cwd` when given, else to the
   * repository root) → repo-relative, or undefined when it is not inside the repository.
   */
  relative(raw: unknown, cwd?: string): string | undefined {
    if (typeof raw !== 'string' || raw === '' || raw.length > EDITS_LIMITS.maxPathLength || raw.includes('\0')) return undefined;
    let p = raw.trim();
    if (p.startsWith('file://')) p = p.slice('file://'.length);
    if (p.startsWith('/')) return this.underRoot(posix.normalize(p));
    const base = cwd !== undefined ? clean(cwd) : undefined;
    // relative to a cwd under no root: the path cannot be placed (it may be elsewhere entirely)
    if (base !== undefined) return this.underRoot(posix.normalize(`${base}/${p}`));
    return inside(p);
  }

  private underRoot(abs: string): string | undefined {
    for (const r of this.roots) if (abs.startsWith(r + '/')) return inside(abs.slice(r.length + 1));
    for (const r of this.recorded) if (abs.startsWith(r + '/')) return inside(abs.slice(r.length + 1));
    return undefined;
  }
}
