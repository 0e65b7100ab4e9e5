/**
 * `entire explain` (SPEC §8.9): the story behind commits and checkpoints.
 * Read-only (no state file or ref changes), works when Entire is disabled,
 * and reads Go-written data (§2.10).
 *
 *   (default)            checkpoints linked from HEAD's last 50 first-parent commits
 *   --commit <rev>       that commit's checkpoints, sessions, prompts and transcript
 *   --checkpoint <id>    one checkpoint (unique prefix accepted) in detail
 *   --session <id>       checkpoints containing that session (with --checkpoint: pick the session)
 *   --short | --full | --raw-transcript, --json
 */
import { copyUsage } from '../checkpoint/metadata.js';
import { EntireError, isEntireError } from '../errors.js';
import { openRepo, headCommit, currentBranch, revParse, type Repo } from '../git/repo.js';
import { runGit } from '../git/exec.js';
import { allCheckpointIds } from '../checkpoint/trailers.js';
import { linkedIds } from '../links/commit-ids.js';
import { isCheckpointId, isHexCheckpointId, isUlidCheckpointId } from '../checkpoint/id.js';
import { agentForStoredData, recognizeTranscript } from '../agents/registry.js';
import { decodePromptFile, collapsePrompt } from '../checkpoint/prompts.js';
import { addUsage, type TokenUsage } from '../checkpoint/metadata.js';
import { readBlob } from '../store/tree.js';
import {
  checkpointExists,
  listCheckpoints,
  readCheckpoint,
  readSessionContent,
  type CheckpointView,
  type CommittedSessionView,
  type SessionContent,
} from '../store/routing.js';
import { encodeJson } from '../go-json.js';
import { formatCount, type Io } from './common.js';
import { renderTranscript } from './render-transcript.js';
import { termSafe } from '../trust/terminal.js';

export const DEFAULT_LIST_COMMITS = 50;
export const AUTHOR_SEARCH_COMMITS = 1000;

export interface ExplainOptions {
  checkpoint?: string;
  commit?: string;
  session?: string;
  short?: boolean;
  full?: boolean;
  rawTranscript?: boolean;
  json?: boolean;
}

// ------------------------------------------------------------------ JSON shapes (SPEC §8.9)

export interface ListItemJson {
  checkpoint_id: string;
  commit: string;
  subject: string;
  date: string;
  agent: string;
  session_ids: string[];
  files_touched: string[];
  first_prompt: string;
}

export interface DetailSessionJson {
  index: number;
  session_id: string;
  agent: string;
  /** The model the slot's metadata names; null when it names none (or an invalid one). */
  model: string | null;
  created_at: string;
  turn_id: string;
  checkpoints_count: number;
  files_touched: string[];
  token_usage: TokenUsage | null;
  checkpoint_transcript_start: number;
  prompts: string[];
  summary: unknown;
  transcript_bytes: number;
}

export interface DetailJson {
  checkpoint_id: string;
  strategy: string;
  branch: string;
  checkpoints_count: number;
  files_touched: string[];
  token_usage: TokenUsage | null;
  commits: { sha: string; subject: string; date: string }[];
  sessions: DetailSessionJson[];
}

// ------------------------------------------------------------------ git history

export interface CommitRow {
  sha: string;
  /** Author date, ISO 8601 (`git log %aI`). */
  date: string;
  /** `Name <email>` */
  author: string;
  subject: string;
  message: string;
  /** Checkpoint IDs the message and the notes link (SPEC §2.2 reader rule, SPEC-2 §D.5). */
  ids: string[];
}

/** `git log -z` rows for `args` (one call), with their linked checkpoint IDs. */
async function logRows(repo: Repo, args: string[]): Promise<CommitRow[]> {
  const r = await runGit(['log', '-z', '--format=%H%x1f%aI%x1f%an <%ae>%x1f%s%x1f%B', ...args, '--'], {
    cwd: repo.root,
    allowFailure: true,
  });
  if (r.code !== 0) return [];
  const rows: CommitRow[] = [];
  for (const rec of r.stdout.toString('utf8').split('\0')) {
    if (rec.trim() === '') continue;
    const parts = rec.replace(/^\n/, '').split('\x1f');
    if (parts.length < 5) continue;
    const [sha, date, author, subject] = parts as [string, string, string, string];
    const message = parts.slice(4).join('\x1f');
    rows.push({ sha, date, author, subject, message, ids: await linkedIds(repo, sha, message) });
  }
  return rows;
}

