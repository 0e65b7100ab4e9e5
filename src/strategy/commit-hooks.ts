/**
 * The git side of the capture loop: prepare-commit-msg (SPEC §6.3),
 * commit-msg (§6.4) and post-commit (§6.5). A trailer is added only when the
 * commit will get a checkpoint; a write that fails becomes pending work and
 * is retried, so every trailer resolves (P1) and nothing is lost (P3).
 */
import { isPidAlive } from '../session/lock.js';
import { readFileSync, writeFileSync } from 'node:fs';
import type { HookContext } from './context.js';
import type { SessionState } from '../session/state.js';
import { sessionsForWorktree, type WorktreeSession } from '../session/index.js';
import { loadState, updateState, writePendingSideFile } from '../session/store.js';
import { isRebaseInProgress, transition, applyBookkeeping } from '../session/phase.js';
import { gitArgv, gitSubcommand, isAmend } from '../git/argv.js';
import { stagedPaths } from '../git/status.js';
import { changedBetween, differingFromCommit } from './head-diff.js';
import { configGet, EMPTY_TREE } from '../git/repo.js';
import { readConfigValue } from '../git/config-file.js';
import { readCommit } from '../store/tree.js';
import { checkpointExists, readCheckpoint } from '../store/committed.js';
import { writeShadowStep } from '../store/shadow.js';
import { generateCheckpointId } from '../checkpoint/id.js';
import { shadowBranchName } from '../checkpoint/shadow.js';
import { collapsePrompt } from '../checkpoint/prompts.js';
import { CARRY_FORWARD_SUBJECT } from '../checkpoint/messages.js';
import {
  addCheckpointTrailer,
  removeCheckpointTrailers,
  checkpointIdsInFinalBlock,
  lastCheckpointIdInFinalBlock,
  finalTrailerBlock,
  messageBody,
} from '../checkpoint/trailers.js';
import { readIntent, writeIntent, removeIntent, type CommitIntent } from './intent.js';
import { readPrePrompt } from './scratch.js';
import { viewWorkTree, turnCandidates } from './worktree.js';
import { adapterFor, analyze, positionOf, promptsOf, redactedTranscript, readableTranscript } from './transcript.js';
import { condenseSession, pendingEntry } from './condense.js';
import { retryPendingCondensations } from './pending.js';
import { migrateIfMoved } from './migrate.js';
import { deleteShadowIfUnreferenced } from './shadow-gc.js';
import { askLink } from './tty.js';
import { fault } from './faults.js';
import { mark } from '../timing.js';
import { describeError, EntireError } from '../errors.js';
import { writeStderr } from '../stderr.js';

const INTENT_MAX_AGE_MS = 60 * 60 * 1000;

// ------------------------------------------------------------------ helpers

async function commentCharOf(ctx: HookContext): Promise<string | null> {
  const fromFiles = readConfigValue('core', 'commentchar', ctx.repo);
  const v = fromFiles !== undefined ? fromFiles.value : await configGet(ctx.repo, 'core.commentChar');
  if (v === null || v === '') return '#';
  // `auto` (or anything we cannot be sure of) → no comment lines of ours
  return v.length === 1 ? v : null;
}

function liveSessions(ctx: HookContext): WorktreeSession[] {
  return sessionsForWorktree(ctx.repo.commonDir, ctx.repo.root, ctx.repo.worktreeId).sessions;
}

/** cand(s) (SPEC §6.3): files_touched, plus the running turn's changes when ACTIVE. */
async function candidatesOf(ctx: HookContext, s: SessionState, view: Awaited<ReturnType<typeof viewWorkTree>> | null): Promise<Set<string>> {
  const cand = new Set(s.files_touched ?? []);
  if (s.phase === 'active') {
    const adapter = await adapterFor(s);
    const pre = readPrePrompt(ctx.repo.root, s.session_id);
    const turn = analyze(adapter, s.transcript_path, pre?.step_transcript_start ?? s.checkpoint_transcript_start ?? 0, { root: ctx.repo.root, sessionId: s.session_id });
    const v = view ?? (await viewWorkTree(ctx.repo));
    for (const p of turnCandidates({ root: ctx.repo.root, editPaths: turn?.modifiedFiles ?? [], before: pre ? pre.dirty_files : null, now: v })) {
      cand.add(p);
    }
    // ACTIVE without a transcript: what the session is known to touch is all we have
    if (!s.transcript_path || !readableTranscript(s.transcript_path)) for (const p of v.differing) if (!pre || pre.dirty_files[p] === undefined) cand.add(p);
  }
  return cand;
}

