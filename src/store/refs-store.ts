/**
 * The refs-v1 backend (SPEC-3 §A.2–A.3), reading side: one ref per
 * checkpoint, `refs/entire/checkpoints/<last two characters>/<id>`, whose tip
 * commit's root tree is the checkpoint (v1's `<id[:2]>/<id[2:]>/` subtree).
 * Readers read the tip. Refs are selected by shape: any other name under the
 * prefix is not a checkpoint. The tree is read with v1's codec at base `''`,
 * so every variant Go writes (key order, compact JSON, `/0/…` session paths,
 * chunked transcripts, extra files) reads as on the branch.
 *
 * A lookup resolves one ref name in-process (src/git/discover.ts#resolveRef:
 * a loose file or packed-refs), so the hooks that ask "is this id taken?"
 * start no process; only listings ask `git for-each-ref`.
 */
import type { Repo } from '../git/repo.js';
import { listRefs } from '../git/refs.js';
import { CHECKPOINT_REFS_PREFIX, checkpointIdOfRef, checkpointRef, isCheckpointId } from '../checkpoint/id.js';
import { decodeRootMetadata } from '../checkpoint/metadata.js';
import type { CheckpointBackend } from './checkpoint-store.js';
import { viewAt, type CheckpointListItem, type CheckpointView } from './committed.js';
import { readCommit } from './tree.js';

/** The commit a checkpoint ref points at, when it is a commit with a readable root tree. */
export async function checkpointRefTip(repo: Repo, id: string): Promise<string | null> {
  if (!isCheckpointId(id)) return null;
  const c = await readCommit(repo, checkpointRef(id)).catch(() => null);
  if (!c) return null;
  const tree = await repo.objects.read(c.tree).catch(() => null);
  return tree && tree.type === 'tree' ? c.oid : null;
}

/** Every checkpoint ref, by shape (`id` → tip), sorted by id. */
export async function checkpointRefs(repo: Repo): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const { ref, oid } of await listRefs(repo, CHECKPOINT_REFS_PREFIX)) {
    const id = checkpointIdOfRef(ref);
    if (id !== null) out.set(id, oid);
  }
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

async function readAt(repo: Repo, id: string): Promise<CheckpointView | null> {
  const tip = await checkpointRefTip(repo, id);
  if (!tip) return null;
  return viewAt(repo, tip, id, '');
}

async function rootOf(repo: Repo, id: string, tip: string): Promise<CheckpointListItem> {
  const md = await repo.objects.read(`${tip}:metadata.json`).catch(() => null);
  if (!md || md.type !== 'blob') return { checkpointId: id, root: null };
  try {
    return { checkpointId: id, root: decodeRootMetadata(JSON.parse(md.data.toString('utf8')), id) };
  } catch {
    return { checkpointId: id, root: null, error: `corrupt metadata.json at ${checkpointRef(id)}:metadata.json` };
  }
}

export const refsStore: CheckpointBackend = {
  kind: 'git-refs',
  read: (repo, id) => readAt(repo, id),
  has: async (repo, id) => {
    if (!isCheckpointId(id)) return false;
    // resolved in-process on the files backend (loose ref or packed-refs): no process
    const c = await repo.objects.read(`${checkpointRef(id)}^{commit}`).catch(() => null);
    return c !== null;
  },
  list: async (repo) => Promise.all([...(await checkpointRefs(repo))].map(([id, tip]) => rootOf(repo, id, tip))),
};
