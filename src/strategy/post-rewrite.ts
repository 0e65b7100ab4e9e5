/**
 * SPEC-2 §D.2: git's `post-rewrite` hook (`amend` or `rebase`, stdin
 * `<old> SP <new>[ SP <extra>]` per rewritten commit). Git has already copied
 * the notes (notes.rewriteRef); this keeps every id of commits folded into
 * one (squash, fixup, a reword that dropped the trailer) in the new commit's
 * note, and moves session bases, pending work, the commit intent and shadow
 * branches from the old commits to the new ones. Fail-open like every hook.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { HookContext } from './context.js';
import type { SessionState } from '../session/state.js';
import { sessionsForWorktree } from '../session/index.js';
import { updateState } from '../session/store.js';
import { readCommit } from '../store/tree.js';
import { migrateShadow } from '../store/shadow.js';
import { readIntent, writeIntent } from './intent.js';
import { deleteShadowIfUnreferenced } from './shadow-gc.js';
import { forgetNotesRefs, linkedIds } from '../links/commit-ids.js';
import { addNoteIds } from '../links/notes.js';
import { mark } from '../timing.js';

/** new commit → the old commits it replaces, in git's order. */
export function parseRewrites(input: string, oidLength: number): Map<string, string[]> {
  const byNew = new Map<string, string[]>();
  const oid = new RegExp(`^[0-9a-f]{${oidLength}}$`);
  for (const line of input.split('\n')) {
    const [oldOid, newOid] = line.trim().split(' ');
    if (!oldOid || !newOid || !oid.test(oldOid) || !oid.test(newOid) || oldOid === newOid) continue;
    const olds = byNew.get(newOid) ?? [];
    if (!olds.includes(oldOid)) olds.push(oldOid);
    byNew.set(newOid, olds);
  }
  return byNew;
}

function rebaseInProgress(gitDir: string): boolean {
  return existsSync(join(gitDir, 'rebase-merge')) || existsSync(join(gitDir, 'rebase-apply'));
}

export async function postRewrite(ctx: HookContext, args: string[], input: string): Promise<void> {
  const kind = args[0];
  if (kind !== 'amend' && kind !== 'rebase') return;
  // the amends git makes while a rebase runs are in the final `rebase` list (D.2 (1))
  if (kind === 'amend' && rebaseInProgress(ctx.repo.gitDir)) return;
  const byNew = parseRewrites(input, ctx.repo.objectFormat === 'sha256' ? 64 : 40);
  if (byNew.size === 0) return;
  await keepIds(ctx, byNew);
  mark('post-rewrite: notes');
  const oldToNew = new Map<string, string>();
  for (const [n, olds] of byNew) for (const o of olds) oldToNew.set(o, n);
  await remapSessions(ctx, oldToNew);
  mark('post-rewrite: sessions');
}

/** D.2 (3): ids the old commits had (messages, notes) that the new one lacks go to its note. */
async function keepIds(ctx: HookContext, byNew: Map<string, string[]>): Promise<void> {
  const additions = new Map<string, string[]>();
  for (const [n, olds] of byNew) {
    const cur = await readCommit(ctx.repo, n);
    if (!cur) continue;
    const have = new Set(await linkedIds(ctx.repo, n, cur.message));
    const missing: string[] = [];
    for (const o of olds) {
      const old = await readCommit(ctx.repo, o);
      if (!old) continue;
      for (const id of await linkedIds(ctx.repo, o, old.message)) if (!have.has(id) && !missing.includes(id)) missing.push(id);
    }
    // the new commit's own trailer ids join too: the note lists every id of the commit
    if (missing.length > 0) additions.set(n, [...have, ...missing]);
  }
  if (additions.size > 0) {
    await addNoteIds(ctx.repo, additions);
    forgetNotesRefs(ctx.repo);
  }
}

/** D.2 (4): states, the intent and shadow branches follow the rewritten commits. */
async function remapSessions(ctx: HookContext, oldToNew: Map<string, string>): Promise<void> {
  const map = (c: string | undefined) => (c && oldToNew.get(c)) || c;
  const wt = ctx.repo.worktreeId;
  const moved: { from: string; to: string; sid: string; paths: string[] }[] = [];
  const after: SessionState[] = [];
  for (const w of sessionsForWorktree(ctx.repo.commonDir, ctx.repo.root, wt).sessions) {
    const st = w.state;
    const touches =
      oldToNew.has(st.base_commit) ||
      (st.attribution_base_commit !== undefined && oldToNew.has(st.attribution_base_commit)) ||
      (st.pending_condensations ?? []).some((p) => oldToNew.has(p.commit));
    if (!touches) {
      after.push(st);
      continue;
    }
    try {
      const saved = await updateState(
        ctx.repo.commonDir,
        st.session_id,
        async (s) => {
          if (!s) return null;
          const base = s.base_commit;
          const next: SessionState = { ...s, base_commit: map(base) ?? base };
          if (s.attribution_base_commit) next.attribution_base_commit = map(s.attribution_base_commit);
          if (s.pending_condensations) next.pending_condensations = s.pending_condensations.map((p) => ({ ...p, commit: map(p.commit) ?? p.commit }));
          if (base && next.base_commit !== base) {
            const r = await migrateShadow(ctx.repo, { fromBase: base, toBase: next.base_commit, worktreeId: wt, sessionId: s.session_id, paths: s.files_touched ?? [] });
            moved.push({ from: r.from, to: r.to, sid: s.session_id, paths: s.files_touched ?? [] });
          }
          return next;
        },
        { waitMs: 5000 },
      );
      if (saved) after.push(saved);
    } catch (e) {
      ctx.log.warn('cannot move a session to the rewritten commit', { session_id: st.session_id, error: e });
      after.push(st);
    }
  }
  const intent = readIntent(ctx.repo.gitDir);
  if (intent && oldToNew.has(intent.head_before)) writeIntent(ctx.repo.gitDir, { ...intent, head_before: oldToNew.get(intent.head_before)! });
  for (const m of new Set(moved.map((x) => x.from))) {
    await deleteShadowIfUnreferenced(ctx, m, after).catch((e) => ctx.log.warn('shadow cleanup failed', { error: e }));
  }
}
