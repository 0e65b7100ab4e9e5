/**
 * The notes index naming a missing object (a `git gc --prune=now` beside a notes write can leave
 * it, test/security/gc-race.test.ts): `doctor` finds it, readers still work from the trailers,
 * and `doctor --force` repairs it so `git fsck` is clean.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupAll, fsck } from '../helpers/repo.js';
import { world, commit, headMessage, trailerIds } from '../e2e/helpers.js';

afterAll(cleanupAll);

describe('a broken notes index', () => {
  it('is found by doctor, ignored by explain, and repaired by doctor --force (reset from its reflog, else deleted)', () => {
    const { r, agent } = world();
    agent.prompt('write a.go');
    agent.write('a.go', 'package a\n');
    agent.say('done');
    expect(agent.stop().status).toBe(0);
    r.git(['add', 'a.go']);
    expect(commit(r, ['-m', 'a.go']).status).toBe(0);
    const [id] = trailerIds(headMessage(r));
    expect(r.git(['notes', '--ref=entire', 'show', 'HEAD'])).toContain(`Entire-Checkpoint: ${id}`);

    // the ref now names a commit the object store does not have
    r.git(['pack-refs', '--all']);
    mkdirSync(join(r.dir, '.git', 'refs', 'notes'), { recursive: true });
    writeFileSync(join(r.dir, '.git', 'refs', 'notes', 'entire'), `${'7d'.repeat(20)}\n`);
    expect(fsck(r).ok).toBe(false);

    const found = r.entire(['doctor', '--json']);
    expect(found.stdout).toContain('broken-notes-ref');
    const ex = r.entire(['explain', '--commit', 'HEAD']);
    expect(ex.status, ex.stderr).toBe(0);
    expect(ex.stdout).toContain(id!);

    const fixed = r.entire(['doctor', '--force']);
    expect(fixed.status, fixed.stderr).toBe(0);
    // reset to its reflog's last complete entry when there is one, else deleted
    expect(fixed.stdout).toMatch(/broken-notes-ref[\s\S]*(reset to [0-9a-f]{7}|deleted)/);
    expect(r.gitResult(['rev-parse', '--verify', '-q', 'refs/notes/entire']).stdout.trim()).not.toBe('7d'.repeat(20));
    expect(fsck(r).ok, fsck(r).output).toBe(true);
    expect(r.entire(['explain', '--commit', 'HEAD']).stdout).toContain(id!);
  });
});
