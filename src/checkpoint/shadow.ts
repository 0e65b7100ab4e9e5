import { crypto } from '../builtins.js';
/** SPEC §2.1: shadow branch names `entire/<base7>-<wt6>`. */

export const SHADOW_BRANCH_RE = /^entire\/([0-9a-f]{7,})(?:-([0-9a-f]{6}))?$/;
export const METADATA_BRANCH = 'entire/checkpoints/v1';
export const METADATA_REF = 'refs/heads/entire/checkpoints/v1';
export const METADATA_REMOTE_REF = 'refs/remotes/origin/entire/checkpoints/v1';

// the main worktree's is constant (SHA-256 of ""): most hooks need no hashing at all
const hashes = new Map<string, string>([['', 'e3b0c4']]);

/** First 6 hex of SHA-256 of the worktree ID (`""` for the main worktree). */
export function worktreeHash(worktreeId: string): string {
  let h = hashes.get(worktreeId);
  if (h === undefined) {
    h = crypto().createHash('sha256').update(worktreeId, 'utf8').digest('hex').slice(0, 6);
    hashes.set(worktreeId, h);
  }
  return h;
}

export function shadowBranchName(baseCommit: string, worktreeId: string): string {
  return `entire/${baseCommit.slice(0, 7)}-${worktreeHash(worktreeId)}`;
}

export function shadowRef(baseCommit: string, worktreeId: string): string {
  return `refs/heads/${shadowBranchName(baseCommit, worktreeId)}`;
}

/** Parse at the last `-`; the legacy `entire/<base7>` form belongs to the main worktree. */
export function parseShadowBranch(name: string): { base: string; worktreeHash: string } | null {
  const short = name.startsWith('refs/heads/') ? name.slice('refs/heads/'.length) : name;
  const m = SHADOW_BRANCH_RE.exec(short);
  if (!m || !m[1]) return null;
  return { base: m[1], worktreeHash: m[2] ?? worktreeHash('') };
}
