/**
 * SPEC-2 §D.2: git's `post-rewrite` hook (`amend` or `rebase`, stdin
 * `<old> SP <new>[ SP <extra>]` per rewritten commit). Git has already copied
 * the notes (notes.rewriteRef); this keeps every id of commits folded into
 * one (squash, fixup, a reword that dropped the trailer) in the new commit's
 * note, and moves session bases, pending work, the commit intent and shadow
 * branches from the old commits to the new ones. Fail-open like every hook.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { HookContext } from './context.js';
import type { SessionState } from '../session/state.js';
import { sessionsForWorktree } from '../session/index.js';
import { listStates, updateState } from '../session/store.js';
import { SIDE_FILE_RE, sessionsDir } from '../session/paths.js';
import { checkpointExists } from '../store/committed.js';
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

/**
 * The ids this repository still owes a checkpoint for (pending condensations in states and
 * side files): they resolve once written, so a rewrite keeps them like written ones.
 */
function pendingIds(commonDir: string): Set<string> {
  const out = new Set<string>();
  try {
    for (const { state } of listStates(commonDir).states) for (const p of state.pending_condensations ?? []) out.add(p.checkpoint_id);
    for (const n of readdirSync(sessionsDir(commonDir))) {
      const m = SIDE_FILE_RE.exec(n);
      if (m) out.add(m[2]!);
    }
  } catch {
    /* no sessions dir: nothing pending */
  }
  return out;
}

/**
 * Issue 25: only ids that name a checkpoint (local or a remote's copy) or pending work here go
 * to a note. Notes and messages are untrusted: a teammate's note listing ids of nothing would
 * otherwise be copied into our note on every rebase and pushed on as ours.
 */
function resolverOf(ctx: HookContext): (id: string) => Promise<boolean> {
  let pending: Set<string> | null = null;
  const known = new Map<string, boolean>();
  return async (id) => {
    let ok = known.get(id);
    if (ok === undefined) {
      ok = (await checkpointExists(ctx.repo, id).catch(() => false)) || (pending ??= pendingIds(ctx.repo.commonDir)).has(id);
      known.set(id, ok);
    }
    return ok;
  };
}

/** D.2 (3): ids the old commits had (messages, notes) that the new one lacks go to its note, if they resolve. */
async function keepIds(ctx: HookContext, byNew: Map<string, string[]>): Promise<void> {
  const additions = new Map<string, string[]>();
  const resolves = resolverOf(ctx);
  for (const [n, olds] of byNew) {
    const cur = await readCommit(ctx.repo, n);
    if (!cur) continue;
    const have = new Set(await linkedIds(ctx.repo, n, cur.message));
    const missing = new Set<string>();
    for (const o of olds) {
      const old = await readCommit(ctx.repo, o);
      if (!old) continue;
      for (const id of await linkedIds(ctx.repo, o, old.message)) if (!have.has(id) && !missing.has(id) && (await resolves(id))) missing.add(id);
    }
    // the new commit's own trailer ids join too: the note lists every (resolving) id of the commit
    if (missing.size > 0) {
      const own: string[] = [];
      for (const id of have) if (await resolves(id)) own.push(id);
      additions.set(n, [...own, ...missing]);
    }
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
