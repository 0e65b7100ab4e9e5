/** Condensing from the shadow branch's copy when the live transcript is gone, joined on disk a chunk at a time (SPEC-2 §A.6). */
import { describe, it, expect, afterAll } from 'vitest';
import { appendFileSync, rmSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupAll } from '../helpers/repo.js';
import { world, commit, headMessage, trailerIds, showCheckpointFile, expectClean } from './helpers.js';

afterAll(cleanupAll);

describe('the live transcript is gone at the commit', () => {
  it('the checkpoint gets the shadow copy, every chunk joined, with its prompts', () => {
    const { r, agent } = world();
    agent.prompt('start the big one');
    // ~9 MiB: the shadow copy is two line groups (full.jsonl, full.jsonl.001)
    const filler = JSON.stringify({ type: 'assistant', uuid: 'x', message: { id: 'm', role: 'assistant', content: [{ type: 'text', text: 'y'.repeat(4000) }] } });
    appendFileSync(agent.transcriptPath, (filler + '\n').repeat(Math.ceil((9 * 1024 * 1024) / filler.length)));
    agent.say('token ghp_FaKe7T0kEnF0rTeStS9xQ2mZ7vR1bN8kL3pJ in the reply');
    agent.write('a.txt', 'a\n');
    expect(agent.stop().status).toBe(0);
    const head7 = r.git(['rev-parse', '--short=7', 'HEAD']).trim();
    const dir = `.entire/metadata/${agent.sessionId}`;
    const shadow = `entire/${head7}-e3b0c4`;
    const groups = r.git(['ls-tree', '--name-only', `${shadow}:${dir}`]).trim().split('\n').filter((n) => n.startsWith('full.jsonl'));
    expect(groups).toEqual(['full.jsonl', 'full.jsonl.001']);
    const copy = groups.map((g) => r.git(['show', `${shadow}:${dir}/${g}`])).join('\n');

    rmSync(agent.transcriptPath);
    r.git(['add', 'a.txt']);
    const c = commit(r, ['-m', 'a'], { tty: true });
    expect(c.status, c.stderr).toBe(0);
    const [id] = trailerIds(headMessage(r));
    expect(id).toBeDefined();
    const stored = showCheckpointFile(r, id!, '0/full.jsonl');
    expect(stored).toBe(copy);
    expect(stored).not.toContain('ghp_FaKe7T0kEnF0rTeStS9xQ2mZ7vR1bN8kL3pJ');
    expect(showCheckpointFile(r, id!, '0/prompt.txt')).toBe('start the big one');
    // the joined copy was a private file of the hook, gone with it
    const redactDir = join(r.dir, '.entire', 'tmp', 'redact');
    expect(existsSync(redactDir) ? readdirSync(redactDir).filter((n) => n.includes('.private')) : []).toEqual([]);
    expectClean(r);
  }, 120_000);
});