async function lastPromptOf(root: string, s: SessionState): Promise<string> {
  try {
    const adapter = await adapterFor(s);
    const prompts = await promptsOf(adapter, s.transcript_path, { root, sessionId: s.session_id });
    const p = prompts[prompts.length - 1];
    if (!p) return s.first_prompt ?? '';
    return collapsePrompt(p, 80);
  } catch {
    return s.first_prompt ?? '';
  }
}

function editorComments(cc: string, agent: string, prompt: string): string[] {
  const lines = [`${cc} Remove the Entire-Checkpoint trailer above if you don't want to link this commit to ${agent} session context.`];
  if (prompt) lines.push(`${cc} Last Prompt: ${prompt}`);
  lines.push(`${cc} The trailer will be added to your next commit based on this branch.`);
  return lines;
}

/**
 * Editor form (SPEC §6.3): `<user text>\n\n<trailer>\n<comments>\n\n<git comment block>`;
 * with user text ending in a trailer block, the trailer joins it.
 */
export function editorMessage(message: string, id: string, cc: string | null, comments: string[]): string {
  const lines = message.split('\n');
  // the git comment block: from the first comment line after which only comments/blank lines follow
  let k = lines.length;
  if (cc) {
    for (let i = lines.length - 1; i >= 0; i--) {
      const l = lines[i]!;
      if (l.startsWith(cc) || l.trim() === '') k = i;
      else break;
    }
    while (k < lines.length && lines[k]!.trim() === '') k++;
  } else {
    while (k > 0 && lines[k - 1]!.trim() === '') k--;
  }
  const userLines = lines.slice(0, k);
  while (userLines.length > 0 && userLines[userLines.length - 1]!.trim() === '') userLines.pop();
  const user = userLines.join('\n');
  const gitBlock = lines.slice(k).join('\n');
  const trailer = `Entire-Checkpoint: ${id}`;
  let head: string;
  if (user.trim() === '') head = `\n\n${trailer}`;
  else head = finalTrailerBlock(user, { commentChar: cc }) ? `${user}\n${trailer}` : `${user}\n\n${trailer}`;
  const c = cc && comments.length > 0 ? '\n' + comments.join('\n') : '';
  if (gitBlock.trim() === '') return `${head}${c}\n`;
  return `${head}${c}\n\n${gitBlock}`;
}

async function mintId(ctx: HookContext): Promise<string> {
  for (let i = 0; i < 10; i++) {
    const id = generateCheckpointId();
    if (!(await checkpointExists(ctx.repo, id))) return id;
  }
  return generateCheckpointId();
}

function isSequencing(ctx: HookContext, argv: string[] | null): boolean {
  return isRebaseInProgress(ctx.repo.gitDir, argv);
}

// ------------------------------------------------------------------ prepare-commit-msg

/**
 * The message file as text, with the encoding that writes it back
 * byte-exact: a message that is not UTF-8 (e.g. i18n.commitEncoding=latin1)
 * is handled as latin1, one character per byte, so the bytes we do not
 * touch survive (UTF-8 decoding would turn them into U+FFFD).
 */
function readMessageFile(file: string): { text: string; encoding: BufferEncoding } {
  const buf = readFileSync(file);
  const text = buf.toString('utf8');
  if (!text.includes('\uFFFD') || Buffer.from(text, 'utf8').equals(buf)) return { text, encoding: 'utf8' };
  return { text: buf.toString('latin1'), encoding: 'latin1' };
}