/** HEAD's last `n` first-parent commits with their linked checkpoint IDs: one `git log` call. */
export async function firstParentHistory(repo: Repo, n: number): Promise<CommitRow[]> {
  if (!(await headCommit(repo))) return [];
  return logRows(repo, ['--first-parent', `-n${n}`, 'HEAD']);
}

// ------------------------------------------------------------------ reading checkpoints

interface SessionInfo {
  view: CommittedSessionView;
  /** The slot number shown to people and in JSON (a legacy single-session dir is 0). */
  index: number;
  agent: string;
  prompts: string[];
}

/** SPEC §2.7: the slot's `agent`, else the agent its transcript recognisably comes from, else `Agent` (§2.10). */
async function sessionAgent(repo: Repo, view: CommittedSessionView): Promise<string> {
  if (view.metadata.agent) return view.metadata.agent;
  const name = view.files.includes('full.jsonl') ? 'full.jsonl' : view.files.includes('full.log') ? 'full.log' : null;
  if (name) {
    const blob = await readBlob(repo, view.tip, `${view.dir}/${name}`);
    const found = blob && blob.length > 0 ? await recognizeTranscript(blob.toString('utf8')) : undefined;
    if (found) return found.displayName;
  }
  return 'Agent';
}

async function sessionInfos(repo: Repo, cp: CheckpointView): Promise<SessionInfo[]> {
  return Promise.all(
    cp.sessions.map(async (view): Promise<SessionInfo> => {
      const [agent, promptBlob] = await Promise.all([
        sessionAgent(repo, view),
        view.files.includes('prompt.txt') ? readBlob(repo, view.tip, `${view.dir}/prompt.txt`) : Promise.resolve(null),
      ]);
      return { view, index: Math.max(0, view.slot), agent, prompts: promptBlob ? decodePromptFile(promptBlob.toString('utf8')) : [] };
    }),
  );
}

interface LoadedCheckpoint {
  cp: CheckpointView;
  sessions: SessionInfo[];
}

async function loadCheckpoint(repo: Repo, id: string, io: Io): Promise<LoadedCheckpoint | null> {
  const cp = await readCheckpoint(repo, id);
  if (!cp) return null;
  // slots that fail the checks are left out with one warning; the rest show (SPEC-2 §A.2)
  if (cp.skipped.length > 0) io.err(`[entire] Warning: checkpoint ${id}: skipped ${cp.skipped.join('; ')}`);
  return { cp, sessions: await sessionInfos(repo, cp) };
}

/** For listings: a checkpoint whose metadata cannot be parsed is reported and skipped, not fatal. */
async function tryLoad<T>(io: Io, id: string, load: () => Promise<T | null>): Promise<T | null> {
  try {
    return await load();
  } catch (e) {
    if (!isEntireError(e, 'CORRUPT_METADATA')) throw e;
    io.err(`[entire] Warning: skipping checkpoint ${id}: ${e.message}`);
    return null;
  }
}

function uniqueJoin(values: string[]): string {
  return [...new Set(values)].join(', ');
}

function firstPromptOf(l: LoadedCheckpoint): string {
  for (const s of l.sessions) {
    const p = s.prompts.find((x) => x.trim() !== '');
    if (p) return collapsePrompt(p, 100);
  }
  return '';
}

function listItem(l: LoadedCheckpoint, c: { sha: string; subject: string; date: string }): ListItemJson {
  return {
    checkpoint_id: l.cp.checkpointId,
    commit: c.sha,
    subject: c.subject,
    date: c.date,
    agent: uniqueJoin(l.sessions.map((s) => s.agent)),
    session_ids: l.sessions.map((s) => s.view.metadata.session_id),
    files_touched: l.cp.root.files_touched ?? [],
    first_prompt: firstPromptOf(l),
  };
}

// ------------------------------------------------------------------ entry point

function usage(msg: string): EntireError {
  return new EntireError('INVALID_USAGE', msg);
}

