/**
 * SPEC-2 §B.5 (conformance B3), §B.2 and the quiet post-commit, driven as the
 * real Claude Code 2.1.332 does (flow `bg` of the real captures): the
 * subagent is launched in the background, the first Stop comes before it
 * writes anything, its completion arrives as a `<task-notification>` turn.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { cleanupAll } from '../helpers/repo.js';
import { world, stateOf, shadowBranches, commit, headMessage, trailerIds, showCheckpointFile, type World } from './helpers.js';

afterAll(cleanupAll);

const TOOL_USE = 'toolu_016394c5c3f3444e626f7d8e1';
const AGENT_ID = 'ac9a4c8045eb437c4';
const TASK_INPUT = { description: 'Write sub.txt', prompt: 'RA-C1-SUB write sub.txt with one line', subagent_type: 'general-purpose' };
const NOTIFICATION =
  `<task-notification>\n<task-id>${AGENT_ID}</task-id>\n<tool-use-id>${TOOL_USE}</tool-use-id>\n<output-file>/tmp/x/tasks/${AGENT_ID}.output</output-file>\n` +
  `<status>completed</status>\n<summary>Agent "Write sub.txt" finished</summary>\n<result>sub done</result>\n</task-notification>`;

/** Turn 1 up to its Stop: the subagent is launched in the background and has written nothing yet. */
function launch(w: World): void {
  const { agent } = w;
  agent.sessionStart();
  agent.prompt('RA-C1 have a subagent write sub.txt');
  expect(agent.hook('pre-task', { tool_name: 'Agent', tool_use_id: TOOL_USE, tool_input: TASK_INPUT }).status).toBe(0);
  const post = agent.hook('post-task', {
    tool_name: 'Agent',
    tool_use_id: TOOL_USE,
    tool_input: TASK_INPUT,
    tool_response: { isAsync: true, status: 'async_launched', agentId: AGENT_ID, description: 'Write sub.txt', outputFile: `/tmp/x/tasks/${AGENT_ID}.output` },
  });
  expect(post.status, post.stderr).toBe(0);
  agent.say('Done RA-C1: the subagent is on it.');
  const stop = agent.stop();
  expect(stop.status, stop.stderr).toBe(0);
}

