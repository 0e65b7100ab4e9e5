/**
 * prepare-commit-msg (SPEC §6.3): decide whether this commit gets a
 * checkpoint, and if so mint its ID, record the intent, and add the trailer.
 * The intent is written before the trailer reaches the message, so a trailer
 * never exists without what post-commit (or recovery) needs to resolve it (P1).
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HookContext } from './context.js';
import type { SessionState } from '../session/state.js';
import { gitArgv, gitSubcommand, isAmend } from '../git/argv.js';
import { stagedPaths } from '../git/status.js';
import { EMPTY_TREE } from '../git/repo.js';
import { readCommit } from '../store/tree.js';
import { checkpointExists } from '../store/routing.js';
import { isHexCheckpointId } from '../trust/ids.js';
import { generateCheckpointId } from '../checkpoint/id.js';
import { collapsePrompt } from '../checkpoint/prompts.js';
import { addCheckpointTrailer, removeCheckpointTrailers, checkpointIdsInFinalBlock, lastCheckpointIdInFinalBlock, finalTrailerBlock } from '../checkpoint/trailers.js';
import { writeIntent } from './intent.js';
import { processStartTime } from '../process-identity.js';

/** The git process running this commit: its pid and start time (a stale intent is told by them). */
function gitProcess(): { git_pid?: number; git_start?: string } {
  const pid = argvPid();
  if (pid === undefined) return {};
  const start = processStartTime(pid);
  return start ? { git_pid: pid, git_start: start } : { git_pid: pid };
}
import { readPrePrompt } from './scratch.js';
import { viewWorkTree, turnCandidates } from './worktree.js';
import { adapterFor, analyze, promptsOf, readableTranscript } from './transcript.js';
import { askLink } from './tty.js';
import { fault } from './faults.js';
import { mark } from '../timing.js';
import { argvPid, commentCharOf, isSequencing, liveSessions, readMessageFile, staleIntent } from './commit-message.js';

/**
 * cand(s) (SPEC §6.3): files_touched, plus the running turn's changes when
 * ACTIVE, plus what its background subagents edit in any phase (SPEC-2 §B.5).
 */
async function candidatesOf(ctx: HookContext, s: SessionState, view: Awaited<ReturnType<typeof viewWorkTree>> | null): Promise<Set<string>> {
  const cand = new Set(s.files_touched ?? []);
  if (s.background_agents?.length) {
    const { backgroundEditPaths } = await import('./background.js');
    const { toRepoRelative } = await import('../agents/kit/home-paths.js');
    for (const p of toRepoRelative(backgroundEditPaths(s, await adapterFor(s), ctx.now()), ctx.repo.root)) cand.add(p);
  }
  if (s.phase === 'active') {
    const adapter = await adapterFor(s);
    const pre = readPrePrompt(ctx.repo.root, s.session_id);
    const turn = analyze(adapter, s.transcript_path, pre?.step_transcript_start ?? s.checkpoint_transcript_start ?? 0, { root: ctx.repo.root, sessionId: s.session_id });
    const v = view ?? (await viewWorkTree(ctx.repo));
    for (const p of turnCandidates({ root: ctx.repo.root, editPaths: turn?.modifiedFiles ?? [], before: pre ? pre.dirty_files : null, now: v })) {
      cand.add(p);
    }
    // ACTIVE without a transcript: what the session is known to touch is all we have
    if (!s.transcript_path || !readableTranscript(adapter, s.transcript_path, ctx.repo.root)) for (const p of v.differing) if (!pre || pre.dirty_files[p] === undefined) cand.add(p);
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



export async function prepareCommitMsg(ctx: HookContext, args: string[]): Promise<void> {
  const [file, source = '', rev = ''] = args;
  if (!file || !ctx.head) return;
  const argv = gitArgv();
  if (isSequencing(ctx, argv)) return;
  const sub = argv ? gitSubcommand(argv) : null;
  if (source === 'merge' && sub !== 'commit') return; // git merge/pull: no post-commit follows
  if (existsSync(join(ctx.repo.gitDir, 'SQUASH_MSG'))) await (await import('../links/squash.js')).recordSquashedIds(ctx);
  // a commit whose post-commit never ran: its checkpoint first (rare; loaded only then)
  if (staleIntent(ctx)) await (await import('./stale-intent.js')).recoverStaleIntent(ctx);
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
    // only an id the branch writer can write is kept (a Go ULID's ref is not written here yet:
    // the amended commit gets a hex id beside it, as before ULIDs were read)
    id = branchWritable(lastCheckpointIdInFinalBlock(message, { commentChar: cc }));
    if (!id) {
      const restored = headInfo ? branchWritable(lastCheckpointIdInFinalBlock(headInfo.message)) : null;
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
          // SPEC-2 §B.2: a session that has ended is not "active"
          const opening = first.phase === 'ended' ? `You have uncommitted ${agent} session work.` : `You have an active ${agent} session.`;
          return `${opening}\nLast Prompt: ${p}\nLink this commit to ${agent} session context? [Y/n] `;
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
      ...gitProcess(),
      worktree: ctx.repo.root,
    });
    fault('prepare-commit-msg-after-intent');
  }
  fault('prepare-commit-msg-before-message');
  if (message !== original) writeFileSync(file, message, encoding);
  fault('prepare-commit-msg-after-message');
  ctx.log.debug('prepare-commit-msg', { checkpoint_id: id ?? undefined });
}


async function withTrailer(ctx: HookContext, message: string, id: string, cc: string | null, s: SessionState): Promise<string> {
  // git signals "no editor" by exporting GIT_EDITOR=: to the hook
  if (process.env['GIT_EDITOR'] === ':') return addCheckpointTrailer(message, id, { commentChar: cc });
  const agent = (await adapterFor(s)).displayName;
  const prompt = await lastPromptOf(ctx.repo.root, s);
  return editorMessage(message, id, cc, cc ? editorComments(cc, agent, prompt) : []);
}


/** `id` when the v1 branch writer can write it (SPEC-3 §A.5: a ULID never goes on the branch), else null. */
function branchWritable(id: string | null): string | null {
  return id !== null && isHexCheckpointId(id) ? id : null;
}
