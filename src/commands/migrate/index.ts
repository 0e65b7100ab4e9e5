/**
 * SPEC-3 §A.9 `entire migrate --to refs [--dry-run]`: copy every checkpoint of
 * the local `entire/checkpoints/v1` branch to a hex-named ref
 * `refs/entire/checkpoints/<last two>/<id>` (§A.2) holding the same files.
 *
 * - The ref's commit is an orphan whose root tree is the branch's
 *   `<id[:2]>/<id[2:]>/` subtree (its objects are reused, not copied) with the
 *   root `metadata.json`'s session paths rewritten from `/<id[:2]>/<id[2:]>/0/…`
 *   to §A.3's `/0/…`; every other byte stays. Its message is Go's first-write
 *   form (`Checkpoint: <id>` + trailers), the trailers taken from the branch
 *   commit that first wrote the checkpoint, else from its first session.
 * - One ref update per checkpoint, after its objects are written: an
 *   interrupted run leaves whole refs only, and the next run goes on.
 * - Each written ref is read back through the routing store and compared
 *   with the branch copy (root summary, and per session its metadata,
 *   transcript, prompts, context and content hash); one that reads
 *   differently is deleted again and reported.
 * - Idempotent: a ref that exists and reads the same is skipped; one that
 *   exists and differs is reported, never overwritten. The branch is never
 *   touched. Written refs join the push queue (§A.6).
 *
 * `--to branch` does the reverse for hex-named refs (a ULID never goes on the
 * branch, §A.5): each ref's root tree becomes the branch's `<id[:2]>/<id[2:]>/`
 * with the root's session paths prefixed again, one branch commit per
 * checkpoint (`Checkpoint: <id>` + trailers, taken from the ref's first
 * commit), verified by reading the branch copy back; the refs stay.
 */
import type { Repo } from '../../git/repo.js';
import { openRepo } from '../../git/repo.js';
import { runGit } from '../../git/exec.js';
import { readRef, updateRefs } from '../../git/refs.js';
import { encodeJson } from '../../go-json.js';
import { checkpointRef, isHexCheckpointId } from '../../checkpoint/id.js';
import { METADATA_BRANCH, METADATA_REF } from '../../checkpoint/shadow.js';
import { parseTrailerValues, STRATEGY } from '../../checkpoint/messages.js';
import { casWrite, ensureMetadataBranch, refTarget } from '../../store/branch.js';
import { readDir, readTreeByOid, subdirs } from '../../store/tree.js';
import { viewAt, sessionContentOf, type CheckpointView } from '../../store/committed.js';
import { readLocalCheckpoint } from '../../store/routing.js';
import { checkpointRefTip, checkpointRefs } from '../../store/refs-store.js';
import { appendToPushQueue } from '../../sync/push-queue.js';
import { processIo, type Io } from '../common.js';

export interface MigrateOptions {
  to: string;
  dryRun?: boolean;
  /** Progress lines on stderr (default: when stdout is a terminal). */
  progress?: boolean;
}

export interface MigrateSummary {
  total: number;
  migrated: number;
  already: number;
  differ: string[];
  failed: string[];
}

/** `--to` spellings (as `enable --checkpoint-backend`): refs | git-refs | branch | git-branch, any case. */
export function parseTarget(to: string): 'refs' | 'branch' | null {
  const t = to.trim().toLowerCase();
  if (t === 'refs' || t === 'git-refs') return 'refs';
  if (t === 'branch' || t === 'git-branch') return 'branch';
  return null;
}

export async function runMigrate(cwd: string, opts: MigrateOptions, io: Io = processIo): Promise<number> {
  const target = parseTarget(opts.to);
  if (target === null) {
    io.err(`Error: --to must be refs or branch (got "${opts.to}")`);
    return 2;
  }
  const repo = await openRepo(cwd);
  try {
    const run = { dryRun: !!opts.dryRun, progress: opts.progress ?? !!process.stdout.isTTY };
    const s = target === 'refs' ? await migrateToRefs(repo, run, io) : await migrateToBranch(repo, run, io);
    for (const line of s.differ) io.out(line);
    for (const line of s.failed) io.out(line);
    const tail = `${s.already} already migrated, ${s.differ.length} differ, ${s.failed.length} failed`;
    const where = target === 'refs' ? 'refs' : METADATA_BRANCH;
    if (opts.dryRun) io.out(`Dry run: ${s.migrated} of ${s.total} checkpoints would be migrated to ${where} (${tail}); nothing was written`);
    else if (target === 'refs') io.out(`Migrated ${s.migrated} of ${s.total} checkpoints to refs (${tail}); ${METADATA_BRANCH} is unchanged`);
    else io.out(`Migrated ${s.migrated} of ${s.total} checkpoints to ${METADATA_BRANCH} (${tail}); the refs are unchanged`);
    return s.differ.length + s.failed.length > 0 ? 1 : 0;
  } finally {
    repo.objects.close();
  }
}

