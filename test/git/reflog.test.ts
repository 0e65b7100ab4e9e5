/**
 * HEAD's reflog tail (src/git/reflog.ts) and the local-commit evidence the
 * hook-less commit check takes from it (issue 25, point 6): real git writes
 * the reflog; hostile or oversized lines are skipped; the read is bounded.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupAll, makeRepo } from '../helpers/repo.js';
import { headReflogTail, parseReflogLine } from '../../src/git/reflog.js';
import { enteredByLocalCommit } from '../../src/strategy/hookless-commits.js';

afterAll(cleanupAll);

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);

describe('HEAD reflog tail', () => {
  it("reads what git writes: commit, reset, checkout entries with the committer's identity", () => {
    const r = makeRepo();
    r.write('x.txt', 'x\n');
    const sha = r.commitAll('add x');
    r.git(['checkout', '-q', '-b', 'side']);
    r.git(['reset', '-q', '--hard', 'HEAD~1']);
    const entries = headReflogTail(join(r.dir, '.git'));
    const commit = entries.find((e) => e.next === sha && e.message.startsWith('commit'));
    expect(commit?.message).toBe('commit: add x');
    expect(commit?.ident).toBe('Test Committer <committer@example.com>');
    expect(entries.at(-1)!.message).toMatch(/^reset: moving to HEAD~1$/);
    expect(entries.some((e) => e.message.startsWith('checkout: moving from main to side'))).toBe(true);
    const committer = r.git(['log', '-1', '--format=%cn <%ce> %ct +0000', sha]).trim();
    expect(enteredByLocalCommit(entries, sha, committer, 0, Number.MAX_SAFE_INTEGER)).toBe(true);
    // another committer, or a time outside the session: no evidence
    expect(enteredByLocalCommit(entries, sha, committer.replace('Test Committer', 'Someone Else'), 0, Number.MAX_SAFE_INTEGER)).toBe(false);
    expect(enteredByLocalCommit(entries, sha, committer, Number.MAX_SAFE_INTEGER - 1, Number.MAX_SAFE_INTEGER)).toBe(false);
  });

  it('skips lines that are not exactly git format, and lines over 4 KiB', () => {
    expect(parseReflogLine(`${A} ${B} N <e@x> 1700000000 +0000\tcommit: ok`)?.message).toBe('commit: ok');
    expect(parseReflogLine(`${A} ${B} N <e@x> 1700000000 +0000`)?.message).toBe('');
    for (const bad of [
      `${A} ${B} N e@x 1700000000 +0000\tcommit: no brackets`,
      `${A.toUpperCase()} ${B} N <e@x> 1700000000 +0000\tcommit: upper hex`,
      `${A} ${B} N <e@x> 17x +0000\tcommit: bad time`,
      `${A} ${B} N <e<@x> 1700000000 +0000\tcommit: bracket in email`,
      `${A} ${B} N <e@x> 1700000000 +0000\tcommit: ${'y'.repeat(5000)}`,
    ]) {
      expect(parseReflogLine(bad), bad.slice(0, 120)).toBeNull();
    }
  });

  it('reads only the last 256 KiB (the cut first line dropped); a missing file is no evidence', () => {
    const r = makeRepo();
    const file = join(r.dir, '.git', 'logs', 'HEAD');
    const filler = `${A} ${B} Filler <f@x> 1700000000 +0000\tcheckout: moving from a to b\n`;
    writeFileSync(file, filler.repeat(Math.ceil((300 * 1024) / filler.length)));
    const last = `${B} ${A} N <e@x> 1700000001 +0000\tcommit: the newest\n`;
    appendFileSync(file, last);
    const entries = headReflogTail(join(r.dir, '.git'), 256 * 1024);
    expect(entries.length).toBeLessThan(readFileSync(file, 'utf8').split('\n').length - 1);
    expect(entries.length).toBeGreaterThan(1000);
    expect(entries.at(-1)!.message).toBe('commit: the newest');
    // asked about a few commits, only their entries are parsed and returned
    expect(headReflogTail(join(r.dir, '.git'), 256 * 1024, new Set([A])).map((e) => e.message)).toEqual(['commit: the newest']);
    expect(headReflogTail(join(r.dir, 'no-such-dir'))).toEqual([]);
  });
});
