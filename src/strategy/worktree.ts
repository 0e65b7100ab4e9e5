/**
 * What changed in the work tree during a turn (SPEC §6.2 step 2): edit-tool
 * paths from the transcript plus every path whose git status or size:mtime
 * moved since the turn started, so a `sed -i` or a formatter is not missed.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Repo } from '../git/repo.js';
import { workTreeStatus, type StatusEntry } from '../git/status.js';
import { toRepoRelative } from '../agents/kit/home-paths.js';

export function fileSignature(root: string, path: string): string {
  try {
    const st = statSync(join(root, path));
    return `${st.size}:${Math.floor(st.mtimeMs)}`;
  } catch {
    return '-';
  }
}

export interface WorkTreeView {
  status: StatusEntry[];
  /** Paths that differ from HEAD now (staged, unstaged, untracked, deleted). */
  differing: Set<string>;
  /** path → signature for every listed path. */
  signatures: Record<string, string>;
  untracked: string[];
}

/** The work tree's status (all of it, or only `only`). */
export async function viewWorkTree(repo: Repo, only?: readonly string[]): Promise<WorkTreeView> {
  const status = await workTreeStatus(repo, only);
  const signatures: Record<string, string> = {};
  const differing = new Set<string>();
  const untracked: string[] = [];
  for (const e of status) {
    differing.add(e.path);
    // size:mtime only (SPEC §6.1): staging a file changes its status code, not the work tree
    signatures[e.path] = fileSignature(repo.root, e.path);
    if (e.code === '??') untracked.push(e.path);
  }
  return { status, differing, signatures, untracked };
}

/**
 * Candidates of a turn: edit paths (made repo-relative) ∪ paths whose
 * signature differs from the turn-start snapshot.
 */
export function turnCandidates(o: {
  root: string;
  editPaths: readonly string[];
  before: Record<string, string> | null;
  now: WorkTreeView;
}): Set<string> {
  const out = new Set<string>(toRepoRelative(o.editPaths, o.root));
  if (o.before) {
    for (const [path, sig] of Object.entries(o.now.signatures)) {
      if (o.before[path] !== sig) out.add(path);
    }
    // a path that was dirty at turn start and is now back to HEAD: not a change to keep
  }
  return out;
}

/** F(s) = (files_touched ∪ candidates) ∩ paths differing from HEAD, sorted. */
export function filesTouched(previous: readonly string[] | undefined, candidates: Iterable<string>, differing: Set<string>): string[] {
  const all = new Set<string>([...(previous ?? []), ...candidates]);
  return [...all].filter((p) => differing.has(p)).sort();
}
