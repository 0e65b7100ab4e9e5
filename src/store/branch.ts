/**
 * The write loop shared by every metadata- and shadow-branch update: read
 * the tip, build a commit on it, move the ref by compare-and-swap, and on a
 * race rebuild on the new tip (SPEC §2.9, P7).
 */
import { EntireError } from '../errors.js';
import { committerIdent, type Repo } from '../git/repo.js';
import { writeCommit, type CommitSpec } from '../git/fastimport.js';
import { readRef, updateRefs, deleteRefQuietly, jitter, CAS_RETRIES, type CasOutcome } from '../git/refs.js';
import { METADATA_REF, METADATA_REMOTE_REF } from '../checkpoint/shadow.js';
import { INIT_MESSAGE } from '../checkpoint/messages.js';
import { readCommit } from './tree.js';
import { canWriteLoose, flushHeld, writeCommitLoose } from '../git/odb.js';

const looseChecked = new WeakMap<Repo, boolean>();
/** In-process object writing when the repository allows it (see src/git/odb.ts); else fast-import. */
function looseOk(repo: Repo): boolean {
  let ok = looseChecked.get(repo);
  if (ok === undefined) {
    ok = process.env['ENTIRE_WRITER'] !== 'fast-import' && canWriteLoose(repo);
    looseChecked.set(repo, ok);
  }
  return ok;
}
import { mark } from '../timing.js';
import { fault } from '../faults.js';

/** What a builder returns: a commit to write, or null when nothing changes. */
export type BuildResult = Omit<CommitSpec, 'author' | 'committer' | 'parent'> | null;

export interface CasWriteResult {
  /** The ref's value afterwards. */
  oid: string | null;
  /** Whether a new commit was written. */
  changed: boolean;
}

/**
 * Run `build(tip)` and CAS the result onto `ref`, retrying on races with the
 * builder re-run on the new tip. `build` must be a pure function of the tip.
 */
export interface CasOptions {
  parentOverride?: (tip: string | null) => string | null;
  fastCompression?: boolean;
  /** Another ref to delete in the same transaction (if it exists): saves a spawn, and both happen or neither. */
  alsoDelete?: string;
  /** false: start no reflog for `ref` (one that exists still grows). */
  startReflog?: boolean;
}

export async function casWrite(repo: Repo, ref: string, build: (tip: string | null) => Promise<BuildResult>, opts: CasOptions = {}): Promise<CasWriteResult> {
  const ident = await committerIdent(repo);
  let lastError: unknown;
  for (let attempt = 0; attempt < CAS_RETRIES; attempt++) {
    const tip = await readRef(repo, ref);
    const spec = await build(tip);
    if (spec === null) return { oid: tip, changed: false };
    const parent = opts.parentOverride ? opts.parentOverride(tip) : tip;
    mark('cas: built');
    const full = { ...spec, parent, author: ident, committer: ident };
    const written = looseOk(repo)
      ? { oid: await writeCommitLoose(repo, full), tempRef: null }
      : await writeCommit(repo.root, full, { fastCompression: opts.fastCompression });
    mark('cas: objects written');
    if ((await moveRef(repo, ref, written.oid, tip, opts, written.tempRef)) === 'ok') return { oid: written.oid, changed: true };
    if (written.tempRef) await deleteRefQuietly(repo, written.tempRef);
    lastError = new EntireError('REF_RACE', `${ref} moved while writing`);
    await jitter();
  }
  throw new EntireError('REF_RACE', `gave up updating ${ref} after ${CAS_RETRIES} attempts`, { cause: lastError });
}

