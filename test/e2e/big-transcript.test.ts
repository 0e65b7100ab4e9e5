import { describe, it, expect, afterAll } from 'vitest';
import { appendFileSync } from 'node:fs';
import { cleanupAll } from '../helpers/repo.js';
import { world, commit, headMessage, trailerIds, showCheckpointFile, expectClean } from './helpers.js';

afterAll(cleanupAll);

describe('big transcripts: later turns write only what grew (SPEC §10)', () => {
  it('splits the shadow copy past 8 MiB, reuses unchanged groups, and still condenses one full.jsonl', () => {
    const { r, agent } = world();
    agent.prompt('start');
    // ~9 MiB of earlier conversation
    const filler = JSON.stringify({ type: 'assistant', uuid: 'x', message: { id: 'm', role: 'assistant', content: [{ type: 'text', text: 'y'.repeat(4000) }] } });
    appendFileSync(agent.transcriptPath, (filler + '\n').repeat(Math.ceil((9 * 1024 * 1024) / filler.length)));
    agent.write('a.txt', 'a\n');
    expect(agent.stop().status).toBe(0);
    const head7 = r.git(['rev-parse', '--short=7', 'HEAD']).trim();
    const branch = `entire/${head7}-e3b0c4`;
    const dir = `.entire/metadata/${agent.sessionId}`;
    const ls = (rev: string) =>
      Object.fromEntries(
        r
          .git(['ls-tree', `${rev}:${dir}`])
          .trim()
          .split('\n')
          .map((l) => {
            const [meta, name] = l.split('\t');
            return [name!, meta!.split(' ')[2]!];
          }),
      );
    const first = ls(branch);
    expect(Object.keys(first)).toEqual(expect.arrayContaining(['full.jsonl', 'full.jsonl.001']));

    agent.prompt('more');
    agent.write('b.txt', 'b\n');
    agent.say('second turn reply');
    expect(agent.stop().status).toBe(0);
    const second = ls(branch);
    expect(second['full.jsonl']).toBe(first['full.jsonl']); // the completed group is reused
    expect(second['full.jsonl.001']).not.toBe(first['full.jsonl.001']);
    const joined = [r.git(['cat-file', 'blob', second['full.jsonl']!]), r.git(['cat-file', 'blob', second['full.jsonl.001']!])].join('\n');
    expect(joined).toContain('second turn reply');

    r.git(['add', 'a.txt', 'b.txt']);
    expect(commit(r, ['-m', 'big'], { tty: true }).status).toBe(0);
    const [id] = trailerIds(headMessage(r));
    const stored = showCheckpointFile(r, id!, '0/full.jsonl');
    expect(stored).toBe(joined);
    expectClean(r);
  }, 120_000);
});