/** The background subagent writes sub.txt (its own transcript under `<sid>/subagents/`). */
function subagentWrites(w: World): void {
  const { r, agent } = w;
  const abs = join(r.dir, 'sub.txt');
  writeFileSync(abs, 'sub done for ra-c1\n');
  const file = join(dirname(agent.transcriptPath), agent.sessionId, 'subagents', `agent-${AGENT_ID}.jsonl`);
  mkdirSync(dirname(file), { recursive: true });
  appendFileSync(
    file,
    JSON.stringify({ type: 'user', isSidechain: true, uuid: 'u1', message: { role: 'user', content: TASK_INPUT.prompt } }) +
      '\n' +
      JSON.stringify({
        type: 'assistant',
        isSidechain: true,
        uuid: 'a1',
        message: { id: 'm1', role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Write', input: { file_path: abs, content: 'sub done for ra-c1\n' } }] },
      }) +
      '\n',
  );
}

/** The completion turn: Claude's UserPromptSubmit with the notification, then its line in the transcript. */
function completion(w: World): void {
  const { agent } = w;
  const r = agent.hook('user-prompt-submit', { prompt: NOTIFICATION });
  expect(r.status, r.stderr).toBe(0);
  appendFileSync(
    agent.transcriptPath,
    JSON.stringify({
      type: 'user',
      uuid: 'n1',
      sessionId: agent.sessionId,
      message: { role: 'user', content: NOTIFICATION },
      origin: { kind: 'task-notification' },
      promptSource: 'system',
      turnOrigin: 'task_notification',
    }) + '\n',
  );
}

describe('background subagents (SPEC-2 §B.5)', () => {
  it('launch writes no step; the completion puts the late file in files_touched and a task step; its commit links it', () => {
    const w = world();
    const { r, agent } = w;
    launch(w);
    const st = stateOf(r, agent.sessionId);
    expect(st['background_agents']).toEqual([expect.objectContaining({ agent_id: AGENT_ID, tool_use_id: TOOL_USE, cursor: 0 })]);
    // no step at launch: nothing on a shadow branch carries the task
    for (const b of shadowBranches(r)) expect(r.git(['log', '--format=%B', b])).not.toContain('Entire-Metadata-Task');

    subagentWrites(w);
    completion(w);
    const after = stateOf(r, agent.sessionId);
    expect(after['files_touched']).toEqual(['sub.txt']);
    expect(after['background_agents']).toBeUndefined();
    expect(after['first_prompt']).toBe('RA-C1 have a subagent write sub.txt');
    const [branch] = shadowBranches(r);
    expect(r.git(['log', '-1', '--format=%B', branch!])).toContain(`Entire-Metadata-Task: .entire/metadata/${agent.sessionId}/tasks/${TOOL_USE}`);
    expect(r.git(['ls-tree', '-r', '--name-only', branch!])).toContain(`.entire/metadata/${agent.sessionId}/tasks/${TOOL_USE}/agent-${AGENT_ID}.jsonl`);

    agent.say('Done RA-C1: the subagent wrote sub.txt.');
    expect(agent.stop().status).toBe(0);
    r.git(['add', 'sub.txt']);
    const c = commit(r, ['-m', 'add sub.txt']);
    expect(c.status, c.stderr).toBe(0);
    const [id] = trailerIds(headMessage(r));
    expect(id).toBeDefined();
    const md = JSON.parse(showCheckpointFile(r, id!, '0/metadata.json')) as { files_touched: string[] };
    expect(md.files_touched).toEqual(['sub.txt']);
    // the notification is never a prompt (SPEC-2 §B.3)
    const prompts = showCheckpointFile(r, id!, '0/prompt.txt');
    expect(prompts).toContain('RA-C1 have a subagent write sub.txt');
    expect(prompts).not.toContain('task-notification');
    expect(r.git(['log', '--all', '--format=%s'])).not.toContain('task-notification');
  });

  it('while idle, before the completion, a commit of what the subagent wrote is linked', () => {
    const w = world();
    const { r, agent } = w;
    launch(w);
    subagentWrites(w);
    r.git(['add', 'sub.txt']);
    const c = commit(r, ['-m', 'person commits sub.txt']);
    expect(c.status, c.stderr).toBe(0);
    const [id] = trailerIds(headMessage(r));
    expect(id).toBeDefined();
    const md = JSON.parse(showCheckpointFile(r, id!, '0/metadata.json')) as { files_touched: string[]; session_id: string };
    expect(md.session_id).toBe(agent.sessionId);
    expect(md.files_touched).toEqual(['sub.txt']);
  });
});

describe('resume and wording (SPEC-2 §B.2), quiet hooks', () => {
  it('session-start resume without a state starts one at HEAD from the transcript position', () => {
    const { r, agent } = world();
    agent.say('an earlier conversation');
    const res = agent.hook('session-start', { source: 'resume' });
    expect(res.status, res.stderr).toBe(0);
    const st = stateOf(r, agent.sessionId);
    expect(st['phase']).toBe('idle');
    expect(st['base_commit']).toBe(r.git(['rev-parse', 'HEAD']).trim());
    expect(st['checkpoint_transcript_start']).toBe(1);
    // a plain startup still creates nothing
    const other = world();
    other.agent.hook('session-start', { source: 'startup' });
    expect(() => stateOf(other.r, other.agent.sessionId)).toThrow();
  });

  it('an ended session asks about uncommitted work, not an active session; no terminal → no notice line', () => {
    const { r, agent } = world();
    agent.prompt('write a file');
    agent.write('a.txt', 'a\n');
    agent.say('done');
    agent.stop();
    agent.sessionEnd();
    r.git(['add', 'a.txt']);
    const c = commit(r, ['-m', 'a person commits'], { tty: true });
    expect(c.status, c.stderr).toBe(0);
    expect(c.stderr).toContain('You have uncommitted Claude Code session work.');
    expect(c.stderr).not.toContain('active Claude Code session');
    expect(c.stderr).toContain('[entire] Condensed session');

    // the same from an agent's shell (no terminal): nothing on stderr at all
    agent.prompt('another');
    agent.write('b.txt', 'b\n');
    r.git(['add', 'b.txt']);
    const quiet = commit(r, ['-m', 'agent commits']);
    expect(quiet.status, quiet.stderr).toBe(0);
    expect(trailerIds(headMessage(r))).toHaveLength(1);
    expect(quiet.stderr).toBe('');
  });
});
