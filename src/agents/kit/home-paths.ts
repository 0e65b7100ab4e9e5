/** Path helpers shared by the adapters. */
import { os } from '../../builtins.js';
import { realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';

/** `/home/dev/projects/acme-api` → `-home-dev-projects-acme-api` (a project directory name, as agents derive them). */
export function sanitizePathForDir(p: string): string {
  return p.replace(/[^A-Za-z0-9]/g, '-');
}

/** `$HOME` as the hooks see it (`HOME` wins over the passwd entry, as in the agents). */
export function homeDir(): string {
  return process.env['HOME'] || os().homedir();
}

export interface RepoRelativeOptions {
  /** Base for relative transcript paths (default: the repo root). */
  cwd?: string;
}

/**
 * Edit paths as an agent wrote them (usually absolute) → repo-relative paths
 * with `/` separators, deduplicated in first-seen order. Paths outside the
 * repo, the root itself and anything under `.entire/` are dropped. A root
 * reached through a symlink (e.g. macOS `/tmp` → `/private/tmp`) matches too.
 */
export function toRepoRelative(paths: readonly string[], repoRoot: string, options: RepoRelativeOptions = {}): string[] {
  const roots = [resolve(repoRoot)];
  let realTried = false;
  const out: string[] = [];
  const seen = new Set<string>();
  for (const p of paths) {
    if (typeof p !== 'string' || p === '') continue;
    const abs = isAbsolute(p) ? resolve(p) : resolve(options.cwd ?? repoRoot, p);
    let rel = relativeInside(roots, abs);
    if (rel === undefined && !realTried) {
      realTried = true;
      try {
        const real = realpathSync(repoRoot);
        if (!roots.includes(real)) roots.push(real);
      } catch {
        /* root vanished: nothing more to try */
      }
      rel = relativeInside(roots, abs);
    }
    if (rel === undefined) continue;
    if (rel === '.entire' || rel.startsWith('.entire/')) continue;
    if (seen.has(rel)) continue;
    seen.add(rel);
    out.push(rel);
  }
  return out;
}

function relativeInside(roots: readonly string[], abs: string): string | undefined {
  for (const root of roots) {
    const rel = relative(root, abs);
    if (rel === '' || rel === '..' || rel.startsWith('..' + sep) || isAbsolute(rel)) continue;
    return sep === '/' ? rel : rel.split(sep).join('/');
  }
  return undefined;
}
