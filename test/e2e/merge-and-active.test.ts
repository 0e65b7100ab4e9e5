import { describe, it, expect, afterAll } from 'vitest';
import { writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupAll, tempDir, testEnv, CLI } from '../helpers/repo.js';
import { spawnSync } from 'node:child_process';
import { world, commit, headMessage, trailerIds, checkpointIds, stateOf } from './helpers.js';

afterAll(cleanupAll);

describe('SPEC §11.21, §11.27, §11.43', () => {
  it('git merge --no-ff with pending agent work adds no trailer', () => {
    const { r, agent } = world();
    agent.prompt('write a');
    agent.write('a.go', 'a\n');
    agent.stop();
    r.git(['checkout', '-q', '-b', 'other']);
    writeFileSync(join(r.dir, 'o.txt'), 'o\n');
    r.git(['add', 'o.txt']);
    r.git(['commit', '-q', '--no-verify', '-m', 'other']);
    r.git(['checkout', '-q', 'main']);
    const m = r.gitResult(['merge', '--no-ff', '--no-edit', 'other'], { env: { ENTIRE_TEST_TTY: '0' } });
    expect(m.status, m.stderr).toBe(0);
    expect(r.git(['rev-list', '--parents', '-1', 'HEAD']).trim().split(' ')).toHaveLength(3);
    expect(trailerIds(headMessage(r))).toEqual([]);
    expect(checkpointIds(r)).toEqual([]);
    expect(stateOf(r, agent.sessionId)['files_touched']).toEqual(['a.go']);
  });

  it('while ACTIVE: a commit of unrelated files gets no trailer; without a transcript, changed files staged get one', () => {
    const { r, agent } = world();
    // the person's own change, made before the turn started
    writeFileSync(join(r.dir, 'unrelated.txt'), 'u\n');
    agent.prompt('working on a');
    agent.write('a.go', 'a\n');
    // …and committed mid-turn: not the agent's
    r.git(['add', 'unrelated.txt']);
    expect(commit(r, ['-m', 'unrelated']).status).toBe(0);
    expect(trailerIds(headMessage(r))).toEqual([]);
    // the transcript disappears (agent without transcript_path): files changed during the turn still qualify
    rmSync(agent.transcriptPath);
    writeFileSync(join(r.dir, 'b.go'), 'b\n');
    r.git(['add', 'b.go']);
    const c = commit(r, ['-m', 'b']);
    expect(c.status, c.stderr).toBe(0);
    const [id] = trailerIds(headMessage(r));
    expect(id).toBeDefined();
    expect(checkpointIds(r)).toContain(id);
  });

  it('agent hooks outside a repository are silent and exit 0; session-start prints one JSON line', () => {
    const dir = tempDir();
    const env = testEnv(dir);
    for (const verb of ['session-start', 'user-prompt-submit', 'stop', 'session-end']) {
      const res = spawnSync(process.execPath, [CLI, 'hooks', 'claude-code', verb], {
        cwd: dir,
        env,
        input: JSON.stringify({ session_id: 's', transcript_path: join(dir, 't.jsonl'), cwd: dir, prompt: 'x' }),
        encoding: 'utf8',
      });
      expect(res.status).toBe(0);
      expect(res.stdout).toBe('');
      expect(res.stderr).toBe('');
    }
    const { r, agent } = world();
    void r;
    const start = agent.sessionStart();
    const lines = start.stdout.split('\n').filter(Boolean);
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!).systemMessage).toContain('Powered by Entire');
  });
});
