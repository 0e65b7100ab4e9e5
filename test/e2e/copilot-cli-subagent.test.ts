/**
 * A Copilot CLI subagent end to end through the built CLI: the real hook
 * payloads and events.jsonl of a `task` run (Copilot CLI 1.0.102,
 * test/fixtures/real-agents/copilot-cli/subagent/, paths moved to this test's
 * directories) replayed in order, the file written as the subagent wrote it.
 * The subagent is a task of the session (a task step with its transcript),
 * never a session of its own; committing its file links the session.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cleanupAll, FIXTURES, makeRepo, type TempRepo } from '../helpers/repo.js';
import { commit, headMessage, shadowBranches, showCheckpointFile, stateOf, trailerIds, expectClean } from './helpers.js';

afterAll(cleanupAll);

const DIR = join(FIXTURES, 'real-agents', 'copilot-cli', 'subagent');
const SID = '3507ae3d-4666-47b6-988f-f87062171b86';
const SUB = '9461133c-e7c4-4020-a0b0-5be771c207c0';
const CAPTURED_REPO = '/tmp/entire-agents-copilot-cli-DGQIdP/project-fg';
const CAPTURED_HOME = '/tmp/entire-agents-copilot-cli-DGQIdP/home-a/.copilot';

const moved = (text: string, r: TempRepo, home: string) => text.split(CAPTURED_HOME).join(home).split(CAPTURED_REPO).join(r.dir);

describe('a replayed Copilot CLI task run', () => {
  it('the subagent is a task step of the session with its own transcript; one state; its file links the session', () => {
    const r = makeRepo();
    const home = join(dirname(r.dir), 'copilot-home');
    const en = r.entire(['enable', '--agent', 'copilot-cli']);
    expect(en.status, en.stderr).toBe(0);
    r.commitAll('enable entire');
    const payloads = moved(readFileSync(join(DIR, 'hook-payloads.jsonl'), 'utf8'), r, home)
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { verb: string; stdin: Record<string, unknown> });
    const events = moved(readFileSync(join(DIR, 'events.jsonl'), 'utf8'), r, home).trim().split('\n');
    const eventsFile = join(home, 'session-state', SID, 'events.jsonl');
    mkdirSync(dirname(eventsFile), { recursive: true });
    /** The events file as the CLI had written it when the hook of `payload` ran: up to that hook's own `hook.start`. */
    const eventsUpTo = (p: { verb: string; stdin: Record<string, unknown> }) => {
      const at = events.findIndex((l) => l.includes('"type":"hook.start"') && l.includes(`"timestamp":${String(p.stdin['timestamp'])}`));
      writeFileSync(eventsFile, events.slice(0, at + 1).join('\n') + '\n');
    };
    const env = { COPILOT_HOME: home, ENTIRE_STOP_WAIT_MS: '3000' };
    let stepsBeforeCommit = '';
    let taskTree: string[] = [];
    for (const p of payloads) {
      if (p.verb === 'session-end') break;
      eventsUpTo(p);
      // the subagent's create tool ran between its prompt and its stop
      if (p.verb === 'agent-stop' && p.stdin['parentAgentId']) r.write('fg.txt', 'written by a foreground subagent\n');
      const res = r.entire(['hooks', 'copilot-cli', p.verb], { input: JSON.stringify(p.stdin), env });
      expect(res.status, res.stderr).toBe(0);
      if (p.verb === 'agent-stop' && p.stdin['parentAgentId']) {
        const [branch] = shadowBranches(r);
        stepsBeforeCommit = r.git(['log', '--format=%B', branch!]);
        taskTree = r.git(['ls-tree', '-r', '--name-only', branch!]).trim().split('\n');
      }
    }
    // one session: the subagent's own hooks made no state of their own
    expect(readdirSync(join(r.dir, '.git', 'entire-sessions')).filter((n) => n.endsWith('.json'))).toEqual([`${SID}.json`]);
    const state = stateOf(r, SID);
    expect(state).toMatchObject({ phase: 'idle', first_prompt: 'ETIER-FG have a foreground subagent write fg.txt' });
    expect(state['files_touched']).toEqual(['fg.txt']);
    // the task step: its metadata dir, the file, the subagent's lines as its transcript
    expect(stepsBeforeCommit).toContain(`Entire-Metadata-Task: .entire/metadata/${SID}/tasks/${SUB}`);
    const transcript = `.entire/metadata/${SID}/tasks/${SUB}/agent-${SUB}.jsonl`;
    expect(taskTree).toEqual(expect.arrayContaining(['fg.txt', `.entire/metadata/${SID}/tasks/${SUB}/checkpoint.json`, transcript]));
    const [branch] = shadowBranches(r);
    const stored = r.git(['show', `${branch!}:${transcript}`]).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(stored.every((l) => l['agentId'] === SUB)).toBe(true);
    expect(stored.some((l) => l['type'] === 'user.message' && JSON.stringify(l).includes('ETIER-SUBFG'))).toBe(true);
    // a person commits the subagent's file: the session is linked, with it
    r.git(['add', 'fg.txt']);
    commit(r, ['-m', 'Add fg.txt'], { env });
    const [id] = trailerIds(headMessage(r));
    expect(id).toBeDefined();
    const meta = JSON.parse(showCheckpointFile(r, id!, '0/metadata.json')) as Record<string, unknown>;
    expect(meta).toMatchObject({ session_id: SID, agent: 'Copilot CLI', files_touched: ['fg.txt'] });
    expectClean(r);
  });
});
