/**
 * replaceViaSpare (src/fs-spare.ts): the state index is rewritten on most
 * hooks and the commit intent on every commit, and a file creation is the
 * slow part of a write on some file systems, so after the first write they
 * reuse an inode the file had before. Each version must be whole, nothing may be left behind, and a
 * spare that is still linked elsewhere must never be written into.
 */
import { describe, it, expect } from 'vitest';
import { existsSync, linkSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { replaceViaSpare } from '../../src/fs-spare.js';
import { intentPath, readIntent, removeIntent, writeIntent, type CommitIntent } from '../../src/strategy/intent.js';
import { tempDir } from '../helpers/repo.js';

describe('replaceViaSpare', () => {
  it('writes whole versions, reusing the previous inode instead of creating a file', () => {
    const dir = tempDir();
    const path = join(dir, 'index.v1');
    replaceViaSpare(path, '{"v":1}');
    expect(readFileSync(path, 'utf8')).toBe('{"v":1}');
    replaceViaSpare(path, '{"v":2,"longer":true}');
    expect(readFileSync(path, 'utf8')).toBe('{"v":2,"longer":true}');
    for (let v = 3; v < 8; v++) {
      const spareIno = statSync(`${path}.spare`).ino;
      const currentIno = statSync(path).ino;
      replaceViaSpare(path, `{"v":${v}}`); // shorter than what the spare held: truncated
      expect(readFileSync(path, 'utf8')).toBe(`{"v":${v}}`);
      expect(statSync(path).ino).toBe(spareIno); // the spare became the file
      expect(statSync(`${path}.spare`).ino).toBe(currentIno); // and the old file the spare
      expect(statSync(path).nlink).toBe(1);
    }
    expect(readdirSync(dir).sort()).toEqual(['index.v1', 'index.v1.spare']);
  });

  it('never writes into a spare that another name still links, and clears a leftover', () => {
    const dir = tempDir();
    const path = join(dir, 'index.v1');
    replaceViaSpare(path, 'one');
    // a writer that died between its link and its renames: `.prev` and `.spare` name live files
    linkSync(path, `${path}.prev`);
    writeFileSync(join(dir, 'other'), 'keep me');
    linkSync(join(dir, 'other'), `${path}.spare`);
    replaceViaSpare(path, 'two');
    expect(readFileSync(path, 'utf8')).toBe('two');
    expect(readFileSync(join(dir, 'other'), 'utf8')).toBe('keep me');
    expect(existsSync(`${path}.prev`)).toBe(false);
    expect(statSync(`${path}.spare`).nlink).toBe(1);
    expect(readFileSync(`${path}.spare`, 'utf8')).toBe('one');
    expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('gives the commit intent the inode its last removal kept: a commit creates no file for it', () => {
    const gitDir = tempDir();
    const intent = (id: string): CommitIntent => ({ id, mode: 'new', head_before: 'a'.repeat(40), created_at: new Date().toISOString(), sessions: { s1: ['a.go'] } });
    writeIntent(gitDir, intent('aaaaaaaaaaaa'));
    const first = statSync(intentPath(gitDir)).ino;
    removeIntent(gitDir); // post-commit
    expect(existsSync(intentPath(gitDir))).toBe(false);
    expect(readIntent(gitDir)).toBeNull();
    writeIntent(gitDir, intent('bbbbbbbbbbbb')); // the next prepare-commit-msg
    expect(statSync(intentPath(gitDir)).ino).toBe(first);
    expect(readIntent(gitDir)).toMatchObject({ id: 'bbbbbbbbbbbb', sessions: { s1: ['a.go'] } });
    removeIntent(gitDir);
    removeIntent(gitDir); // twice: nothing to remove is fine
    expect(readdirSync(gitDir)).toEqual(['entire-commit-intent.json.spare']);
  });
});
