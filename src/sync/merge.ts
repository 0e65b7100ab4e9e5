/**
 * SPEC §6.9 step 3: merge two histories of `entire/checkpoints/v1` as a tree
 * union. Checkpoint directories are disjoint almost always; when both sides
 * hold the same checkpoint, slots merge per session: the same session keeps
 * the longer transcript, a different session is appended (Go drops one).
 */
import type { Repo } from '../git/repo.js';
import type { TreeChange } from '../git/fastimport.js';
import { isTreeMode, type TreeEntry } from '../git/objects.js';
import { readTreeByOid } from '../store/tree.js';
import { decodeRootMetadata, decodeSessionMetadata, type RootMetadata } from '../checkpoint/metadata.js';
import { aggregateRoot, type SlotInfo } from '../checkpoint/layout.js';
import { chunkIndexOf } from '../checkpoint/chunks.js';
import { CLI_VERSION } from '../version.js';

async function blobJson(repo: Repo, oid: string): Promise<unknown> {
  const o = await repo.objects.read(oid);
  if (!o) return null;
  try {
    return JSON.parse(o.data.toString('utf8'));
  } catch {
    return null;
  }
}

async function blobSize(repo: Repo, oid: string): Promise<number> {
  const o = await repo.objects.read(oid);
  return o ? o.data.length : 0;
}

interface SlotTree extends SlotInfo {
  oid: string;
  entries: TreeEntry[];
}

async function slotsOf(repo: Repo, entries: TreeEntry[], id: string): Promise<SlotTree[]> {
  const out: SlotTree[] = [];
  for (const e of entries) {
    if (!isTreeMode(e.mode) || !/^\d+$/.test(e.name)) continue;
    const list = (await readTreeByOid(repo, e.oid)) ?? [];
    const md = list.find((x) => x.name === 'metadata.json');
    if (!md) continue;
    const metadata = decodeSessionMetadata(await blobJson(repo, md.oid), id);
    out.push({ slot: Number(e.name), sessionId: metadata.session_id, metadata, files: list.map((x) => x.name), oid: e.oid, entries: list });
  }
  return out.sort((a, b) => a.slot - b.slot);
}

async function transcriptBytes(repo: Repo, s: SlotTree): Promise<number> {
  let n = 0;
  for (const e of s.entries) if (chunkIndexOf(e.name) !== null) n += await blobSize(repo, e.oid);
  return n;
}

/** Changes that turn the local tree into the union with the remote one. */
export async function unionChanges(repo: Repo, localTree: string, remoteTree: string): Promise<TreeChange[]> {
  const changes: TreeChange[] = [];
  const L = (await readTreeByOid(repo, localTree)) ?? [];
  const R = (await readTreeByOid(repo, remoteTree)) ?? [];
  const lMap = new Map(L.map((e) => [e.name, e]));
  for (const r of R) {
    const l = lMap.get(r.name);
    if (l && l.oid === r.oid) continue;
    const isShard = isTreeMode(r.mode) && /^[0-9a-f]{2}$/.test(r.name);
    if (!l) {
      changes.push({ op: 'put-oid', path: r.name, oid: r.oid, mode: isTreeMode(r.mode) ? '040000' : (r.mode as '100644') });
      continue;
    }
    if (!isShard || !isTreeMode(l.mode)) continue; // other paths: local wins
    const ls = (await readTreeByOid(repo, l.oid)) ?? [];
    const rs = (await readTreeByOid(repo, r.oid)) ?? [];
    const lsMap = new Map(ls.map((e) => [e.name, e]));
    for (const rc of rs) {
      const lc = lsMap.get(rc.name);
      const path = `${r.name}/${rc.name}`;
      if (lc && lc.oid === rc.oid) continue;
      if (!lc) {
        changes.push({ op: 'put-oid', path, oid: rc.oid, mode: isTreeMode(rc.mode) ? '040000' : (rc.mode as '100644') });
        continue;
      }
      if (!isTreeMode(rc.mode) || !isTreeMode(lc.mode)) continue;
      changes.push(...(await mergeCheckpoint(repo, path, r.name + rc.name, lc.oid, rc.oid)));
    }
  }
  return changes;
}

async function mergeCheckpoint(repo: Repo, path: string, id: string, localOid: string, remoteOid: string): Promise<TreeChange[]> {
  const changes: TreeChange[] = [];
  const lEntries = (await readTreeByOid(repo, localOid)) ?? [];
  const rEntries = (await readTreeByOid(repo, remoteOid)) ?? [];
  const lSlots = await slotsOf(repo, lEntries, id);
  const rSlots = await slotsOf(repo, rEntries, id);
  const merged: SlotTree[] = [...lSlots];
  let next = lSlots.reduce((m, s) => Math.max(m, s.slot), -1) + 1;
  for (const rs of rSlots) {
    const same = merged.find((s) => s.sessionId === rs.sessionId);
    if (same) {
      if (same.oid === rs.oid) continue;
      if ((await transcriptBytes(repo, rs)) > (await transcriptBytes(repo, same))) {
        changes.push({ op: 'put-oid', path: `${path}/${same.slot}`, oid: rs.oid, mode: '040000' });
        merged[merged.indexOf(same)] = { ...rs, slot: same.slot };
      }
      continue;
    }
    changes.push({ op: 'put-oid', path: `${path}/${next}`, oid: rs.oid, mode: '040000' });
    merged.push({ ...rs, slot: next });
    next++;
  }
  if (changes.length === 0) return [];
  const rootEntry = lEntries.find((e) => e.name === 'metadata.json') ?? rEntries.find((e) => e.name === 'metadata.json');
  const previous: RootMetadata | null = rootEntry ? decodeRootMetadata(await blobJson(repo, rootEntry.oid), id) : null;
  changes.push({
    op: 'put',
    path: `${path}/metadata.json`,
    content: aggregateRoot({
      checkpointId: id,
      shard: `${id.slice(0, 2)}/${id.slice(2)}`,
      cliVersion: previous?.cli_version ?? CLI_VERSION,
      strategy: previous?.strategy ?? 'manual-commit',
      branch: previous?.branch,
      slots: merged,
      previous,
    }),
  });
  return changes;
}
