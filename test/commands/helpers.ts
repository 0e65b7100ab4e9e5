/** Shared setup for the command tests (explain, status, reset, clean). */
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { FIXTURES, type TempRepo } from '../helpers/repo.js';
import { withEnv } from '../helpers/env.js';
import { openRepo } from '../../src/git/repo.js';
import { writeCommittedSession, type SessionWrite } from '../../src/store/committed.js';
import { saveState } from '../../src/session/store.js';
import { newSessionState, type SessionState } from '../../src/session/state.js';

/** The six checkpoint IDs of the Go-written sample bundle (SPEC §11 item 35). */
export const SAMPLE_IDS = ['42527c9c20c8', '7e72a8d8fdb8', '8294a9921cfd', '966462b9a8e7', 'ba5e23ccb05b', 'c945f262e88d'] as const;

export function commonDir(r: TempRepo, cwd?: string): string {
  return r.git(['rev-parse', '--path-format=absolute', '--git-common-dir'], { cwd }).trim();
}

export function head(r: TempRepo, cwd?: string): string {
  return r.git(['rev-parse', 'HEAD'], { cwd }).trim();
}

/** Fetch the sample bundle as `entire/checkpoints/v1`. */
export function fetchSample(r: TempRepo): void {
  r.git(['fetch', '-q', join(FIXTURES, 'entire-go-sample.bundle'), 'entire/checkpoints/v1:entire/checkpoints/v1']);
}

/** An empty commit whose message links `ids` (made without hooks). */
export function linkCommit(r: TempRepo, subject: string, ids: readonly string[], cwd?: string): string {
  const args = ['commit', '-q', '--no-verify', '--allow-empty', '-m', subject];
  if (ids.length > 0) args.push('-m', ids.map((id) => `Entire-Checkpoint: ${id}`).join('\n'));
  r.git(args, { cwd });
  return head(r, cwd);
}

/** Write one session slot into checkpoint `w.checkpointId` in-process. */
export async function writeCheckpoint(r: TempRepo, w: Partial<SessionWrite> & { checkpointId: string; sessionId: string }): Promise<void> {
  await withEnv(r.env, async () => {
    const repo = await openRepo(r.dir);
    try {
      await writeCommittedSession(repo, {
        agent: 'Claude Code',
        transcript: `{"type":"user","uuid":"u-${w.sessionId}","message":{"content":"hello from ${w.sessionId}"}}\n`,
        format: 'jsonl',
        prompts: [`prompt of ${w.sessionId}`],
        filesTouched: ['a.txt'],
        checkpointsCount: 1,
        shadowBranch: 'entire/abc1234-e3b0c4',
        ...w,
      });
    } finally {
      repo.objects.close();
    }
  });
}

/** Save a session state (through the real store, so the file is what hooks write). */
export function writeState(common: string, init: Partial<SessionState> & { session_id: string }): SessionState {
  const s = newSessionState({ started_at: new Date().toISOString(), ...init });
  saveState(common, s);
  return s;
}

export function daysAgo(n: number): string {
  return new Date(Date.now() - n * 24 * 60 * 60 * 1000).toISOString();
}

function listTree(dir: string, prefix = ''): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) out.push(...listTree(p, `${prefix}${name}/`));
    else out.push(`${prefix}${name} ${st.size} ${st.mtimeMs} ${createHash('sha1').update(readFileSync(p)).digest('hex')}`);
  }
  return out;
}

/** Every ref with its value, and every file under the sessions dir with size, mtime and content hash. */
export function snapshot(r: TempRepo): { refs: string; sessions: string[] } {
  return {
    refs: r.git(['for-each-ref', '--format=%(refname) %(objectname)']),
    sessions: listTree(join(commonDir(r), 'entire-sessions')),
  };
}