function validate(opts: ExplainOptions): void {
  if (opts.commit !== undefined && opts.checkpoint !== undefined) throw usage('--commit and --checkpoint cannot be used together');
  if (opts.session !== undefined && opts.commit !== undefined) throw usage('--session and --commit cannot be used together');
  const modes = [opts.short, opts.full, opts.rawTranscript].filter(Boolean).length;
  if (modes > 1) throw usage('--short, --full and --raw-transcript are mutually exclusive');
  if (opts.rawTranscript && opts.json) throw usage('--raw-transcript and --json cannot be used together');
  if (opts.rawTranscript && opts.checkpoint === undefined && opts.commit === undefined) {
    throw usage('--raw-transcript needs --checkpoint or --commit');
  }
  for (const [flag, v] of [
    ['--commit', opts.commit],
    ['--checkpoint', opts.checkpoint],
    ['--session', opts.session],
  ] as const) {
    if (v !== undefined && v.trim() === '') throw usage(`${flag} needs a value`);
  }
}

export async function runExplain(cwd: string, opts: ExplainOptions, io: Io): Promise<void> {
  validate(opts);
  const repo = await openRepo(cwd);
  try {
    if (opts.commit !== undefined) await explainCommit(repo, opts.commit, opts, io);
    else if (opts.checkpoint !== undefined) await explainCheckpoint(repo, opts.checkpoint, opts, io);
    else if (opts.session !== undefined) await explainSession(repo, opts.session, opts, io);
    else await explainList(repo, opts, io);
  } finally {
    repo.objects.close();
  }
}

// ------------------------------------------------------------------ default list

async function explainList(repo: Repo, opts: ExplainOptions, io: Io): Promise<void> {
  const history = await firstParentHistory(repo, DEFAULT_LIST_COMMITS);
  const seen = new Set<string>();
  const wanted: { id: string; row: CommitRow }[] = [];
  for (const row of history) {
    for (const id of row.ids) {
      if (seen.has(id)) continue; // newest linking commit wins
      seen.add(id);
      wanted.push({ id, row });
    }
  }
  const loaded = await Promise.all(wanted.map(async (w) => ({ w, l: await tryLoad(io, w.id, () => loadCheckpoint(repo, w.id, io)) })));
  const items: ListItemJson[] = [];
  for (const { w, l } of loaded) {
    // a trailer whose checkpoint is missing is `doctor`'s business (dangling-trailer)
    if (l) items.push(listItem(l, w.row));
  }
  if (opts.json) {
    io.raw(encodeJson({ checkpoints: items }));
    return;
  }
  const where = currentBranch(repo) ?? 'HEAD';
  if (items.length === 0) {
    io.out(`No Entire checkpoints in the last ${DEFAULT_LIST_COMMITS} commits of ${where}.`);
    return;
  }
  io.out(`Checkpoints on ${where} (last ${DEFAULT_LIST_COMMITS} commits): ${items.length}`);
  io.out();
  printListItems(items, io);
  io.out();
  io.out('Run `entire explain --checkpoint <id>` or `entire explain --commit <sha>` for details.');
}

function shortDate(iso: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(iso);
  return m ? `${m[1]} ${m[2]}` : iso;
}

function printListItems(items: ListItemJson[], io: Io): void {
  for (const it of items) {
    const commit = it.commit ? it.commit.slice(0, 7) : '(no commit)';
    io.out(`${it.checkpoint_id}  ${commit}  ${shortDate(it.date)}  ${it.subject}`.trimEnd());
    const more = it.session_ids.length > 1 ? ` (${it.session_ids.length} sessions)` : '';
    io.out(`    [${it.agent || 'Agent'}]${more} ${it.first_prompt ? `"${it.first_prompt}"` : '(no prompt recorded)'}`);
  }
}

// ------------------------------------------------------------------ --session

function sessionMatches(sid: string, q: string): boolean {
  return sid === q || sid.startsWith(q) || (q.length >= 8 && sid.endsWith(`-${q}`));
}