export async function prepareCommitMsg(ctx: HookContext, args: string[]): Promise<void> {
  const [file, source = '', rev = ''] = args;
  if (!file || !ctx.head) return;
  const argv = gitArgv();
  if (isSequencing(ctx, argv)) return;
  const sub = argv ? gitSubcommand(argv) : null;
  if (source === 'merge' && sub !== 'commit') return; // git merge/pull: no post-commit follows
  await recoverStaleIntent(ctx);
  mark('pcm: guards');

  const amend = argv ? isAmend(argv) : rev === 'HEAD';
  const isAmendFlow = (source === 'commit' || source === 'message') && amend;
  const { text: original, encoding } = readMessageFile(file);
  const cc = await commentCharOf(ctx);
  let message = original;

  const sessions = liveSessions(ctx);
  mark('pcm: sessions listed');
  // HEAD's commit only matters for an amend (its parent, its trailer)
  const headInfo = isAmendFlow ? await readCommit(ctx.repo, ctx.head) : null;
  const base = isAmendFlow ? (headInfo?.parents[0] ?? EMPTY_TREE[ctx.repo.objectFormat]) : ctx.head;
  // candidates first: the staged diff then only looks at them (and is skipped when there are none)
  const view = sessions.some((w) => w.state.phase === 'active') ? await viewWorkTree(ctx.repo) : null;
  const cands = new Map<string, Set<string>>();
  for (const w of sessions) cands.set(w.state.session_id, await candidatesOf(ctx, w.state, view));
  const union = new Set<string>();
  for (const c of cands.values()) for (const p of c) union.add(p);
  let staged = new Set<string>();
  if (union.size > 0) {
    staged = new Set(await stagedPaths(ctx.repo, base, [...union]));
  }
  mark('pcm: staged');
  const perSession: Record<string, string[]> = {};
  const qualifying: SessionState[] = [];
  for (const w of sessions) {
    const c = [...cands.get(w.state.session_id)!].filter((p) => staged.has(p)).sort();
    perSession[w.state.session_id] = c;
    if (c.length > 0) qualifying.push(w.state);
  }

  let id: string | null = null;
  if (isAmendFlow) {
    id = lastCheckpointIdInFinalBlock(message, { commentChar: cc });
    if (!id) {
      const restored = headInfo ? lastCheckpointIdInFinalBlock(headInfo.message) : null;
      if (restored) {
        id = restored;
        message = addCheckpointTrailer(message, id, { commentChar: cc });
      } else if (qualifying.length > 0) {
        id = await mintId(ctx);
        message = await withTrailer(ctx, message, id, cc, qualifying[0]!);
      }
    }
  } else {
    // New: IDs this hook did not mint (copied by -c/-C, or by an agent from git log) never link
    if (checkpointIdsInFinalBlock(message, { commentChar: cc }).length > 0) message = removeCheckpointTrailers(message, { commentChar: cc });
    if (qualifying.length > 0) {
      let link = true;
      if (source === 'message') {
        const first = qualifying[0]!;
        const answer = await askLink(async () => {
          const agent = (await adapterFor(first)).displayName;
          const p = await lastPromptOf(ctx.repo.root, first);
          return `You have an active ${agent} session.\nLast Prompt: ${p}\nLink this commit to ${agent} session context? [Y/n] `;
        });
        link = answer !== 'no';
      }
      if (link) {
        id = await mintId(ctx);
        message = await withTrailer(ctx, message, id, cc, qualifying[0]!);
      }
    }
  }
  mark('pcm: decided');
  // the intent first: a trailer must never reach the message without the
  // intent that lets post-commit (or recovery) write its checkpoint (P1)
  if (sessions.length > 0 || id) {
    writeIntent(ctx.repo.gitDir, {
      id,
      mode: isAmendFlow ? 'amend' : 'new',
      head_before: ctx.head,
      created_at: ctx.now().toISOString(),
      sessions: id ? perSession : {},
      git_pid: argvPid(),
      worktree: ctx.repo.root,
    });
    fault('prepare-commit-msg-after-intent');
  }
  fault('prepare-commit-msg-before-message');
  if (message !== original) writeFileSync(file, message, encoding);
  fault('prepare-commit-msg-after-message');
  ctx.log.debug('prepare-commit-msg', { checkpoint_id: id ?? undefined });
}

