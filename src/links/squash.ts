/**
 * SPEC-2 §D.4: a `merge --squash` commit keeps every id of the commits it
 * squashes, even when the person deletes their trailers from the message.
 * prepare-commit-msg still sees `<git-dir>/SQUASH_MSG` (git removes it before
 * post-commit): it records the squashed commits' existing ids (trailers ∪
 * notes) beside the commit intent; post-commit notes them on the new commit.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { HookContext } from '../strategy/context.js';
import { readCommit } from '../store/tree.js';
import { checkpointExists } from '../store/routing.js';
import { isCheckpointId } from '../trust/ids.js';
import { writeFileIn } from '../trust/confined.js';
import { linkedIds } from './commit-ids.js';
import { noteCommit } from './note-writer.js';

const SQUASH_FILE = 'entire-commit-intent.json.squash';
const MAX_SQUASHED = 1000;

interface SquashRecord {
  head_before: string;
  ids: string[];
}

export function squashRecordPath(gitDir: string): string {
  return join(gitDir, SQUASH_FILE);
}

/** prepare-commit-msg: the squashed commits' ids, when this commit ends a `merge --squash`. */
export async function recordSquashedIds(ctx: HookContext): Promise<void> {
  const msgPath = join(ctx.repo.gitDir, 'SQUASH_MSG');
  if (!ctx.head || !existsSync(msgPath)) return;
  try {
    const text = readFileSync(msgPath, 'utf8');
    const oid = ctx.repo.objectFormat === 'sha256' ? 64 : 40;
    const re = new RegExp(`^commit ([0-9a-f]{${oid}})$`, 'gm');
    const ids: string[] = [];
    let n = 0;
    for (let m = re.exec(text); m && n < MAX_SQUASHED; m = re.exec(text), n++) {
      const c = await readCommit(ctx.repo, m[1]!);
      if (!c) continue;
      for (const id of await linkedIds(ctx.repo, c.oid, c.message)) if (!ids.includes(id) && (await checkpointExists(ctx.repo, id))) ids.push(id);
    }
    if (ids.length === 0) return;
    writeFileIn(ctx.repo.gitDir, SQUASH_FILE, JSON.stringify({ head_before: ctx.head, ids } satisfies SquashRecord));
  } catch (e) {
    ctx.log.warn('cannot record the ids of squashed commits', { error: e });
  }
}

/** post-commit: the recorded ids go to the note of the commit made on the recorded HEAD. */
export async function noteSquashedIds(ctx: HookContext, head: { oid: string; parents: string[] }): Promise<void> {
  const path = squashRecordPath(ctx.repo.gitDir);
  if (!existsSync(path)) return;
  try {
    const raw = JSON.parse(readFileSync(path, 'utf8')) as Partial<SquashRecord>;
    const ids = Array.isArray(raw.ids) ? raw.ids.filter((x) => isCheckpointId(x)) : [];
    if (ids.length > 0 && typeof raw.head_before === 'string' && head.parents[0] === raw.head_before) {
      // the commit's own id joined the note when its checkpoint was written (just before)
      await noteCommit(ctx, head.oid, ids);
    }
  } catch (e) {
    ctx.log.warn('cannot note the ids of squashed commits', { error: e });
  } finally {
    rmSync(path, { force: true });
  }
}