async function explainSession(repo: Repo, q: string, opts: ExplainOptions, io: Io): Promise<void> {
  const all = await listCheckpoints(repo);
  // match on the slots' metadata first; prompts and agents are read only for the hits
  const views = await Promise.all(all.map((c) => tryLoad(io, c.checkpointId, () => readCheckpoint(repo, c.checkpointId))));
  const hits = views.filter(
    (v): v is CheckpointView => v !== null && v.sessions.some((s) => sessionMatches(s.metadata.session_id, q)),
  );
  const loaded: LoadedCheckpoint[] = await Promise.all(hits.map(async (cp) => ({ cp, sessions: await sessionInfos(repo, cp) })));
  if (loaded.length === 0) throw new EntireError('SESSION_NOT_FOUND', `no checkpoints found for session ${q}`);
  const history = await firstParentHistory(repo, AUTHOR_SEARCH_COMMITS);
  const linkedAt = new Map<string, { row: CommitRow; order: number }>();
  history.forEach((row, order) => {
    for (const id of row.ids) if (!linkedAt.has(id)) linkedAt.set(id, { row, order });
  });
  const createdOf = (l: LoadedCheckpoint): string => l.sessions.map((s) => s.view.metadata.created_at).sort()[0] ?? '';
  loaded.sort((a, b) => {
    const la = linkedAt.get(a.cp.checkpointId);
    const lb = linkedAt.get(b.cp.checkpointId);
    if (la && lb) return la.order - lb.order;
    if (la) return -1;
    if (lb) return 1;
    const ca = Date.parse(createdOf(a)) || 0;
    const cb = Date.parse(createdOf(b)) || 0;
    return cb - ca || (a.cp.checkpointId < b.cp.checkpointId ? -1 : 1);
  });
  const items = loaded.map((l) => {
    const link = linkedAt.get(l.cp.checkpointId);
    return listItem(l, link ? link.row : { sha: '', subject: '', date: createdOf(l) });
  });
  if (opts.json) {
    io.raw(encodeJson({ checkpoints: items }));
    return;
  }
  io.out(`Checkpoints with session ${q}: ${items.length}`);
  io.out();
  printListItems(items, io);
}

// ------------------------------------------------------------------ --commit

async function resolveCommit(repo: Repo, rev: string): Promise<string> {
  const sha = rev.startsWith('-') ? null : await revParse(repo, `${rev}^{commit}`);
  if (!sha) throw new EntireError('INVALID_INPUT', `unknown commit: ${rev}`);
  return sha;
}

function transcriptScope(content: SessionContent, full: boolean): { from: number; label: string } {
  const start = content.metadata.checkpoint_transcript_start ?? 0;
  if (full || start <= 0) return { from: 0, label: 'Transcript:' };
  return { from: start, label: 'Transcript (this checkpoint; --full for the whole session):' };
}

/** Rendered transcript lines of one session (empty array when none is stored). */
async function transcriptLines(content: SessionContent, full: boolean, indent: string): Promise<{ label: string; lines: string[] }> {
  if (!content.transcript || content.transcript.length === 0) return { label: 'Transcript:', lines: [`${indent}(no transcript stored)`] };
  const adapter = await agentForStoredData(content.metadata.agent, content.transcript);
  let { from, label } = transcriptScope(content, full);
  let lines = renderTranscript(adapter, content.transcript, content.format, { from, full, indent });
  if (lines.length === 0 && from > 0) {
    // the offset is past what was stored (e.g. a shortened legacy transcript): show the tail of all of it
    from = 0;
    label = 'Transcript:';
    lines = renderTranscript(adapter, content.transcript, content.format, { from, full, indent });
  }
  if (lines.length === 0) lines = [`${indent}(no conversation entries)`];
  return { label, lines };
}

