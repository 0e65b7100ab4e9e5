/**
 * Issue 25 point 7, the notes index (SPEC-2 §D.1, §A.1): a teammate's note is
 * untrusted. A 3.8 MB note listing 120,000 ids is read within bounds (the
 * first MAX_NOTE_BYTES, at most MAX_NOTE_IDS ids, one pass), and a rewrite
 * copies into our note only ids that name a checkpoint (or pending work).
 * Attacks built with git plumbing, driven through the built CLI.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupAll, type TempRepo } from '../helpers/repo.js';
import { FakeClaude } from '../helpers/agent.js';
import { world, commit, headMessage, trailerIds } from '../e2e/helpers.js';
import { noteIds } from '../links/helpers.js';
import { commitTree, writeBlob, writeRawTree } from './helpers.js';
import { MAX_NOTE_BYTES, MAX_NOTE_IDS, parseNoteIds, renderNote } from '../../src/links/note-format.js';

afterAll(cleanupAll);

const TEAMMATE_NOTES = 'refs/entire/remotes/origin/notes/entire';

/** `n` distinct well-formed ids, none of which names a checkpoint. */
function junkIds(n: number): string[] {
  return Array.from({ length: n }, (_, i) => (0xa00000000000 + i).toString(16));
}

/** A notes commit (as a teammate's fetched notes ref) giving `commit` the note `text`. */
function plantNote(r: TempRepo, commit: string, text: string, ref = TEAMMATE_NOTES): void {
  const blob = writeBlob(r, text);
  const tree = writeRawTree(r, [{ mode: '100644', name: commit, oid: blob }]);
  r.git(['update-ref', ref, commitTree(r, tree, [], "Notes added by 'git notes add'")]);
}

function linkedCommit(r: TempRepo, agent: FakeClaude, file: string): string {
  agent.prompt(`write ${file}`);
  agent.write(file, `${file}\n`);
  agent.say(`wrote ${file}`);
  expect(agent.stop().status).toBe(0);
  r.git(['add', file]);
  const c = commit(r, ['-m', `add ${file}`], { tty: true });
  expect(c.status, c.stderr).toBe(0);
  const [id] = trailerIds(headMessage(r));
  expect(id).toBeDefined();
  return id!;
}

describe('a huge note is read within bounds', () => {
  const ids = junkIds(120_000);
  const text = ids.map((id) => `Entire-Checkpoint: ${id}\n`).join('');

  it('3.8 MB, 120,000 ids: at most MAX_NOTE_IDS ids, the first ones, from the first MAX_NOTE_BYTES', () => {
    expect(text.length).toBeGreaterThan(3_700_000);
    const got = parseNoteIds(Buffer.from(text));
    expect(got.length).toBe(MAX_NOTE_IDS);
    expect(got).toEqual(ids.slice(0, MAX_NOTE_IDS));
    expect(parseNoteIds(text)).toEqual(got);
    // nothing past the byte bound is looked at, however few ids come before it
    const late = ' '.repeat(MAX_NOTE_BYTES) + '\nEntire-Checkpoint: 0123456789ab\n';
    expect(parseNoteIds(late)).toEqual([]);
    // duplicates count once, in one pass
    expect(parseNoteIds('Entire-Checkpoint: 0123456789ab\n'.repeat(50_000))).toEqual(['0123456789ab']);
    // a note we write never lists more than a reader takes
    expect(renderNote(ids).split('\n').filter((l) => l !== '').length).toBe(MAX_NOTE_IDS);
  });

  it('explain of a commit a teammate noted with 120,000 ids names at most MAX_NOTE_IDS of them', () => {
    const { r, agent } = world();
    const own = linkedCommit(r, agent, 'a.go');
    const sha = r.git(['rev-parse', 'HEAD']).trim();
    plantNote(r, sha, text);
    const res = r.entire(['explain', '--commit', sha, '--json']);
    expect(res.status, res.stderr.slice(0, 500)).toBe(0);
    expect(res.stdout).toContain(own);
    const warned = res.stderr.split('\n').filter((l) => /checkpoint [0-9a-f]{12} linked by commit/.test(l));
    expect(warned.length).toBeGreaterThan(0);
    expect(warned.length).toBeLessThanOrEqual(MAX_NOTE_IDS);
    // the next prompt hook reads the same notes (commit linking): it finishes normally
    expect(agent.prompt('next').status).toBe(0);
  });
});

describe('post-rewrite keeps only ids that resolve', () => {
  it('an amend does not copy a teammate note’s ids of nothing into our note', () => {
    const { r, agent } = world();
    const id = linkedCommit(r, agent, 'a.go');
    const sha = r.git(['rev-parse', 'HEAD']).trim();
    // the teammate's note on our commit: our real id, plus ids that name nothing
    const junk = junkIds(3);
    plantNote(r, sha, renderNote([id, ...junk]));
    const c = commit(r, ['--amend', '-m', 'add a.go, reworded'], { tty: true });
    expect(c.status, c.stderr).toBe(0);
    const now = r.git(['rev-parse', 'HEAD']).trim();
    expect(now).not.toBe(sha);
    const ours = noteIds(r, now);
    expect(ours).toContain(id);
    for (const j of junk) expect(ours, `${j} names nothing`).not.toContain(j);
  });

  it('a rebase folding a commit keeps its resolving id, not its note’s ids of nothing', () => {
    const { r, agent } = world();
    const a = linkedCommit(r, agent, 'a.go');
    const b = linkedCommit(r, agent, 'b.go');
    const bSha = r.git(['rev-parse', 'HEAD']).trim();
    const junk = junkIds(2);
    plantNote(r, bSha, renderNote([b, ...junk]));
    // fixup b into a: b's message (and trailer) goes, its ids must reach the note
    const seq = `sed -i '2s/^pick/fixup/' "$1"`;
    const res = r.gitResult(['rebase', '-i', 'HEAD~2'], { env: { GIT_SEQUENCE_EDITOR: seq, ENTIRE_TEST_TTY: '0' } });
    expect(res.status, res.stderr).toBe(0);
    const ours = noteIds(r, 'HEAD');
    expect(ours).toEqual([a, b].sort());
  });
});
