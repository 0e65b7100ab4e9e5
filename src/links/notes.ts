/**
 * SPEC-2 §D.1: `refs/notes/entire`, a secondary index from commits to their
 * checkpoint ids. Trailers stay the primary link; a note is written only once
 * its checkpoint exists and never creates one. Reads are in-process (the note
 * tree may use git's fanout, `ab/cdef…`); writes go through the same
 * compare-and-swap loop as the metadata branch, one notes commit per call.
 */
import type { Repo } from '../git/repo.js';
import { casPrepare, casWrite, type BuildResult, type PreparedCas } from '../store/branch.js';
import { readRef, listRefs } from '../git/refs.js';
import { parseTree, isTreeMode } from '../git/objects.js';
import { parseNoteIds, renderNote } from './note-format.js';
import type { TreeChange } from '../git/fastimport.js';

export const NOTES_REF = 'refs/notes/entire';
/** Where pre-push and `git fetch` (enable's refspec) keep each remote's notes (SPEC-2 §E.4). */
export const NOTES_TRACKING_PREFIX = 'refs/entire/remotes/';
export const NOTES_MESSAGE = "Notes added by 'entire'\n";

function oidHexLength(repo: Repo): number {
  return repo.objectFormat === 'sha256' ? 64 : 40;
}

/**
 * Where a new note goes: one fanout level, `ab/cdef…`, so a write rewrites a
 * root of at most 256 entries and one small subtree however many commits are
 * noted (a flat tree of 10,000 notes is ~500 KB to hash and deflate per
 * write). git reads mixed fanouts, and rewrites them its own way when it
 * writes the ref.
 */
export function notePath(commit: string): string {
  return `${commit.slice(0, 2)}/${commit.slice(2)}`;
}

/** Paths a note for `commit` may sit at: flat, or under one or two fanout levels. */
function notePaths(commit: string): string[] {
  return [commit, `${commit.slice(0, 2)}/${commit.slice(2)}`, `${commit.slice(0, 2)}/${commit.slice(2, 4)}/${commit.slice(4)}`];
}

/** The note of `commit` in notes commit `tip`: its path and ids, or null. */
async function noteAt(repo: Repo, tip: string, commit: string): Promise<{ path: string; ids: string[] } | null> {
  for (const path of notePaths(commit)) {
    const o = await repo.objects.read(`${tip}:${path}`);
    if (o && o.type === 'blob') return { path, ids: parseNoteIds(o.data) };
  }
  return null;
}

function isCommitOid(repo: Repo, s: string): boolean {
  return s.length === oidHexLength(repo) && /^[0-9a-f]+$/.test(s);
}

/** The ids the local notes ref lists for `commit` (none when there is no ref or note). */
export async function readNoteIds(repo: Repo, commit: string, ref = NOTES_REF): Promise<string[]> {
  if (!isCommitOid(repo, commit)) return [];
  const tip = await readRef(repo, ref);
  if (!tip) return [];
  return (await noteAt(repo, tip, commit))?.ids ?? [];
}

/** The remotes' notes refs pre-push and `git fetch` left (read by commands, SPEC-2 §D.5). */
export async function trackingNotesRefs(repo: Repo): Promise<string[]> {
  return (await listRefs(repo, NOTES_TRACKING_PREFIX)).map((r) => r.ref).filter((r) => /\/notes\/entire$/.test(r));
}

/**
 * Add `ids` to the notes of commits (union with what is there), in one notes
 * commit. A commit whose note already lists them all is left alone; nothing
 * changes when no note would.
 */
export async function addNoteIds(repo: Repo, additions: ReadonlyMap<string, readonly string[]>): Promise<boolean> {
  const build = noteBuilder(repo, additions);
  if (!build) return false;
  return (await casWrite(repo, NOTES_REF, build, { startReflog: false })).changed;
}

/**
 * addNoteIds in two halves, for post-commit: the notes commit is built now and its objects held
 * for the checkpoint's pack (src/store/branch.ts#casPrepare); its ref move rides in the
 * checkpoint's transaction (`ride`), or `commit()` moves the ref.
 */
export async function prepareNoteIds(repo: Repo, additions: ReadonlyMap<string, readonly string[]>): Promise<PreparedCas> {
  const build = noteBuilder(repo, additions);
  if (!build) return { ride: null, commit: async () => ({ oid: null, changed: false }) };
  return casPrepare(repo, NOTES_REF, build, { startReflog: false });
}

/** The CAS builder adding `additions` to the notes tree of a tip; null when there is nothing to add. */
function noteBuilder(repo: Repo, additions: ReadonlyMap<string, readonly string[]>): ((tip: string | null) => Promise<BuildResult>) | null {
  const wanted = [...additions].filter(([commit, ids]) => isCommitOid(repo, commit) && ids.length > 0);
  if (wanted.length === 0) return null;
  return async (tip) => {
      const changes: TreeChange[] = [];
      for (const [commit, ids] of wanted) {
        const cur = tip ? await noteAt(repo, tip, commit) : null;
        const have = cur?.ids ?? [];
        const known = new Set(have);
        if (ids.every((id) => known.has(id)) && cur !== null) continue;
        changes.push({ op: 'put', path: cur?.path ?? notePath(commit), content: renderNote([...have, ...ids]) });
      }
      return changes.length === 0 ? null : { message: NOTES_MESSAGE, changes };
  };
}

/**
 * Every note of a notes tree as commit → ids, following fanout directories.
 * The tree is untrusted (a remote's): only hex names that add up to an object
 * id, blobs only, and valid id lines count.
 */
export async function readAllNotes(repo: Repo, tree: string): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  const want = oidHexLength(repo);
  async function walk(oid: string, prefix: string, depth: number): Promise<void> {
    const o = await repo.objects.read(oid);
    if (!o || o.type !== 'tree') return;
    for (const e of parseTree(o.data, repo.objectFormat)) {
      if (!/^[0-9a-f]+$/.test(e.name)) continue;
      const name = prefix + e.name;
      if (isTreeMode(e.mode)) {
        if (e.name.length === 2 && depth < 3 && name.length < want) await walk(e.oid, name, depth + 1);
      } else if (e.mode === '100644' && name.length === want) {
        const b = await repo.objects.read(e.oid);
        if (!b || b.type !== 'blob') continue;
        const ids = parseNoteIds(b.data);
        if (ids.length > 0) out.set(name, [...new Set([...(out.get(name) ?? []), ...ids])]);
      }
    }
  }
  await walk(tree, '', 0);
  return out;
}