async function explainCommit(repo: Repo, rev: string, opts: ExplainOptions, io: Io): Promise<void> {
  const sha = await resolveCommit(repo, rev);
  const [commit] = await logRows(repo, ['-n1', '--no-walk', sha]);
  if (!commit) throw new EntireError('INVALID_INPUT', `unknown commit: ${rev}`);
  const subject = commit.subject;
  const row = { sha, subject, date: commit.date };
  const ids = commit.ids;
  const loaded: LoadedCheckpoint[] = [];
  const missing: string[] = [];
  let corrupt = 0;
  for (const id of ids) {
    let l: LoadedCheckpoint | null;
    try {
      l = await loadCheckpoint(repo, id, io);
    } catch (e) {
      // one corrupt checkpoint (someone else's data) costs one warning, not the others (SPEC-2 A15)
      if (!isEntireError(e, 'CORRUPT_METADATA') || ids.length === 1) throw e;
      io.err(`[entire] Warning: skipping checkpoint ${id}: ${e.message}`);
      corrupt++;
      continue;
    }
    if (l) loaded.push(l);
    else missing.push(id);
  }
  if (ids.length > 0 && loaded.length === 0 && corrupt === 0) {
    throw new EntireError('CHECKPOINT_NOT_FOUND', `checkpoint ${missing.join(', ')} linked by commit ${sha.slice(0, 7)} not found (neither a checkpoint ref nor on entire/checkpoints/v1)`);
  }
  for (const id of missing) io.err(`[entire] Warning: checkpoint ${id} linked by commit ${sha.slice(0, 7)} not found (neither a checkpoint ref nor on entire/checkpoints/v1)`);

  if (opts.rawTranscript) {
    if (loaded.length !== 1) {
      throw new EntireError('INVALID_INPUT', ids.length === 0 ? `commit ${sha.slice(0, 7)} has no associated Entire checkpoint` : `commit ${sha.slice(0, 7)} links ${loaded.length} checkpoints; use --checkpoint <id>`);
    }
    await printRawTranscript(repo, loaded[0]!, opts.session, io);
    return;
  }
  // issue 25 #2: a link that only a note makes (anyone who pushes notes can add one) is marked, with whose
  const trailerIds = new Set(allCheckpointIds(commit.message));
  const noteLinks = new Map<string, string | null>();
  if (loaded.some((l) => !trailerIds.has(l.cp.checkpointId))) {
    const { noteAuthor } = await import('./session-claims.js');
    for (const l of loaded) if (!trailerIds.has(l.cp.checkpointId)) noteLinks.set(l.cp.checkpointId, await noteAuthor(repo, sha, l.cp.checkpointId));
  }
  if (opts.json) {
    const item = (l: LoadedCheckpoint): Record<string, unknown> => {
      const base = listItem(l, row) as unknown as Record<string, unknown>;
      if (!noteLinks.has(l.cp.checkpointId)) return base;
      const by = noteLinks.get(l.cp.checkpointId);
      return { ...base, linked_by: 'note', ...(by ? { note_author: by } : {}) };
    };
    io.raw(encodeJson({ checkpoints: loaded.map(item) }));
    return;
  }
  io.out(`Commit: ${sha.slice(0, 7)} ${subject}`.trimEnd());
  if (loaded.length === 0) {
    io.out('No associated Entire checkpoint');
    return;
  }
  for (const l of loaded) {
    io.out();
    if (noteLinks.has(l.cp.checkpointId)) {
      const by = noteLinks.get(l.cp.checkpointId);
      io.out(`Checkpoint: ${l.cp.checkpointId} (linked by a note${by ? ` from ${termSafe(by, false)}` : ''}, not by this commit's trailer)`);
    } else {
      io.out(`Checkpoint: ${l.cp.checkpointId}`);
    }
    for (const s of l.sessions) {
      io.out();
      io.out(`  Session: ${s.view.metadata.session_id}`);
      io.out(`  Agent: ${s.agent}`);
      if (s.view.metadata.model) io.out(`  Model: ${s.view.metadata.model}`);
      const first = s.prompts.find((p) => p.trim() !== '');
      io.out(`  Prompt: ${first ? collapsePrompt(first, 200) : '(none recorded)'}`);
      if (opts.short) continue;
      const content = await readSessionContent(repo, l.cp.checkpointId, { slot: s.index });
      const t = await transcriptLines(content, opts.full === true, '    ');
      io.out();
      io.out(`  ${t.label}`);
      for (const line of t.lines) io.out(line);
    }
  }
}

// ------------------------------------------------------------------ --checkpoint

/** A hex id's prefix (any case, as before ULIDs) or a ULID's prefix (upper case only: SPEC-3 §A.1). */
const HEX_PREFIX = /^[0-9a-f]{1,12}$/;
const ULID_PREFIX = /^[0-7][0-9A-HJKMNP-TV-Z]{0,25}$/;