function argvPid(): number | undefined {
  const n = Number(process.env['ENTIRE_GIT_PID']);
  return Number.isInteger(n) && n > 1 ? n : undefined;
}

async function withTrailer(ctx: HookContext, message: string, id: string, cc: string | null, s: SessionState): Promise<string> {
  // git signals "no editor" by exporting GIT_EDITOR=: to the hook
  if (process.env['GIT_EDITOR'] === ':') return addCheckpointTrailer(message, id, { commentChar: cc });
  const agent = (await adapterFor(s)).displayName;
  const prompt = await lastPromptOf(ctx.repo.root, s);
  return editorMessage(message, id, cc, cc ? editorComments(cc, agent, prompt) : []);
}

// ------------------------------------------------------------------ commit-msg

/** SPEC §6.4: a message that is only our trailer is emptied so git aborts; always exit 0. */
export async function commitMsg(ctx: HookContext, args: string[]): Promise<void> {
  const file = args[0];
  if (!file) return;
  const { text, encoding } = readMessageFile(file);
  const cc = await commentCharOf(ctx);
  const body = messageBody(text, { commentChar: cc });
  const content = body.split('\n').filter((l) => l.trim() !== '' && !(cc && l.startsWith(cc)));
  if (content.length === 0 || !content.every((l) => /^Entire-Checkpoint:/.test(l))) return;
  const out = text
    .split('\n')
    .filter((l) => !/^Entire-Checkpoint:/.test(l.replace(/\r$/, '')))
    .join('\n');
  writeFileSync(file, out, encoding);
}

// ------------------------------------------------------------------ post-commit

function validIntent(ctx: HookContext, intent: CommitIntent, head: { message: string; parents: string[] }, beforeParents: string[] | null): boolean {
  if (!intent.id) return false;
  const age = ctx.now().getTime() - Date.parse(intent.created_at);
  if (!(age >= 0 && age < INTENT_MAX_AGE_MS)) return false;
  if (intent.worktree && intent.worktree !== ctx.repo.root) return false;
  if (!checkpointIdsInFinalBlock(head.message).includes(intent.id)) return false;
  if (intent.mode === 'new') return head.parents[0] === intent.head_before;
  if (ctx.head === intent.head_before || beforeParents === null) return false;
  return beforeParents.join(' ') === head.parents.join(' ');
}

