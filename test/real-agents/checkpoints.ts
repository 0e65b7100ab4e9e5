/** Reading what users get, through git and the CLI: trailers, notes, checkpoint slots, hook logs. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Repo } from './world.js';

const BRANCH = 'entire/checkpoints/v1';
const ID_LINE = /^Entire-Checkpoint: ([0-9a-f]{12})$/gm;

export function trailerIds(message: string): string[] {
  return [...message.matchAll(ID_LINE)].map((m) => m[1]!);
}

/** IDs a commit is linked to: its message's trailers, then its `refs/notes/entire` note (SPEC-2 §D.5). */
export function linkedIds(repo: Repo, rev: string): string[] {
  const ids = trailerIds(repo.git(['log', '-1', '--format=%B', rev]));
  const note = repo.gitResult(['notes', '--ref=refs/notes/entire', 'show', rev]);
  if (note.status === 0) for (const id of trailerIds(note.stdout)) if (!ids.includes(id)) ids.push(id);
  return ids;
}

const idPath = (id: string) => `${id.slice(0, 2)}/${id.slice(2)}`;

export function checkpointExists(repo: Repo, id: string): boolean {
  return repo.gitResult(['cat-file', '-e', `${BRANCH}:${idPath(id)}/metadata.json`]).status === 0;
}

export interface Slot {
  index: string;
  metadata: Record<string, unknown>;
  prompt: string;
}

export function slots(repo: Repo, id: string): Slot[] {
  const ls = repo.gitResult(['ls-tree', '--name-only', `${BRANCH}:${idPath(id)}`]);
  if (ls.status !== 0) return [];
  const out: Slot[] = [];
  for (const index of ls.stdout.split('\n').filter((n) => /^\d+$/.test(n))) {
    const meta = repo.gitResult(['show', `${BRANCH}:${idPath(id)}/${index}/metadata.json`]);
    if (meta.status !== 0) continue;
    const prompt = repo.gitResult(['show', `${BRANCH}:${idPath(id)}/${index}/prompt.txt`]);
    out.push({ index, metadata: JSON.parse(meta.stdout) as Record<string, unknown>, prompt: prompt.status === 0 ? prompt.stdout : '' });
  }
  return out;
}

/** The slot of `sessionId` in the first of `ids` that has one. */
export function slotOf(repo: Repo, ids: string[], sessionId: string): (Slot & { id: string }) | null {
  for (const id of ids) {
    const s = slots(repo, id).find((x) => x.metadata['session_id'] === sessionId);
    if (s) return { ...s, id };
  }
  return null;
}

/** The commit on `rev`'s history with this subject, else null. */
export function commitWithSubject(repo: Repo, subject: string, rev = 'HEAD'): string | null {
  for (const line of repo.git(['log', '--format=%H%x09%s', rev]).split('\n')) {
    const [sha, s] = line.split('\t');
    if (s === subject && sha) return sha;
  }
  return null;
}

/** Every Entire-Checkpoint trailer on the user's branches, with whether it resolves. */
export function trailersOnBranches(repo: Repo): { commit: string; id: string; resolves: boolean }[] {
  const out: { commit: string; id: string; resolves: boolean }[] = [];
  const log = repo.git(['log', '--exclude=refs/heads/entire/*', '--branches', '--format=%H%x00%B%x01']);
  for (const rec of log.split('\x01')) {
    const [sha, body] = rec.replace(/^\n/, '').split('\x00');
    if (!sha || body === undefined) continue;
    for (const id of trailerIds(body)) out.push({ commit: sha.slice(0, 7), id, resolves: checkpointExists(repo, id) });
  }
  return out;
}

export interface LogLine {
  time?: string;
  level?: string;
  msg?: string;
  hook?: string;
  [k: string]: unknown;
}

export function hookLog(repo: Repo): LogLine[] {
  const p = join(repo.dir, '.entire', 'logs', 'entire.log');
  if (!existsSync(p)) return [];
  return readFileSync(p, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      try {
        return JSON.parse(l) as LogLine;
      } catch {
        return { msg: `unparsable log line: ${l.slice(0, 200)}` };
      }
    });
}

/** `entire status --json`'s sessions. */
export function statusSessions(repo: Repo): Record<string, unknown>[] {
  const r = repo.entire(['status', '--json']);
  if (r.status !== 0) throw new Error(`entire status --json failed: ${r.stderr}`);
  const j = JSON.parse(r.stdout) as { sessions?: Record<string, unknown>[] };
  return j.sessions ?? [];
}

/** Commits of the shadow branches (`entire/<base7>-<wt6>`): subject, body and tree paths. */
export function shadowSteps(repo: Repo): { sha: string; branch: string; subject: string; body: string; paths: string[] }[] {
  const out: { sha: string; branch: string; subject: string; body: string; paths: string[] }[] = [];
  const branches = repo
    .git(['for-each-ref', '--format=%(refname:short)', 'refs/heads/entire/'])
    .split('\n')
    .filter((b) => b !== '' && b !== BRANCH);
  for (const b of branches) {
    for (const rec of repo.git(['log', '--format=%H%x00%s%x00%b%x01', b]).split('\x01')) {
      const [sha, subject, body] = rec.replace(/^\n/, '').split('\x00');
      if (!sha || subject === undefined) continue;
      const paths = repo.git(['ls-tree', '-r', '--name-only', sha]).split('\n').filter(Boolean);
      out.push({ sha, branch: b, subject, body: body ?? '', paths });
    }
  }
  return out;
}
