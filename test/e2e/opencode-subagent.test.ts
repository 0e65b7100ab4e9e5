/**
 * Issue 25 point 11: OpenCode waits for our `post-task` hook (its plugin spawns
 * it synchronously from `tool.execute.after`), so that hook only records the
 * finished task; the turn end's worker exports the child session and writes the
 * task step. The real hook payloads of a `task` run (OpenCode 1.18.33,
 * test/fixtures/real-agents/opencode/subagent/) are replayed through the built
 * CLI against a fake `opencode` that logs its argv and the pid of the process
 * that ran it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupAll, FIXTURES, makeRepo, tempDir } from '../helpers/repo.js';
import { expectClean, shadowBranches, stateOf } from './helpers.js';

afterAll(cleanupAll);

const DIR = join(FIXTURES, 'real-agents', 'opencode', 'subagent');
const PARENT = 'ses_de93b9781ffeW9RSvwU5LpqXQE';
const CHILD = 'ses_de93b89c9ffe7oBA1hzUCIEDPK';
const CALL = 'call_cb92c0893639b36e962eb871';
const CAPTURED_REPO = '/tmp/entire-agents-opencode-dFSuOA/project-fg';

describe('an OpenCode task: post-task records, the turn-end worker exports', () => {
  it('post-task runs no opencode and writes no step; the worker exports the child and writes the task step before the turn’s', () => {
    const r = makeRepo();
    expect(r.entire(['enable', '--agent', 'opencode']).status).toBe(0);
    r.commitAll('enable entire');
    const bin = tempDir();
    for (const [sid, file] of [
      [PARENT, 'parent-export.json'],
      [CHILD, 'child-export.json'],
    ] as const) {
      writeFileSync(join(bin, `${sid}.json`), readFileSync(join(DIR, file), 'utf8').split(CAPTURED_REPO).join(r.dir));
    }
    // `$PPID`: the process that ran it (a hook, or the turn end's worker)
    writeFileSync(
      join(bin, 'opencode'),
      `#!/bin/sh
echo "$PPID $*" >> "${join(bin, 'argv.log')}"
[ "$1" = export ] && [ -f "${bin}/$3.json" ] && exec cat "${bin}/$3.json"
exit 1
`,
    );
    chmodSync(join(bin, 'opencode'), 0o755);
    const ran = () => (existsSync(join(bin, 'argv.log')) ? readFileSync(join(bin, 'argv.log'), 'utf8').trim().split('\n') : []);
    const env = { PATH: `${bin}:${process.env['PATH']}` };
    const payloads = readFileSync(join(DIR, 'hook-payloads.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { verb: string; stdin: Record<string, unknown> });
    const pids: Record<string, number> = {};
    for (const p of payloads) {
      // the subagent's write, between the task's start and its end
      if (p.verb === 'post-task') r.write('fg.txt', 'written by a foreground subagent\n');
      const res = r.entire(['hooks', 'opencode', p.verb], { input: JSON.stringify(p.stdin) + '\n', env });
      expect(res.status, res.stderr).toBe(0);
      pids[p.verb] = res.pid;
      if (p.verb === 'post-task') {
        // nothing ran while OpenCode waited: no export, no step; the task is recorded for the turn end
        expect(ran()).toEqual([]);
        expect(shadowBranches(r)).toEqual([]);
        expect(existsSync(join(r.dir, '.entire', 'tmp', `${CHILD}.json`))).toBe(false);
        expect(existsSync(join(r.dir, '.entire', 'tmp', `pre-task-${CALL}.json`))).toBe(false);
        const done = JSON.parse(readFileSync(join(r.dir, '.entire', 'tmp', `task-done-${CALL}.json`), 'utf8')) as Record<string, unknown>;
        expect(done).toMatchObject({ session_id: PARENT, tool_use_id: CALL, subagent_id: CHILD, description: 'Write fg.txt', pre: { tool_use_id: CALL } });
      }
    }
    // the turn end: both exports ran in its worker, not in the hook OpenCode waited for
    const lines = ran();
    expect(lines.map((l) => l.split(' ').slice(1).join(' '))).toEqual([`export --pure ${PARENT}`, `export --pure ${CHILD}`]);
    const runners = new Set(lines.map((l) => Number(l.split(' ')[0])));
    expect(runners.size).toBe(1);
    const [worker] = [...runners];
    expect(worker).not.toBe(pids['turn-end']);
    expect(worker).not.toBe(pids['post-task']);
    // the task step (with the child's export as its transcript), then the turn's step
    const [branch] = shadowBranches(r);
    const subjects = r.git(['log', '--format=%B%x00', branch!]).split('\0').map((m) => m.trim()).filter(Boolean);
    expect(subjects).toHaveLength(2);
    expect(subjects[1]).toContain(`Entire-Metadata-Task: .entire/metadata/${PARENT}/tasks/${CALL}`);
    expect(subjects[0]).not.toContain('Entire-Metadata-Task');
    const tree = r.git(['ls-tree', '-r', '--name-only', `${branch!}~1`]).trim().split('\n');
    expect(tree).toEqual(expect.arrayContaining(['fg.txt', `.entire/metadata/${PARENT}/tasks/${CALL}/checkpoint.json`, `.entire/metadata/${PARENT}/tasks/${CALL}/agent-${CHILD}.json`]));
    const stored = JSON.parse(r.git(['show', `${branch!}~1:.entire/metadata/${PARENT}/tasks/${CALL}/agent-${CHILD}.json`])) as { info: { id: string } };
    expect(stored.info.id).toBe(CHILD);
    // the record is gone; the session's tokens count the child's calls
    expect(existsSync(join(r.dir, '.entire', 'tmp', `task-done-${CALL}.json`))).toBe(false);
    const state = stateOf(r, PARENT);
    expect(state).toMatchObject({ phase: 'idle', files_touched: ['fg.txt'] });
    expect((state['token_usage'] as { subagent_tokens?: { api_call_count?: number } }).subagent_tokens?.api_call_count).toBe(2);
    expectClean(r);
  });
});