/** The compare-and-swap itself: `ref` from `tip` to `oid`, with what rides along in the transaction. */
async function moveRef(repo: Repo, ref: string, oid: string, tip: string | null, opts: CasOptions, tempRef: string | null): Promise<CasOutcome> {
  fault('cas-before-update-ref');
  const extra = opts.alsoDelete ? await readRef(repo, opts.alsoDelete) : null;
  const outcome = await updateRefs(repo, [
    { ref, newOid: oid, oldOid: tip, ...(opts.startReflog === false ? { startReflog: false } : {}) },
    ...(tempRef ? [{ ref: tempRef, newOid: null }] : []),
    ...(extra && opts.alsoDelete ? [{ ref: opts.alsoDelete, newOid: null, oldOid: extra }] : []),
  ]);
  mark('cas: ref updated');
  if (outcome === 'ok') fault('cas-after-update-ref');
  return outcome;
}

/** A commit built on a ref's tip whose objects are held back (see `casPrepare`). */
export interface PreparedCas {
  /** Write the held objects if no other write took them along, then CAS the ref (rebuilding on a race). */
  commit(): Promise<CasWriteResult>;
}

/**
 * casWrite in two halves: build the commit on the current tip now, holding
 * its small objects back (src/git/odb.ts) so the next commit write of this
 * process packs them together with its own; move the ref in `commit()`.
 * post-commit prepares its carry-forward step this way before it writes the
 * checkpoint: one pack for both, two file creations fewer.
 */
export async function casPrepare(repo: Repo, ref: string, build: (tip: string | null) => Promise<BuildResult>, opts: CasOptions = {}): Promise<PreparedCas> {
  if (!looseOk(repo)) return { commit: () => casWrite(repo, ref, build, opts) };
  const tip = await readRef(repo, ref);
  const spec = await build(tip);
  if (spec === null) return { commit: async () => ({ oid: tip, changed: false }) };
  const ident = await committerIdent(repo);
  const parent = opts.parentOverride ? opts.parentOverride(tip) : tip;
  const oid = await writeCommitLoose(repo, { ...spec, parent, author: ident, committer: ident }, { hold: true });
  return {
    commit: async () => {
      flushHeld(repo);
      if ((await moveRef(repo, ref, oid, tip, opts, null)) === 'ok') return { oid, changed: true };
      // the ref moved since the tip was read: the usual loop, on the new tip
      return casWrite(repo, ref, build, opts);
    },
  };
}

/**
 * Make sure `entire/checkpoints/v1` exists: from the remote-tracking ref when
 * only that exists (never a second root), else a parentless commit with the
 * empty tree. Returns the tip.
 */
export async function ensureMetadataBranch(repo: Repo): Promise<string> {
  for (let attempt = 0; attempt < CAS_RETRIES; attempt++) {
    const tip = await readRef(repo, METADATA_REF);
    if (tip) return tip;
    const remote = await readRef(repo, METADATA_REMOTE_REF);
    let oid: string;
    let tempRef: string | null = null;
    if (remote) {
      oid = remote;
    } else {
      const ident = await committerIdent(repo);
      const init = { message: INIT_MESSAGE, changes: [], author: ident, committer: ident };
      if (looseOk(repo)) {
        oid = await writeCommitLoose(repo, init);
      } else {
        const w = await writeCommit(repo.root, init);
        oid = w.oid;
        tempRef = w.tempRef;
      }
    }
    const updates = [{ ref: METADATA_REF, newOid: oid, oldOid: null as string | null }];
    const outcome = await updateRefs(repo, tempRef ? [...updates, { ref: tempRef, newOid: null }] : updates);
    if (outcome === 'ok') return oid;
    if (tempRef) await deleteRefQuietly(repo, tempRef);
  }
  const tip = await readRef(repo, METADATA_REF);
  if (tip) return tip;
  throw new EntireError('REF_RACE', 'cannot create entire/checkpoints/v1');
}

/** The metadata branch tip for reading: local, else the remote-tracking ref. */
export async function metadataTipForRead(repo: Repo): Promise<string | null> {
  const local = await readCommit(repo, METADATA_REF);
  if (local) return local.oid;
  const remote = await readCommit(repo, METADATA_REMOTE_REF);
  return remote ? remote.oid : null;
}
