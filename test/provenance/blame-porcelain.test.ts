/** `git blame --porcelain` parsing (src/provenance/blame-porcelain.ts), on a literal sample captured from git 2.x. */
import { describe, expect, it } from 'vitest';
import { parseBlamePorcelain } from '../../src/provenance/blame-porcelain.js';
import { ZERO_COMMIT } from '../../src/provenance/classify.js';

const A = '6dc3dbb3106a345cb905e73ea97d8d289ffee9fd';
const B = 'eb3b251a38199b0804f84cfb4dad25530ee04188';

// `git blame --porcelain f.txt` after: commit A (a b c), commit B (b → "B  ", d added, renamed from
// old.txt for this sample), then "e" appended in the work tree. The second group of B spans two lines.
const SAMPLE = [
  `${A} 1 1 1`,
  'author Ada Lovelace',
  'author-mail <ada@example.com>',
  'author-time 1767225600',
  'author-tz +0000',
  'committer Ada Lovelace',
  'committer-mail <ada@example.com>',
  'committer-time 1767225600',
  'committer-tz +0000',
  'summary first',
  'boundary',
  'filename old.txt',
  '\ta',
  `${B} 2 2 1`,
  'author Ada Lovelace',
  'author-mail <ada@example.com>',
  'author-time 1767312000',
  'author-tz +0000',
  'committer Ada Lovelace',
  'committer-mail <ada@example.com>',
  'committer-time 1767312000',
  'committer-tz +0000',
  'summary second',
  `previous ${A} old.txt`,
  'filename f.txt',
  '\tB  ',
  `${A} 3 3 1`,
  '\tc',
  `${B} 4 4 2`,
  '\td',
  `${B} 5 5`,
  '\t\tindented, with a tab',
  `${ZERO_COMMIT} 6 6 1`,
  'author Not Committed Yet',
  'author-mail <not.committed.yet>',
  'author-time 1795887882',
  'author-tz +0000',
  'committer Not Committed Yet',
  'committer-mail <not.committed.yet>',
  'committer-time 1795887882',
  'committer-tz +0000',
  'summary Version of f.txt from f.txt',
  `previous ${B} f.txt`,
  'filename f.txt',
  '\te',
  '',
].join('\n');

describe('parseBlamePorcelain', () => {
  it('gives each line its commit, final and original line, text (trailing spaces and inner tabs kept) and path', () => {
    const { lines } = parseBlamePorcelain(SAMPLE);
    expect(lines).toEqual([
      { line: 1, text: 'a', commit: A, origLine: 1, origPath: 'old.txt' },
      { line: 2, text: 'B  ', commit: B, origLine: 2, origPath: 'f.txt' },
      { line: 3, text: 'c', commit: A, origLine: 3, origPath: 'old.txt' },
      { line: 4, text: 'd', commit: B, origLine: 4, origPath: 'f.txt' },
      { line: 5, text: '\tindented, with a tab', commit: B, origLine: 5, origPath: 'f.txt' },
      { line: 6, text: 'e', commit: ZERO_COMMIT, origLine: 6, origPath: 'f.txt' },
    ]);
  });

  it('gives each commit its header fields once', () => {
    const { commits } = parseBlamePorcelain(SAMPLE);
    expect([...commits.keys()]).toEqual([A, B, ZERO_COMMIT]);
    expect(commits.get(A)).toEqual({
      sha: A,
      author: 'Ada Lovelace',
      authorMail: '<ada@example.com>',
      authorTime: 1767225600,
      authorTz: '+0000',
      committer: 'Ada Lovelace',
      committerTime: 1767225600,
      summary: 'first',
      boundary: true,
    });
    expect(commits.get(B)).toMatchObject({ summary: 'second', boundary: false, previous: { sha: A, path: 'old.txt' } });
  });

  it('skips what it does not understand; empty input gives nothing', () => {
    expect(parseBlamePorcelain('')).toEqual({ lines: [], commits: new Map() });
    const { lines } = parseBlamePorcelain(['\torphan text', 'garbage', `${A} 1 1 1`, 'weird-key x', '\ta', `${A} x 2`, '\tb'].join('\n'));
    expect(lines).toEqual([{ line: 1, text: 'a', commit: A, origLine: 1 }]);
  });
});