/** Full ID (12 hex or a ULID, SPEC-3 §A.1) from an ID or a unique prefix; errors name the problem in one line. */
export async function resolveCheckpointId(repo: Repo, q: string): Promise<string> {
  const raw = q.trim();
  const hex = raw.toLowerCase();
  const asHex = HEX_PREFIX.test(hex);
  const asUlid = ULID_PREFIX.test(raw);
  if (!asHex && !asUlid) {
    throw new EntireError('INVALID_CHECKPOINT_ID', `invalid checkpoint id "${q}" (expected 12 hex characters, a 26-character ULID, or a unique prefix of one)`);
  }
  const full = isUlidCheckpointId(raw) ? raw : isHexCheckpointId(hex) ? hex : null;
  if (full !== null) {
    // not local: the routing store fetches it when it can (SPEC-3 §A.4)
    if ((await checkpointExists(repo, full)) || (await readCheckpoint(repo, full))) return full;
    throw new EntireError('CHECKPOINT_NOT_FOUND', `checkpoint not found: ${q}`);
  }
  const matches = (await listCheckpoints(repo))
    .map((c) => c.checkpointId)
    .filter((c) => isCheckpointId(c) && ((asHex && isHexCheckpointId(c) && c.startsWith(hex)) || (asUlid && isUlidCheckpointId(c) && c.startsWith(raw))))
    .sort();
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) throw new EntireError('CHECKPOINT_NOT_FOUND', `checkpoint not found: ${q}`);
  const shown = matches.slice(0, 5).join(', ') + (matches.length > 5 ? ', …' : '');
  throw new EntireError('INVALID_INPUT', `ambiguous checkpoint prefix "${q}" matches ${matches.length} checkpoints: ${shown}`);
}

function pickSession(l: LoadedCheckpoint, q: string | undefined): SessionInfo[] {
  if (q === undefined) return l.sessions;
  const hit = l.sessions.filter((s) => sessionMatches(s.view.metadata.session_id, q));
  if (hit.length === 0) throw new EntireError('SESSION_NOT_FOUND', `session ${q} is not in checkpoint ${l.cp.checkpointId}`);
  return hit;
}

async function printRawTranscript(repo: Repo, l: LoadedCheckpoint, sessionQuery: string | undefined, io: Io): Promise<void> {
  const candidates = pickSession(l, sessionQuery);
  const s = candidates[candidates.length - 1]!;
  if (candidates.length > 1) {
    io.err(`[entire] Checkpoint ${l.cp.checkpointId} has ${candidates.length} sessions; showing ${s.view.metadata.session_id} (use --session to pick another).`);
  }
  const content = await readSessionContent(repo, l.cp.checkpointId, { slot: s.index });
  if (!content.transcript || content.transcript.length === 0) {
    throw new EntireError('TRANSCRIPT_UNREADABLE', `checkpoint ${l.cp.checkpointId} has no stored transcript for session ${s.view.metadata.session_id}`);
  }
  io.raw(content.transcript);
}

/** A stored summary (Go writes `{intent, outcome, …}`) as readable lines. */
function summaryLines(summary: unknown): string[] {
  if (summary === undefined || summary === null || summary === '') return [];
  if (typeof summary === 'string') return [`Summary: ${summary}`];
  if (typeof summary === 'object' && !Array.isArray(summary)) {
    const o = summary as Record<string, unknown>;
    const lines: string[] = [];
    if (typeof o['intent'] === 'string' && o['intent']) lines.push(`Intent: ${o['intent']}`);
    if (typeof o['outcome'] === 'string' && o['outcome']) lines.push(`Outcome: ${o['outcome']}`);
    if (lines.length > 0) return lines;
  }
  return [`Summary: ${JSON.stringify(summary)}`];
}

function totalTokens(u: TokenUsage): number {
  return u.input_tokens + u.cache_creation_tokens + u.cache_read_tokens + u.output_tokens;
}

function tokensLine(u: TokenUsage | null): string {
  if (!u) return 'Tokens: (not recorded)';
  return (
    `Tokens: ${formatCount(totalTokens(u))} (input ${formatCount(u.input_tokens)}, output ${formatCount(u.output_tokens)}, ` +
    `cache write ${formatCount(u.cache_creation_tokens)}, cache read ${formatCount(u.cache_read_tokens)}; ` +
    `${formatCount(u.api_call_count)} API call${u.api_call_count === 1 ? '' : 's'})`
  );
}

function plainUsage(u: TokenUsage | undefined): TokenUsage | null {
  return copyUsage(u) ?? null;
}

