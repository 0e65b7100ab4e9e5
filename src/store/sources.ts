/**
 * Where checkpoint data is read from (SPEC-2 §E.1): the local
 * `entire/checkpoints/v1` and every remote-tracking copy of it
 * (`refs/remotes/<r>/entire/checkpoints/v1`; only the checkpoint remote's
 * when `checkpoint_remote` is set). Writers write only the local branch.
 *
 * A ref naming a missing commit or root tree is passed over (SPEC-2 §A.11,
 * §E.3): `entire doctor` reports it. Tracking refs are found without
 * spawning git on the files backend (prepare-commit-msg asks whether an ID is
 * taken and starts no process); reftable repositories ask `git for-each-ref`.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Repo } from '../git/repo.js';
import { listRefs } from '../git/refs.js';
import { isValidRefName } from '../git/ref-format.js';
import { METADATA_BRANCH, METADATA_REF } from '../checkpoint/shadow.js';
import { readCommit } from './tree.js';
import { loadSettings } from '../settings/settings.js';
import { checkpointRemoteSetting } from '../sync/checkpoint-remote.js';

export interface MetadataSource {
  ref: string;
  /** The commit read. */
  tip: string;
  /** The remote a tracking ref belongs to; undefined for the local branch. */
  remote?: string;
}

const SUFFIX = '/' + METADATA_BRANCH;

/** `refs/remotes/<remote>/entire/checkpoints/v1`. */
export function trackingRef(remote: string): string {
  return `refs/remotes/${remote}${SUFFIX}`;
}

function remoteOf(ref: string): string | null {
  if (!ref.startsWith('refs/remotes/') || !ref.endsWith(SUFFIX)) return null;
  const r = ref.slice('refs/remotes/'.length, -SUFFIX.length);
  return r === '' ? null : r;
}

/** Every `refs/remotes/*\/entire/checkpoints/v1` that exists (names only), sorted. */
export async function trackingRefs(repo: Repo): Promise<string[]> {
  const common = repo.commonDir;
  if (existsSync(join(common, 'reftable'))) {
    return (await listRefs(repo, 'refs/remotes/')).map((r) => r.ref).filter((r) => remoteOf(r) !== null).sort();
  }
  const found = new Set<string>();
  let remotes: string[] = [];
  try {
    remotes = readdirSync(join(common, 'refs', 'remotes'));
  } catch {
    /* none */
  }
  for (const r of remotes) {
    const ref = trackingRef(r);
    if (isValidRefName(ref) && existsSync(join(common, ref))) found.add(ref);
  }
  let packed = '';
  try {
    packed = readFileSync(join(common, 'packed-refs'), 'utf8');
  } catch {
    /* none */
  }
  if (packed.includes(SUFFIX)) {
    for (const line of packed.split('\n')) {
      const ref = line.slice(line.indexOf(' ') + 1);
      if (line.startsWith('#') || line.startsWith('^') || remoteOf(ref) === null || !isValidRefName(ref)) continue;
      found.add(ref);
    }
  }
  return [...found].sort();
}

/** The refs readers consult, local first; `onlyRemote` limits tracking refs to that remote (checkpoint_remote). */
export async function sourceRefs(repo: Repo, onlyRemote?: string | null): Promise<string[]> {
  const tracking = await trackingRefs(repo);
  const wanted = onlyRemote ? tracking.filter((r) => remoteOf(r) === onlyRemote) : tracking;
  // origin first among remotes: a checkpoint both hold is shown as origin has it
  wanted.sort((a, b) => Number(remoteOf(b) === 'origin') - Number(remoteOf(a) === 'origin'));
  return [METADATA_REF, ...wanted];
}

/** The readable sources (commit and root tree present), local first. */
export async function metadataSources(repo: Repo, onlyRemote?: string | null): Promise<MetadataSource[]> {
  const out: MetadataSource[] = [];
  const seen = new Set<string>();
  for (const ref of await sourceRefs(repo, onlyRemote)) {
    const c = await readCommit(repo, ref).catch(() => null);
    if (!c) continue;
    const tree = await repo.objects.read(c.tree).catch(() => null);
    if (!tree || tree.type !== 'tree') continue;
    if (seen.has(c.oid)) continue; // a tracking ref at our own tip adds nothing
    seen.add(c.oid);
    const remote = remoteOf(ref);
    out.push(remote === null ? { ref, tip: c.oid } : { ref, tip: c.oid, remote });
  }
  return out;
}

const readerRemote = new WeakMap<Repo, Promise<string | null | false>>();

/**
 * The remote whose tracking ref readers may use: null = every remote, false =
 * none (checkpoint_remote is set to something that is not a remote name:
 * fail closed). Read once per opened repository.
 */
async function readersRemote(repo: Repo): Promise<string | null | false> {
  let p = readerRemote.get(repo);
  if (!p) {
    p = (async () => {
      let s;
      try {
        s = checkpointRemoteSetting(loadSettings(repo.root).settings);
      } catch {
        return null; // broken settings: the command reports them; reading stays as without the key
      }
      return s.kind === 'unset' ? null : s.kind === 'remote' ? s.name : false;
    })();
    readerRemote.set(repo, p);
  }
  return p;
}

/** SPEC-2 §E.1: the sources readers union, local first. */
export async function readerSources(repo: Repo): Promise<MetadataSource[]> {
  const only = await readersRemote(repo);
  if (only === false) return (await metadataSources(repo)).filter((s) => s.remote === undefined);
  return metadataSources(repo, only);
}