/** Hex ids on the local branch with their subtree ids, sorted. */
async function branchCheckpoints(repo: Repo, tip: string): Promise<{ id: string; tree: string }[]> {
  const out: { id: string; tree: string }[] = [];
  for (const shard of subdirs((await readDir(repo, tip, '')) ?? [])) {
    if (!/^[0-9a-f]{2}$/.test(shard.name)) continue;
    for (const e of subdirs((await readTreeByOid(repo, shard.oid)) ?? [])) {
      const id = shard.name + e.name;
      if (isHexCheckpointId(id)) out.push({ id, tree: e.oid });
    }
  }
  return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

export async function migrateToRefs(repo: Repo, opts: { dryRun: boolean; progress: boolean }, io: Io): Promise<MigrateSummary> {
  const summary: MigrateSummary = { total: 0, migrated: 0, already: 0, differ: [], failed: [] };
  const tip = await readRef(repo, METADATA_REF);
  if (!tip) return summary;
  const all = await branchCheckpoints(repo, tip);
  summary.total = all.length;
  let messages: Map<string, string> | null = null;
  let n = 0;
  for (const { id, tree } of all) {
    n++;
    if (opts.progress) io.err(`migrate: ${n} of ${all.length} (${id})`);
    const ref = checkpointRef(id);
    const branchView = await viewAt(repo, tip, id);
    if (!branchView) {
      summary.failed.push(`${id}: unreadable on ${METADATA_BRANCH}; not migrated`);
      continue;
    }
    if ((await refTarget(repo, ref)) !== null) {
      const refView = await readRefCopy(repo, id);
      const diff = refView ? await difference(repo, branchView, refView) : 'the ref does not hold a readable checkpoint';
      if (diff === null) summary.already++;
      else summary.differ.push(`${id}: ${ref} exists and differs from the branch copy (${diff}); left as it is`);
      continue;
    }
    const root = await rewrittenRoot(repo, tip, id);
    if (root === null) {
      summary.failed.push(`${id}: its metadata.json cannot be read; not migrated`);
      continue;
    }
    if (opts.dryRun) {
      summary.migrated++;
      continue;
    }
    messages ??= await firstWriteMessages(repo);
    const message = messages.get(id) ?? messageFromSessions(id, branchView);
    const res = await casWrite(
      repo,
      ref,
      async (cur) => (cur !== null ? null : { message, baseTree: tree, changes: [{ op: 'put', path: 'metadata.json', content: root }] }),
      { startReflog: false },
    );
    if (!res.changed || res.oid === null) {
      // another writer created the ref meanwhile: judge it as an existing one
      const refView = await readRefCopy(repo, id);
      const diff = refView ? await difference(repo, branchView, refView) : 'the ref does not hold a readable checkpoint';
      if (diff === null) summary.already++;
      else summary.differ.push(`${id}: ${ref} exists and differs from the branch copy (${diff}); left as it is`);
      continue;
    }
    // verify through the routing store (a hex id resolves in refs first, so this reads the new ref)
    const back = await readLocalCheckpoint(repo, id);
    const diff = back ? await difference(repo, branchView, back) : 'the new ref cannot be read';
    if (diff !== null) {
      await updateRefs(repo, [{ ref, newOid: null, oldOid: res.oid }]).catch(() => 'race');
      summary.failed.push(`${id}: the written ref reads differently (${diff}); removed again`);
      continue;
    }
    await appendToPushQueue(repo.commonDir, [ref]).catch(() => undefined);
    summary.migrated++;
  }
  return summary;
}

async function readRefCopy(repo: Repo, id: string): Promise<CheckpointView | null> {
  const t = await checkpointRefTip(repo, id);
  return t ? viewAt(repo, t, id, '') : null;
}

/**
 * The branch copy's root `metadata.json` with each session path's
 * `/<id[:2]>/<id[2:]>` prefix dropped (§A.3: paths from the ref's root);
 * every other field kept, in its order. null: missing or not JSON.
 */
async function rewrittenRoot(repo: Repo, tip: string, id: string): Promise<string | null> {
  const o = await repo.objects.read(`${tip}:${id.slice(0, 2)}/${id.slice(2)}/metadata.json`);
  if (!o || o.type !== 'blob') return null;
  let doc: unknown;
  try {
    doc = JSON.parse(o.data.toString('utf8'));
  } catch {
    return null;
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return null;
  const prefix = `/${id.slice(0, 2)}/${id.slice(2)}/`;
  const sessions = (doc as Record<string, unknown>)['sessions'];
  if (Array.isArray(sessions)) {
    for (const s of sessions) {
      if (!s || typeof s !== 'object' || Array.isArray(s)) continue;
      const so = s as Record<string, unknown>;
      for (const [k, v] of Object.entries(so)) if (typeof v === 'string' && v.startsWith(prefix)) so[k] = `/${v.slice(prefix.length)}`;
    }
  }
  return encodeJson(doc);
}

/** The message of the branch commit that first wrote each checkpoint (`Checkpoint: <id>` subjects), by id. */
async function firstWriteMessages(repo: Repo): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const r = await runGit(['log', '--reverse', '--format=%B%x00', METADATA_REF], { cwd: repo.root, allowFailure: true });
  if (r.code !== 0) return out;
  for (const raw of r.stdout.toString('utf8').split('\0')) {
    const msg = raw.replace(/^\n+/, '');
    const m = /^Checkpoint: ([0-9a-f]{12})\n/.exec(msg);
    if (!m || out.has(m[1]!)) continue;
    const t = parseTrailerValues(msg);
    const session = t['Entire-Session'];
    if (!session) continue;
    out.set(m[1]!, goFirstMessage(m[1]!, session, t['Entire-Agent'], t['Ephemeral-branch']));
  }
  return out;
}

function messageFromSessions(id: string, view: CheckpointView): string {
  const first = view.sessions[0]?.metadata;
  return goFirstMessage(id, first?.session_id ?? '', first?.agent, undefined);
}

const oneLine = (s: string): string => s.replace(/[\r\n]+/g, ' ').trim();

/** §A.3's first-write message: `Checkpoint: <id>\n\n` + trailers (those known). */
function goFirstMessage(id: string, session: string, agent: string | undefined, ephemeral: string | undefined): string {
  let m = `Checkpoint: ${id}\n\n`;
  if (oneLine(session)) m += `Entire-Session: ${oneLine(session)}\n`;
  m += `Entire-Strategy: ${STRATEGY}\n`;
  if (agent && oneLine(agent)) m += `Entire-Agent: ${oneLine(agent)}\n`;
  if (ephemeral && oneLine(ephemeral)) m += `Ephemeral-branch: ${oneLine(ephemeral)}\n`;
  return m;
}

/** null when both copies read the same; else what differs first. */
async function difference(repo: Repo, a: CheckpointView, b: CheckpointView): Promise<string | null> {
  const { sessions: _sa, ...ra } = a.root;
  const { sessions: _sb, ...rb } = b.root;
  if (JSON.stringify(ra) !== JSON.stringify(rb)) return 'root metadata';
  if (a.sessions.length !== b.sessions.length) return `${a.sessions.length} sessions against ${b.sessions.length}`;
  for (let i = 0; i < a.sessions.length; i++) {
    const sa = a.sessions[i]!;
    const sb = b.sessions[i]!;
    if (sa.slot !== sb.slot) return `session slots ${sa.slot} and ${sb.slot}`;
    const ca = await sessionContentOf(repo, a, { slot: sa.slot < 0 ? 0 : sa.slot });
    const cb = await sessionContentOf(repo, b, { slot: sb.slot < 0 ? 0 : sb.slot });
    if (JSON.stringify(ca.metadata) !== JSON.stringify(cb.metadata)) return `session ${i} metadata`;
    if (!sameBytes(ca.transcript, cb.transcript)) return `session ${i} transcript`;
    if (JSON.stringify(ca.prompts) !== JSON.stringify(cb.prompts)) return `session ${i} prompts`;
    if (ca.context !== cb.context) return `session ${i} context`;
    if (ca.contentHash !== cb.contentHash) return `session ${i} content hash`;
  }
  return null;
}

function sameBytes(a: Buffer | null, b: Buffer | null): boolean {
  if (a === null || b === null) return a === b;
  return a.equals(b);
}


// ------------------------------------------------------------------ --to branch

/** The root `metadata.json` of a ref with its `/0/…` session paths placed under `/<id[:2]>/<id[2:]>/`. */
async function branchRoot(repo: Repo, refTip: string, id: string): Promise<string | null> {
  const o = await repo.objects.read(`${refTip}:metadata.json`);
  if (!o || o.type !== 'blob') return null;
  let doc: unknown;
  try {
    doc = JSON.parse(o.data.toString('utf8'));
  } catch {
    return null;
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return null;
  const prefix = `/${id.slice(0, 2)}/${id.slice(2)}`;
  const sessions = (doc as Record<string, unknown>)['sessions'];
  if (Array.isArray(sessions)) {
    for (const s of sessions) {
      if (!s || typeof s !== 'object' || Array.isArray(s)) continue;
      const so = s as Record<string, unknown>;
      for (const [k, v] of Object.entries(so)) if (typeof v === 'string' && /^\/\d+\//.test(v)) so[k] = `${prefix}${v}`;
    }
  }
  return encodeJson(doc);
}

/** The message of a ref's first (parentless) commit when it is a first write; else one built from its sessions. */
async function refFirstMessage(repo: Repo, ref: string, id: string, view: CheckpointView): Promise<string> {
  const r = await runGit(['rev-list', '--max-parents=0', '--format=%B', '-n', '1', ref], { cwd: repo.root, allowFailure: true });
  const text = r.code === 0 ? r.stdout.toString('utf8').replace(/^commit [0-9a-f]+\n/, '') : '';
  const t = parseTrailerValues(text);
  if (text.startsWith(`Checkpoint: ${id}\n`) && t['Entire-Session']) return goFirstMessage(id, t['Entire-Session'], t['Entire-Agent'], t['Ephemeral-branch']);
  return messageFromSessions(id, view);
}

export async function migrateToBranch(repo: Repo, opts: { dryRun: boolean; progress: boolean }, io: Io): Promise<MigrateSummary> {
  const summary: MigrateSummary = { total: 0, migrated: 0, already: 0, differ: [], failed: [] };
  const all = [...(await checkpointRefs(repo))].filter(([id]) => isHexCheckpointId(id));
  summary.total = all.length;
  let n = 0;
  for (const [id] of all) {
    n++;
    if (opts.progress) io.err(`migrate: ${n} of ${all.length} (${id})`);
    const ref = checkpointRef(id);
    const tip = await checkpointRefTip(repo, id);
    const refView = tip ? await viewAt(repo, tip, id, '') : null;
    if (!tip || !refView) {
      summary.failed.push(`${id}: ${ref} does not hold a readable checkpoint; not migrated`);
      continue;
    }
    const shard = `${id.slice(0, 2)}/${id.slice(2)}`;
    const branchTip = await readRef(repo, METADATA_REF);
    if (branchTip && (await repo.objects.read(`${branchTip}:${shard}`))?.type === 'tree') {
      const onBranch = await viewAt(repo, branchTip, id);
      const diff = onBranch ? await difference(repo, refView, onBranch) : 'the branch copy cannot be read';
      if (diff === null) summary.already++;
      else summary.differ.push(`${id}: ${METADATA_BRANCH} holds ${shard} and it differs from the ref (${diff}); left as it is`);
      continue;
    }
    const root = await branchRoot(repo, tip, id);
    const tree = await repo.objects.read(`${tip}^{tree}`);
    if (root === null || !tree) {
      summary.failed.push(`${id}: its metadata.json cannot be read; not migrated`);
      continue;
    }
    if (opts.dryRun) {
      summary.migrated++;
      continue;
    }
    const message = await refFirstMessage(repo, ref, id, refView);
    await ensureMetadataBranch(repo);
    let raced = false;
    const res = await casWrite(repo, METADATA_REF, async (cur) => {
      if (cur !== null && (await repo.objects.read(`${cur}:${shard}`)) !== null) {
        raced = true;
        return null;
      }
      return {
        message,
        changes: [
          { op: 'put-oid', path: shard, oid: tree.oid, mode: '040000' },
          { op: 'put', path: `${shard}/metadata.json`, content: root },
        ],
      };
    });
    if (raced || !res.changed || res.oid === null) {
      summary.failed.push(`${id}: ${shard} appeared on ${METADATA_BRANCH} while migrating; not written`);
      continue;
    }
    const back = await viewAt(repo, res.oid, id);
    const diff = back ? await difference(repo, refView, back) : 'the branch copy cannot be read';
    if (diff !== null) {
      summary.failed.push(`${id}: the branch copy reads differently (${diff})`);
      continue;
    }
    summary.migrated++;
  }
  return summary;
}
