/**
 * The write loop shared by every metadata- and shadow-branch update: read
 * the tip, build a commit on it, move the ref by compare-and-swap, and on a
 * race rebuild on the new tip (SPEC §2.9, P7).
 */
import { EntireError } from '../errors.js';
import { committerIdent, type Ident, type Repo } from '../git/repo.js';
import { writeCommit, type CommitSpec } from '../git/fastimport.js';
import { readRef, updateRefs, deleteRefQuietly, jitter, CAS_RETRIES, type CasOutcome, type RefUpdate } from '../git/refs.js';
import { resolveRef } from '../git/discover.js';
import { Pack } from '../git/pack.js';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { runGit } from '../git/exec.js';
import { commitTree } from '../git/commit-format.js';
import { METADATA_REF, METADATA_REMOTE_REF, SHADOW_BRANCH_RE } from '../checkpoint/shadow.js';
import { INIT_MESSAGE } from '../checkpoint/messages.js';
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
  /**
   * Prepared moves of other refs (`PreparedCas.ride`) to carry in the first transaction of this
   * write: one transaction instead of several. After a race they are left to move on their own.
   */
  alsoMove?: readonly RideAlong[];
}

/**
 * The ref move of a commit built by `casPrepare`, which another write may carry in its own
 * transaction (post-commit: the note moves with the checkpoint). The carrier records what happened.
 */
export interface RideAlong {
  readonly update: RefUpdate;
  /** The carrier's transaction moved the ref. */
  carried: boolean;
  /** …and the carrier then found the commit and its tree in the newest pack (see `landed`). */
  seenLanded: boolean;
}

export async function casWrite(repo: Repo, ref: string, build: (tip: string | null) => Promise<BuildResult>, opts: CasOptions = {}): Promise<CasWriteResult> {
  const ident = await committerIdent(repo);
  let lastError: unknown;
  let riders = (opts.alsoMove ?? []).filter((r) => !r.carried);
  for (let attempt = 0; attempt < CAS_RETRIES; attempt++) {
    const cur = await currentTip(repo, ref);
    if (cur === RETRY) {
      await jitter();
      continue;
    }
    const { tip, expected } = cur;
    let spec: BuildResult;
    try {
      spec = await build(tip);
    } catch (e) {
      // a builder writing blobs (work-tree snapshots) met `git prune` removing its directory: again
      if (!prunedUnderUs(e)) throw e;
      lastError = e;
      continue;
    }
    if (spec === null) return { oid: tip, changed: false };
    const parent = opts.parentOverride ? opts.parentOverride(tip) : tip;
    mark('cas: built');
    const full = { ...spec, parent, author: ident, committer: ident };
    const written = await writeObjects(repo, full, opts);
    mark('cas: objects written');
    const moved = await moveRef(repo, ref, written.oid, expected, opts, written.tempRef, riders);
    if (moved.outcome === 'ok') return landed(repo, ref, written.oid, tip, build, opts, ident, moved.carried);
    if (written.tempRef) await deleteRefQuietly(repo, written.tempRef);
    // the ref that moved may be a rider's: this ref goes on alone, the riders move on their own
    riders = [];
    lastError = new EntireError('REF_RACE', `${ref} moved while writing`);
    await jitter();
  }
  throw new EntireError('REF_RACE', `gave up updating ${ref} after ${CAS_RETRIES} attempts`, { cause: lastError });
}

/**
 * SPEC-2 §A.11: after the ref moved, its new commit and that commit's tree
 * must still exist. `git gc --prune=now` deletes unreferenced objects however
 * fresh: when it listed the refs before our move, it prunes what we just
 * wrote and the ref names nothing. Two in-process reads (the objects were
 * just written, so they come from the file system, not a cache). If either is
 * gone, the commit is written once more on the same parent, through
 * `git fast-import` (this process remembers having written the objects and
 * would skip them), and the ref moves from the lost commit to the new one.
 */
