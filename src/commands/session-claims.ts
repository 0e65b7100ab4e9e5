/**
 * Which stored slot speaks for a session (issue 25 point 2). Any teammate can push a checkpoint
 * whose slot claims *your* session id, and a note on `refs/notes/entire` linking your commits to
 * it; the "only if it extends ours" merge rule (SPEC-2 §A.7) holds inside one checkpoint, not
 * across checkpoints. So readers that restore a session (`resume`, `rewind`) pick among every
 * slot claiming it: one linked by a commit's own trailer first (a note-only link never replaces
 * a trailer-linked one), then the newest commit, then the longest transcript that extends the
 * others there. `explain` says which links came from a note and whose.
 */
import type { Repo } from '../git/repo.js';
import { runGit } from '../git/exec.js';
import { allCheckpointIds } from '../checkpoint/trailers.js';
import { noteIdsOf } from '../links/commit-ids.js';
import { NOTES_REF, notePath, trackingNotesRefs } from '../links/notes.js';
import { readRef } from '../git/refs.js';
import { readCheckpoint, readSessionContent } from '../store/routing.js';
import { isCheckpointId, sessionIdProblem } from '../trust/ids.js';
import { firstParentCommits } from '../git/first-parent.js';

/** How a commit links a checkpoint: its message's trailer, or only a note (SPEC-2 §D.5). */
export type LinkVia = 'trailer' | 'note';

export interface LinkedId {
  id: string;
  via: LinkVia;
}

/** `linkedIds` (trailers, then notes) with where each id came from. */
export async function linkedIdsWithSource(repo: Repo, commit: string, message: string): Promise<LinkedId[]> {
  const trailers = allCheckpointIds(message);
  const out: LinkedId[] = trailers.map((id) => ({ id, via: 'trailer' }));
  for (const id of await noteIdsOf(repo, commit)) if (!out.some((l) => l.id === id)) out.push({ id, via: 'note' });
  return out;
}

/** One slot claiming a session, where it is linked. */
export interface SessionClaim {
  checkpointId: string;
  slot: number;
  /** The linking commit and its first-parent position (0 = newest). */
  commit: string;
  commitIndex: number;
  via: LinkVia;
  /** The slot's agent (display name) as stored. */
  agent: string;
}

/** Every slot claiming each valid session id in `rev`'s first-parent history (≤ `max` commits), newest first. */
export async function sessionClaims(repo: Repo, rev: string, max: number): Promise<Map<string, SessionClaim[]>> {
  const out = new Map<string, SessionClaim[]>();
  const commits = await firstParentCommits(repo, rev, max);
  for (let i = 0; i < commits.length; i++) {
    const c = commits[i]!;
    for (const link of await linkedIdsWithSource(repo, c.sha, c.message)) {
      if (!isCheckpointId(link.id)) continue;
      const view = await readCheckpoint(repo, link.id).catch(() => null);
      for (const s of view?.sessions ?? []) {
        const sid = s.metadata.session_id;
        if (sessionIdProblem(sid) !== null) continue;
        const list = out.get(sid) ?? [];
        list.push({ checkpointId: link.id, slot: s.slot < 0 ? 0 : s.slot, commit: c.sha, commitIndex: i, via: link.via, agent: s.metadata.agent ?? '' });
        out.set(sid, list);
      }
    }
  }
  return out;
}

/**
 * The claim to restore a session from, among `claims` (newest commit first): trailer-linked
 * ones if any (a note-only link never replaces them), at the newest commit that has one; of
 * several there, the longest transcript that extends all the others, else the first.
 */
export async function preferredClaim<T extends Pick<SessionClaim, 'checkpointId' | 'slot' | 'commitIndex' | 'via'>>(repo: Repo, claims: readonly T[]): Promise<T | undefined> {
  const trailer = claims.filter((c) => c.via === 'trailer');
  const pool = trailer.length > 0 ? trailer : claims;
  const first = pool[0];
  if (!first) return undefined;
  const atNewest = pool.filter((c) => c.commitIndex === first.commitIndex);
  if (atNewest.length === 1) return first;
  const texts = await Promise.all(
    atNewest.map(async (c) => (await readSessionContent(repo, c.checkpointId, { slot: c.slot }).catch(() => null))?.transcript ?? Buffer.alloc(0)),
  );
  let best = -1;
  for (let i = 0; i < atNewest.length; i++) {
    const t = texts[i]!;
    const extendsAll = texts.every((o) => o.length <= t.length && t.subarray(0, o.length).equals(o));
    if (extendsAll && (best < 0 || t.length > texts[best]!.length)) best = i;
  }
  return atNewest[best < 0 ? 0 : best];
}

/**
 * Who added `checkpointId` to the note of `commit`: the author (`Name <email>`, as the notes
 * commit claims it) of the oldest notes commit that put it there, local ref first, then each
 * remote's; null when no notes history names it.
 */
export async function noteAuthor(repo: Repo, commit: string, checkpointId: string): Promise<string | null> {
  if (!isCheckpointId(checkpointId) || !/^[0-9a-f]{40,64}$/.test(commit)) return null;
  const refs = [...((await readRef(repo, NOTES_REF)) ? [NOTES_REF] : []), ...(await trackingNotesRefs(repo).catch(() => []))];
  const paths = [commit, notePath(commit), `${commit.slice(0, 2)}/${commit.slice(2, 4)}/${commit.slice(4)}`];
  for (const ref of refs) {
    const r = await runGit(['log', '--reverse', `-S${checkpointId}`, '--format=%an <%ae>', ref, '--', ...paths], { cwd: repo.root, allowFailure: true });
    const first = r.code === 0 ? r.stdout.toString('utf8').split('\n').find((l) => l.trim() !== '') : undefined;
    if (first) return first.trim();
  }
  return null;
}

/**
 * For checkpoint `checkpointId` linked to `commit`: when only a note links it there, each of its
 * sessions that a trailer-linked checkpoint also claims (in HEAD's ≤ `max` first-parent
 * commits), mapped to that checkpoint; empty when a trailer links it.
 */
export async function noteOnlyOverrides(repo: Repo, commit: string, checkpointId: string, max: number): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const c = (await firstParentCommits(repo, commit, 1))[0];
  if (!c || allCheckpointIds(c.message).includes(checkpointId)) return out;
  for (const [sid, claims] of await sessionClaims(repo, 'HEAD', max)) {
    // a checkpoint some commit's trailer links (a note copying a link after a rewrite) is not note-only
    if (claims.some((x) => x.checkpointId === checkpointId && x.via === 'trailer')) continue;
    const mine = claims.find((x) => x.via === 'trailer');
    if (mine) out.set(sid, mine.checkpointId);
  }
  return out;
}