export async function postCommit(ctx: HookContext): Promise<void> {
  if (!ctx.head) return;
  const argv = gitArgv();
  if (isSequencing(ctx, argv)) return;
  const head = await readCommit(ctx.repo, ctx.head);
  if (!head) return;
  mark('post-commit: head read');
  const intent = readIntent(ctx.repo.gitDir);
  const before = intent?.head_before ? await readCommit(ctx.repo, intent.head_before) : null;
  const headBefore = intent?.head_before || head.parents[0] || '';
  const condensed = new Set<string>();
  // one listing for the whole hook: later steps work from these states
  const listed = headBefore && headBefore !== ctx.head ? liveSessions(ctx).map((w) => w.state) : [];
  const after = new Map<string, SessionState>(listed.map((st) => [st.session_id, st]));

  if (intent && validIntent(ctx, intent, head, before ? before.parents : null)) {
    const id = intent.id!;
    // what may remain uncommitted: the intent's sessions' files (status of those paths only)
    const watched = new Set<string>();
    for (const st of listed) if (st.session_id in intent.sessions) for (const f of st.files_touched ?? []) watched.add(f);
    for (const files of Object.values(intent.sessions)) for (const f of files) watched.add(f);
    const scope = listed.length > 0 ? [...watched] : undefined;
    const intentFiles = [...new Set(Object.values(intent.sessions).flat())];
    // a handful of paths: compared through the object reader, without spawning git
    const [changed, differing] = await Promise.all([
      changedBetween(ctx.repo, head.parents[0] ?? null, ctx.head, intentFiles),
      scope
        ? differingFromCommit(ctx.repo, ctx.head, scope)
        : watched.size > 0
          ? viewWorkTree(ctx.repo).then((v) => v.differing)
          : Promise.resolve(new Set<string>()),
    ]);
    const targets = Object.entries(intent.sessions)
      .map(([sid, files]) => [sid, files.filter((f) => changed.has(f)).sort()] as const)
      .filter(([, files]) => files.length > 0);
    mark('post-commit: changed paths and differing files');
    // the common case, one session and nothing else on the old shadow branch:
    // its deletion rides in the checkpoint's ref transaction (SPEC §6.5 step 5)
    const oldShadow = shadowBranchName(headBefore, ctx.repo.worktreeId);
    const soleOwner =
      targets.length === 1 &&
      listed.length > 0 &&
      headBefore !== ctx.head &&
      oldShadow !== shadowBranchName(ctx.head, ctx.repo.worktreeId) &&
      listed.every((st) => st.session_id === targets[0]![0] || st.base_commit !== headBefore) &&
      !listed.some((st) => (st.pending_condensations ?? []).some((p) => p.shadow_branch === oldShadow));
    for (const [sid, files] of targets) {
      condensed.add(sid);
      const saved = await condenseOne(ctx, sid, id, files, new Set(differing), scope ? watched : null, soleOwner ? `refs/heads/${oldShadow}` : undefined);
      if (saved) after.set(sid, saved);
    }
  } else if (intent) {
    ctx.log.debug('post-commit: intent does not match this commit', {});
  }
  mark('post-commit: condensed');
  fault('post-commit-before-intent-delete');
  if (intent) removeIntent(ctx.repo.gitDir);
  fault('post-commit-after-intent-delete');

  mark('post-commit: intent removed');
  // 4. other sessions based on the previous HEAD follow HEAD
  if (headBefore && headBefore !== ctx.head) {
    for (const st of listed) {
      if (condensed.has(st.session_id) || st.base_commit !== headBefore) continue;
      try {
        const saved = await updateState(ctx.repo.commonDir, st.session_id, async (s) => (s ? await migrateIfMoved(ctx, s) : null), { waitMs: 2000 });
        if (saved) after.set(st.session_id, saved);
      } catch (e) {
        ctx.log.warn('could not move a session to the new HEAD', { session_id: st.session_id, error: e });
      }
    }
    mark('post-commit: others followed');
    // 5. the old shadow branch goes only when nothing names it
    fault('post-commit-before-shadow-delete');
    await deleteShadowIfUnreferenced(ctx, shadowBranchName(headBefore, ctx.repo.worktreeId), [...after.values()], { listed: true }).catch((e) =>
      ctx.log.warn('shadow cleanup failed', { error: e }),
    );
  }
}