async function landed(
  repo: Repo,
  ref: string,
  oid: string,
  tip: string | null,
  build: (tip: string | null) => Promise<BuildResult>,
  opts: CasOptions,
  ident: Ident,
  riders: readonly RideAlong[] = [],
): Promise<CasWriteResult> {
  // the riders' commits went out in the same pack: one look at it for all (theirs are noted for them)
  const inPack = await newTipsInNewestPack(repo, [oid, ...riders.map((r) => r.update.newOid!)]);
  riders.forEach((r, i) => (r.seenLanded = inPack[i + 1]!));
  const present = inPack[0]! || (await commitAndTreePresent(repo, oid));
  mark('cas: new tip checked');
  if (present) return { oid, changed: true };
  try {
    const spec = await build(tip);
    if (spec === null) return { oid, changed: true };
    const parent = opts.parentOverride ? opts.parentOverride(tip) : tip;
    const again = await writeCommit(repo.root, { ...spec, parent, author: ident, committer: ident }, { fastCompression: opts.fastCompression });
    const outcome = await updateRefs(repo, [
      { ref, newOid: again.oid, oldOid: oid },
      { ref: again.tempRef, newOid: null },
    ]);
    if (outcome === 'ok') {
      // the reflog's lines naming the lost commit would be errors to git fsck
      if (again.oid !== oid) (await import('./recover.js')).dropReflogLines(repo, ref, new Set([oid]));
      return { oid: again.oid, changed: true };
    }
    await deleteRefQuietly(repo, again.tempRef);
  } catch {
    /* the ref names the lost commit: readers skip it, `entire doctor --force` repairs it */
  }
  return { oid, changed: true };
}

/**
 * The common case of the check above, cheaply: a hook's small objects go out
 * as one new pack (src/git/pack-policy.ts), which the object reader has not
 * listed yet (finding it there means re-listing and re-opening every pack
 * index: 1–3 ms). The newest index of the pack directory is that pack: each
 * commit and its tree are looked up in it alone, and the commit is read from
 * the pack file (so that, too, still exists). false for a commit: not there
 * (loose objects, another pack, or gone): the caller asks the object reader.
 */
async function newTipsInNewestPack(repo: Repo, oids: readonly string[]): Promise<boolean[]> {
  const none = oids.map(() => false);
  const dir = join(repo.commonDir, 'objects', 'pack');
  let newest: { path: string; mtime: number } | null = null;
  try {
    for (const n of readdirSync(dir)) {
      if (!n.startsWith('pack-') || !n.endsWith('.idx')) continue;
      const mtime = statSync(join(dir, n), { throwIfNoEntry: false })?.mtimeMs ?? -1;
      if (mtime >= 0 && (!newest || mtime > newest.mtime)) newest = { path: join(dir, n), mtime };
    }
  } catch {
    return none;
  }
  if (!newest) return none;
  const hashLen = repo.objectFormat === 'sha256' ? 32 : 20;
  const pack = new Pack(newest.path, hashLen);
  try {
    const out: boolean[] = [];
    for (const oid of oids) out.push(await commitInPack(repo, pack, oid));
    return out;
  } finally {
    pack.close();
  }
}

async function commitInPack(repo: Repo, pack: Pack, oid: string): Promise<boolean> {
  try {
    const at = pack.find(Buffer.from(oid, 'hex'));
    if (at < 0) return false;
    const c = pack.read(at, () => null);
    if (c.type !== 'commit') return false;
    const tree = commitTree(c.data, repo.objectFormat);
    if (!tree) return false;
    if (pack.find(Buffer.from(tree, 'hex')) >= 0) return true;
    // an unchanged tree is the old tip's (reachable all along); a big one went out loose
    const t = await repo.objects.read(tree).catch(() => null);
    return t !== null && t.type === 'tree';
  } catch {
    return false;
  }
}

/** Whether commit `oid` and its root tree are in the object store. */
export async function commitAndTreePresent(repo: Repo, oid: string): Promise<boolean> {
  const c = await repo.objects.read(oid).catch(() => null);
  if (!c || c.type !== 'commit') return false;
  const tree = commitTree(c.data, repo.objectFormat);
  if (!tree) return false;
  const t = await repo.objects.read(tree).catch(() => null);
  return t !== null && t.type === 'tree';
}

/**
 * The object id `ref` holds, whether or not that object exists (readRef
 * answers null for both "no ref" and "names a missing object"). null: no such ref.
 */
export async function refTarget(repo: Repo, ref: string): Promise<string | null> {
  if (repo.filesRefs) {
    const v = resolveRef(repo.gitDir, repo.commonDir, ref);
    if (v !== undefined) return v;
  }
  const r = await runGit(['rev-parse', '--verify', '-q', ref], { cwd: repo.root, allowFailure: true });
  const v = r.code === 0 ? r.stdout.toString('utf8').trim() : '';
  return /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(v) ? v : null;
}

