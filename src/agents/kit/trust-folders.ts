/**
 * The folder walk of an agent's trusted-folders rules (SPEC-2 §B.8, §C.3): each agent keeps its
 * own rule file and precedence, but "is this folder at or below that rule's folder, symlinks
 * resolved" is decided here once.
 */
import { realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';

/** `p` with symlinks resolved; resolved only lexically when it does not exist. */
export function realFolder(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
}

/** `child` is `parent` or below it. */
export function within(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}