async function condenseOne(
  ctx: HookContext,
  sid: string,
  id: string,
  files: string[],
  differing: Set<string>,
  scope: ReadonlySet<string> | null,
  dropShadowRef?: string,
): Promise<SessionState | null> {
  const head = ctx.head!;
  try {
    return await updateState(
      ctx.repo.commonDir,
      sid,
      async (loaded) => {
        if (!loaded) return null;
        let state = await retryPendingCondensations(ctx, loaded);
        const oldShadow = state.base_commit ? shadowBranchName(state.base_commit, ctx.repo.worktreeId) : '';
        const adapter = await adapterFor(state);
        const pos = positionOf(adapter, state.transcript_path, { root: ctx.repo.root, sessionId: sid });
        const r = transition(state.phase, 'GitCommit', { qualifies: true });
        applyBookkeeping(state, r, ctx.now());
        try {
          fault('post-commit-before-condense');
          // a pending retry above may still need the old branch: then keep it
          const drop = dropShadowRef && !(state.pending_condensations ?? []).length ? dropShadowRef : undefined;
          await condenseSession(ctx, { checkpointId: id, state, files, dropShadowRef: drop });
          fault('post-commit-after-condense');
          writeStderr(`[entire] Condensed session ${sid.slice(0, 8)}: ${id} (${state.checkpoint_count ?? 0} checkpoints)\n`);
        } catch (e) {
          const entry = pendingEntry({ checkpointId: id, commit: head, files, state, position: pos.position, shadowBranch: oldShadow, error: e, now: ctx.now() });
          state.pending_condensations = [...(state.pending_condensations ?? []).filter((p) => p.checkpoint_id !== id), entry];
          writeStderr(`[entire] Warning: checkpoint ${id} not written yet; will retry\n`);
          ctx.log.error('condense failed; recorded as pending', { session_id: sid, checkpoint_id: id, error: e });
        }
        // 3. bookkeeping, success or not
        state = { ...state };
        state.last_checkpoint_id = id;
        if (pos.position) state.checkpoint_transcript_start = pos.position;
        if (pos.lastIdentifier) state.transcript_identifier_at_start = pos.lastIdentifier;
        delete state.token_usage;
        delete state.prompt_attributions;
        // files the status was not asked about (the state changed since the listing): ask now
        const unknown = scope ? (state.files_touched ?? []).filter((p) => !scope.has(p)) : [];
        if (unknown.length > 0) for (const p of await differingFromCommit(ctx.repo, head, unknown)) differing.add(p);
        const remaining = (state.files_touched ?? []).filter((p) => differing.has(p)).sort();
        if (remaining.length > 0) state.files_touched = remaining;
        else delete state.files_touched;
        state.base_commit = head;
        state.attribution_base_commit = head;
        if (state.phase === 'active') {
          // provisional: the Stop hook rewrites it with the full turn
          const ids = state.turn_checkpoint_ids ?? [];
          if (!ids.includes(id)) state.turn_checkpoint_ids = [...ids, id];
        }
        state.checkpoint_count = 0;
        if (remaining.length > 0) {
          fault('post-commit-before-carry-forward');
          mark('post-commit: carry-forward');
          try {
            const transcript = state.transcript_path && readableTranscript(state.transcript_path)
              ? await redactedTranscript(ctx.repo.root, sid, adapter, state.transcript_path)
              : null;
            const res = await writeShadowStep(ctx.repo, {
              baseCommit: head,
              worktreeId: ctx.repo.worktreeId,
              sessionId: sid,
              paths: remaining,
              statusPaths: remaining, // F(s) comes from git status: never ignored files
              metadata: transcript
                ? { transcript, format: adapter.transcriptFormat, prompts: await promptsOf(adapter, state.transcript_path, { root: ctx.repo.root, sessionId: sid }), promptsRedacted: true }
                : null,
              subject: CARRY_FORWARD_SUBJECT,
            });
            state.checkpoint_count = res.commit ? 1 : 0;
            mark('post-commit: carried forward');
          } catch (e) {
            ctx.log.warn('carry-forward failed', { session_id: sid, error: e });
          }
        }
        fault('post-commit-before-state-save');
        return state;
      },
      { waitMs: 5000 },
    );
  } catch (e) {
    if (e instanceof EntireError && e.code === 'LOCK_TIMEOUT') {
      // the state is busy: leave a lock-free side file the next locked update merges.
      // The state read without the lock (writes are atomic renames) gives the
      // transcript range, step count and turn the checkpoint needs: a stub range
      // of [0, 0) would write an empty transcript, and no turn id no finalization
      const stub = { session_id: sid, checkpoint_count: 0, checkpoint_transcript_start: 0, turn_id: '' } as unknown as SessionState;
      let peek: SessionState | null = null;
      try {
        peek = loadState(ctx.repo.commonDir, sid)?.state ?? null;
      } catch {
        /* corrupt: the stub */
      }
      const pos = peek ? positionOf(await adapterFor(peek), peek.transcript_path, { root: ctx.repo.root, sessionId: sid }).position : 0;
      const shadowBranch = peek?.base_commit ? shadowBranchName(peek.base_commit, ctx.repo.worktreeId) : '';
      writePendingSideFile(ctx.repo.commonDir, sid, pendingEntry({ checkpointId: id, commit: head, files, state: peek ?? stub, position: pos, shadowBranch, error: e, now: ctx.now() }));
      writeStderr(`[entire] Warning: checkpoint ${id} not written yet; will retry\n`);
      ctx.log.error('session busy at post-commit; recorded a pending side file', { session_id: sid, checkpoint_id: id, error: e });
      return null;
    }
    throw e;
  }
}

// ------------------------------------------------------------------ recovery (§6.5 step 6)

function pidAlive(pid: number | undefined): boolean | null {
  return pid ? isPidAlive(pid) : null;
}