/** The error of a ref that names a missing commit (see `refTarget`). */
export function brokenRefError(ref: string, oid: string): EntireError {
  const name = ref.replace(/^refs\/heads\//, '');
  return new EntireError('CORRUPT_METADATA', `${name} names commit ${oid.slice(0, 12)}, which is missing from the object store (pruned by git gc?); run \`entire doctor --force\``, {
    detail: { ref, oid },
  });
}

/**
 * For a tip read as null: null when `ref` does not exist. When it exists and
 * names a missing commit, a shadow branch starts again (its steps are gone,
 * and a first step holds the whole dirty work tree, so the session keeps its
 * files and the next commit its trailer): the value to compare-and-swap from.
 * Any other ref throws brokenRefError at once: no CAS from "absent" could
 * succeed, and building on nothing would drop the branch's history
 * (`entire doctor --force` restores it, SPEC-2 §A.11).
 */
async function brokenTip(repo: Repo, ref: string): Promise<string | null | typeof RETRY> {
  const raw = await refTarget(repo, ref);
  if (raw === null) return null;
  // another writer may have created or moved the ref since it read as absent
  if (!(await confirmedMissing(repo, ref, raw))) return RETRY;
  if (SHADOW_BRANCH_RE.test(ref.slice('refs/heads/'.length)) && ref.startsWith('refs/heads/')) return raw;
  throw brokenRefError(ref, raw);
}

/** Throws brokenRefError when `ref` exists but names a missing object (its tip read as null). */
async function assertNotBroken(repo: Repo, ref: string): Promise<void> {
  const raw = await refTarget(repo, ref);
  if (raw !== null && (await confirmedMissing(repo, ref, raw))) throw brokenRefError(ref, raw);
}

/** The tip read as absent was a moment, not a broken ref: read it again. */
const RETRY = Symbol('retry');

/**
 * The tip to build on and the value to compare-and-swap from (they differ
 * only for a ref naming a commit that is gone, `git gc --prune=now` having won
 * a race: see brokenTip); RETRY when the ref moved under us.
 */
async function currentTip(repo: Repo, ref: string): Promise<{ tip: string | null; expected: string | null } | typeof RETRY> {
  const tip = await readRef(repo, ref);
  if (tip !== null) return { tip, expected: tip };
  const found = await brokenTip(repo, ref);
  return found === RETRY ? RETRY : { tip: null, expected: found };
}

/**
 * Whether `ref` (read as naming `raw`) really names a missing commit: it
 * still names `raw`, the in-process reader still finds no commit there, and
 * neither does git (a fresh `cat-file`, which rescans the packs). A writer
 * that created the ref, or moved it with a new pack, between our two reads
 * is a race to retry, not a broken ref. Only reached when a tip read as
 * absent while the ref exists.
 */
async function confirmedMissing(repo: Repo, ref: string, raw: string): Promise<boolean> {
  if ((await readRef(repo, ref)) !== null) return false;
  if ((await refTarget(repo, ref)) !== raw) return false;
  const r = await runGit(['cat-file', '-e', `${raw}^{commit}`], { cwd: repo.root, allowFailure: true });
  return r.code !== 0;
}

/**
 * Write the commit `full` describes: in-process when the repository allows
 * it, else (or when `git prune` pulled the ground away) through fast-import.
 */
async function writeObjects(repo: Repo, full: CommitSpec & { author: Ident }, opts: CasOptions): Promise<{ oid: string; tempRef: string | null }> {
  if (looseOk(repo)) {
    try {
      return { oid: await writeCommitLoose(repo, full), tempRef: null };
    } catch (e) {
      if (!prunedUnderUs(e)) throw e;
      // objects this process wrote just before may be gone with it: git writes them all again
    }
  }
  return writeCommit(repo.root, full, { fastCompression: opts.fastCompression });
}

/**
 * `git prune` (gc) removes empty `objects/<xx>/` directories and, with
 * `--prune=now`, temporary object files however fresh: a write whose
 * directory or temporary file vanished under it fails with ENOENT on a path
 * in the object store (git itself retries there).
 */
function prunedUnderUs(e: unknown): boolean {
  const err = e as NodeJS.ErrnoException;
  return err?.code === 'ENOENT' && typeof err.path === 'string' && /[\\/]objects[\\/]/.test(err.path);
}

/**
 * The compare-and-swap itself: `ref` from `tip` to `oid`, with what rides along in the
 * transaction. Riders join only when their objects are written and their refs are not in the
 * transaction already; a transaction they make fail for another reason than a race (a lock
 * someone holds on their ref) is tried again without them: they never cost this write.
 */
async function moveRef(
  repo: Repo,
  ref: string,
  oid: string,
  tip: string | null,
  opts: CasOptions,
  tempRef: string | null,
  riders: readonly RideAlong[] = [],
): Promise<{ outcome: CasOutcome; carried: RideAlong[] }> {
  fault('cas-before-update-ref');
  const extra = opts.alsoDelete ? await readRef(repo, opts.alsoDelete) : null;
  const own: RefUpdate[] = [
    { ref, newOid: oid, oldOid: tip, ...(opts.startReflog === false ? { startReflog: false } : {}) },
    ...(tempRef ? [{ ref: tempRef, newOid: null }] : []),
    ...(extra && opts.alsoDelete ? [{ ref: opts.alsoDelete, newOid: null, oldOid: extra }] : []),
  ];
  const joining = ridersReady(repo, riders, own);
  let outcome: CasOutcome;
  let carried = joining;
  try {
    outcome = await updateRefs(repo, [...own, ...joining.map((r) => r.update)]);
  } catch (e) {
    if (joining.length === 0) throw e;
    outcome = await updateRefs(repo, own);
    carried = [];
  }
  mark('cas: ref updated');
  if (outcome !== 'ok') return { outcome, carried: [] };
  for (const r of carried) r.carried = true;
  fault('cas-after-update-ref');
  return { outcome, carried };
}

/** The riders that may join a transaction of `own`: objects written (held ones flushed now), refs not in it yet. */
function ridersReady(repo: Repo, riders: readonly RideAlong[], own: readonly RefUpdate[]): RideAlong[] {
  const taken = new Set(own.map((u) => u.ref));
  const ready: RideAlong[] = [];
  for (const r of riders) {
    if (r.carried || taken.has(r.update.ref)) continue;
    taken.add(r.update.ref);
    ready.push(r);
  }
  if (ready.length === 0) return [];
  try {
    flushHeld(repo); // in the common case the write just made took them along: nothing left
  } catch (e) {
    if (!prunedUnderUs(e)) throw e;
    return []; // each rider writes its objects again itself
  }
  return ready;
}

/** A commit built on a ref's tip whose objects are held back (see `casPrepare`). */
export interface PreparedCas {
  /** The ref move, for another write to carry in its transaction (`CasOptions.alsoMove`); null: none to carry. */
  readonly ride: RideAlong | null;
  /**
   * Write the held objects if no other write took them along, then CAS the ref (rebuilding on a
   * race); when a carrier moved the ref already, only check that the commit landed.
   */
  commit(): Promise<CasWriteResult>;
}

/**
 * casWrite in two halves: build the commit on the current tip now, holding
 * its small objects back (src/git/odb.ts) so the next commit write of this
 * process packs them together with its own; move the ref in `commit()`, or
 * in that next write's ref transaction (`ride`). post-commit prepares its
 * carry-forward step and the note this way before it writes the checkpoint:
 * one pack for all three, and the note's ref moves with the checkpoint's.
 */
export async function casPrepare(repo: Repo, ref: string, build: (tip: string | null) => Promise<BuildResult>, opts: CasOptions = {}): Promise<PreparedCas> {
  const later = (): PreparedCas => ({ ride: null, commit: () => casWrite(repo, ref, build, opts) });
  if (!looseOk(repo)) return later();
  const cur = await currentTip(repo, ref);
  if (cur === RETRY) return later();
  const { tip, expected } = cur;
  let spec: BuildResult;
  try {
    spec = await build(tip);
  } catch (e) {
    if (!prunedUnderUs(e)) throw e;
    return later();
  }
  if (spec === null) return { ride: null, commit: async () => ({ oid: tip, changed: false }) };
  const ident = await committerIdent(repo);
  const parent = opts.parentOverride ? opts.parentOverride(tip) : tip;
  const oid = await writeCommitLoose(repo, { ...spec, parent, author: ident, committer: ident }, { hold: true });
  const ride: RideAlong = {
    update: { ref, newOid: oid, oldOid: expected, ...(opts.startReflog === false ? { startReflog: false } : {}) },
    carried: false,
    seenLanded: false,
  };
  return {
    ride,
    commit: async () => {
      if (ride.carried) return ride.seenLanded ? { oid, changed: true } : landed(repo, ref, oid, tip, build, opts, ident);
      try {
        flushHeld(repo);
      } catch (e) {
        if (!prunedUnderUs(e)) throw e;
        return casWrite(repo, ref, build, opts);
      }
      if ((await moveRef(repo, ref, oid, expected, opts, null)).outcome === 'ok') return landed(repo, ref, oid, tip, build, opts, ident);
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
    // a ref naming a missing commit is not "no branch": a new root would drop its history
    await assertNotBroken(repo, METADATA_REF);
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

/**
 * A metadata branch tip for reading: local, else the first readable
 * remote-tracking copy (src/store/sources.ts). A ref naming a commit (or a
 * root tree) that is missing is passed over (SPEC-2 §A.11, §E.3): `entire
 * doctor` reports the ref. Readers of checkpoints use the union of all
 * sources (store/committed.ts); this answers "is there any branch at all".
 */
export async function metadataTipForRead(repo: Repo): Promise<string | null> {
  const { metadataSources } = await import('./sources.js');
  return (await metadataSources(repo))[0]?.tip ?? null;
}