async function explainCheckpoint(repo: Repo, q: string, opts: ExplainOptions, io: Io): Promise<void> {
  const id = await resolveCheckpointId(repo, q);
  const l = await loadCheckpoint(repo, id, io);
  if (!l) throw new EntireError('CHECKPOINT_NOT_FOUND', `checkpoint not found: ${q}`);
  if (opts.rawTranscript) {
    await printRawTranscript(repo, l, opts.session, io);
    return;
  }
  const sessions = pickSession(l, opts.session);
  const history = await firstParentHistory(repo, AUTHOR_SEARCH_COMMITS);
  const linking = history.filter((r) => r.ids.includes(id));
  const contents = await Promise.all(sessions.map((s) => readSessionContent(repo, id, { slot: s.index })));
  const root = l.cp.root;
  let usage: TokenUsage | undefined = root.token_usage;
  if (!usage) for (const s of l.sessions) usage = addUsage(usage, s.view.metadata.token_usage);

  if (opts.json) {
    const doc: DetailJson = {
      checkpoint_id: id,
      strategy: root.strategy,
      branch: root.branch ?? '',
      checkpoints_count: root.checkpoints_count,
      files_touched: root.files_touched ?? [],
      token_usage: plainUsage(usage),
      commits: linking.map((r) => ({ sha: r.sha, subject: r.subject, date: r.date })),
      sessions: sessions.map((s, i): DetailSessionJson => {
        const md = s.view.metadata;
        return {
          index: s.index,
          session_id: md.session_id,
          agent: s.agent,
          model: md.model ?? null,
          created_at: md.created_at,
          turn_id: md.turn_id ?? '',
          checkpoints_count: md.checkpoints_count,
          files_touched: md.files_touched ?? [],
          token_usage: plainUsage(md.token_usage),
          checkpoint_transcript_start: md.checkpoint_transcript_start ?? 0,
          prompts: s.prompts,
          summary: md.summary ?? null,
          transcript_bytes: contents[i]!.transcript?.length ?? 0,
        };
      }),
    };
    io.raw(encodeJson(doc));
    return;
  }

  const created = sessions
    .map((s) => s.view.metadata.created_at)
    .filter((c) => c !== '')
    .sort((a, b) => (Date.parse(a) || 0) - (Date.parse(b) || 0))[0];
  const files = root.files_touched ?? [];
  io.out(`Checkpoint: ${id}`);
  io.out(`Session: ${sessions.map((s) => s.view.metadata.session_id).join(', ')}`);
  io.out(`Created: ${created ?? 'unknown'}`);
  io.out(`Author: ${linking[0] ? linking[0].author : 'unknown (no linking commit in the last 1000 commits of HEAD)'}`);
  io.out(tokensLine(plainUsage(usage)));
  io.out(`Files: (${files.length})`);
  if (opts.short) return;
  for (const f of files) io.out(`  ${f}`);
  if (linking.length > 0) {
    io.out(`Commits: (${linking.length})`);
    for (const r of linking) io.out(`  ${r.sha.slice(0, 7)} ${shortDate(r.date)} ${r.subject}`.trimEnd());
  }
  for (let i = 0; i < sessions.length; i++) {
    const s = sessions[i]!;
    const md = s.view.metadata;
    const content = contents[i]!;
    io.out();
    io.out(`── Session ${s.index}: ${md.session_id} [${s.agent}]`);
    io.out(`Created: ${md.created_at || 'unknown'}`);
    if (md.model) io.out(`Model: ${md.model}`);
    io.out(`Steps: ${md.checkpoints_count}`);
    if (md.token_usage) io.out(tokensLine(plainUsage(md.token_usage)));
    const start = md.checkpoint_transcript_start ?? 0;
    if (start > 0 || md.transcript_identifier_at_start) {
      const after = md.transcript_identifier_at_start ? ` (after ${md.transcript_identifier_at_start})` : '';
      io.out(`Transcript start: ${start}${after}`);
    }
    for (const line of summaryLines(md.summary)) io.out(line);
    io.out(`Prompts: (${s.prompts.length})`);
    s.prompts.forEach((p, n) => {
      const lines = (opts.full ? p : collapsePrompt(p, 300)).split('\n');
      lines.forEach((line, k) => io.out(k === 0 ? `  ${n + 1}. ${line}` : `     ${line}`));
    });
    const t = await transcriptLines(content, opts.full === true, '  ');
    io.out(t.label);
    for (const line of t.lines) io.out(line);
  }
}