/**
 * An intent whose git process is gone (or that is over an hour old) was
 * never consumed by a post-commit: if a recent commit carries its ID, each
 * session whose slot is missing from the checkpoint gets pending work (the
 * transcript up to now: the position at the commit is unknown); a session
 * that was condensed but whose state update was cut off while its turn runs
 * gets the ID to finalize. The intent is dropped afterwards.
 */
export async function recoverStaleIntent(ctx: HookContext): Promise<void> {
  const intent = readIntent(ctx.repo.gitDir);
  if (!intent) return;
  const alive = pidAlive(intent.git_pid);
  const age = ctx.now().getTime() - Date.parse(intent.created_at);
  const stale = alive === false || (alive === null && !(age < INTENT_MAX_AGE_MS)) || Number.isNaN(age);
  if (!stale || (intent.git_pid !== undefined && intent.git_pid === argvPid())) return;
  removeIntentAfter: {
    if (!intent.id || !ctx.head) break removeIntentAfter;
    let rev: string | null = ctx.head;
    for (let i = 0; i <= 10 && rev; i++) {
      const c = await readCommit(ctx.repo, rev);
      if (!c) break;
      if (checkpointIdsInFinalBlock(c.message).includes(intent.id)) {
        const view = await readCheckpoint(ctx.repo, intent.id).catch(() => null);
        for (const [sid, files] of Object.entries(intent.sessions)) {
          if (files.length === 0) continue;
          // an amend's slot exists from the amended commit: it is rewritten either way
          const condensed = intent.mode !== 'amend' && (view?.sessions.some((x) => x.metadata.session_id === sid) ?? false);
          await updateState(ctx.repo.commonDir, sid, async (s) => {
            if (!s) return null;
            if (condensed) {
              // written, but the state update was cut off: the running turn still finalizes it
              if (s.phase !== 'active' || (s.turn_checkpoint_ids ?? []).includes(intent.id!)) return null;
              s.turn_checkpoint_ids = [...(s.turn_checkpoint_ids ?? []), intent.id!];
              return s;
            }
            const adapter = await adapterFor(s);
            const now = positionOf(adapter, s.transcript_path, { root: ctx.repo.root, sessionId: sid });
            const entry = pendingEntry({
              checkpointId: intent.id!,
              commit: c.oid,
              files,
              state: s,
              position: Math.max(now.position, s.checkpoint_transcript_start ?? 0),
              shadowBranch: s.base_commit ? shadowBranchName(s.base_commit, ctx.repo.worktreeId) : '',
              error: 'post-commit never ran',
              now: ctx.now(),
            });
            // write it now: whichever hook found the intent resolves the trailer (P1);
            // if that fails too, it is pending work like any failed condense
            try {
              await condenseSession(ctx, {
                checkpointId: intent.id!,
                state: s,
                files,
                transcriptStart: entry.transcript_start,
                transcriptEnd: entry.transcript_end,
                stepCount: entry.step_count,
                turnId: entry.turn_id,
                shadowBranch: entry.shadow_branch,
              });
              if (s.phase === 'active' && !(s.turn_checkpoint_ids ?? []).includes(intent.id!)) s.turn_checkpoint_ids = [...(s.turn_checkpoint_ids ?? []), intent.id!];
              ctx.log.info('wrote the checkpoint of an interrupted commit', { session_id: sid, checkpoint_id: intent.id! });
            } catch (e) {
              entry.last_error = describeError(e).slice(0, 500);
              s.pending_condensations = [...(s.pending_condensations ?? []).filter((p) => p.checkpoint_id !== intent.id), entry];
              ctx.log.warn('checkpoint of an interrupted commit not written yet', { session_id: sid, checkpoint_id: intent.id!, error: e });
            }
            return s;
          }).catch((e) => ctx.log.warn('cannot record a recovered intent', { session_id: sid, error: e }));
        }
        break;
      }
      rev = c.parents[0] ?? null;
    }
  }
  removeIntent(ctx.repo.gitDir);
  ctx.log.info('recovered a stale commit intent', { checkpoint_id: intent.id ?? undefined });
}

