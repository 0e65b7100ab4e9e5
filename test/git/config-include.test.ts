/**
 * `[include]` and `[includeIf]` in git's config files (src/git/config-file.ts,
 * wildmatch.ts): followed as git follows them, so a config that includes
 * another file keeps the in-process paths instead of silently losing them.
 * Every case is checked against `git config --get` on the same files; what
 * the reader does not model answers undefined and is noted for the log.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeRepo, cleanupAll, type TempRepo } from '../helpers/repo.js';
import { readConfigValue, resetConfigFallbackForTests, takeConfigFallback } from '../../src/git/config-file.js';
import { wildmatch } from '../../src/git/wildmatch.js';

afterAll(cleanupAll);

/** The repository's environment with ~/.gitconfig in play (the tests' default is /dev/null). */
function envOf(t: TempRepo): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...t.env };
  delete env['GIT_CONFIG_GLOBAL'];
  delete env['XDG_CONFIG_HOME'];
  return env;
}

function gitValue(t: TempRepo, key: string, extraEnv: Record<string, string | undefined> = {}): string | null {
  const r = t.gitResult(['config', '--get', key], { env: { GIT_CONFIG_GLOBAL: undefined, XDG_CONFIG_HOME: undefined, ...extraEnv } });
  if (r.status === 1) return null;
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.replace(/\n$/, '');
}

/** Ours equals git's, for `section.key`. */
function agree(t: TempRepo, section: string, key: string, what: string): string | null {
  const dirs = { commonDir: join(t.dir, '.git'), gitDir: join(t.dir, '.git') };
  const ours = readConfigValue(section, key, dirs, envOf(t));
  const git = gitValue(t, `${section}.${key}`);
  expect(ours, what).toEqual({ value: git });
  return git;
}

describe('config includes, as git reads them', () => {
  it('[include] paths: relative to the including file, ~/ expanded, nested, in order, missing ones skipped', () => {
    const t = makeRepo();
    const h = t.home;
    mkdirSync(join(h, 'sub', 'deeper'), { recursive: true });
    writeFileSync(join(h, 'inc'), '[user]\n\temail = from-inc@example.com\n');
    writeFileSync(join(h, 'sub', 'inc2'), '[include]\n\tpath = deeper/inc3\n[core]\n\tcommentChar = %\n');
    writeFileSync(join(h, 'sub', 'deeper', 'inc3'), '[user]\n\tname = From Inc3\n[core]\n\tcommentChar = ;\n');
    writeFileSync(join(h, '.gitconfig'), '[user]\n\temail = before@example.com\n[include]\n\tpath = inc\n\tpath = ~/sub/inc2\n\tpath = missing-file\n[user]\n\tname = After\n');
    expect(agree(t, 'user', 'email', 'set before the include, overridden by it')).toBe('from-inc@example.com');
    expect(agree(t, 'user', 'name', 'set after the include, wins')).toBe('After');
    expect(agree(t, 'core', 'commentchar', 'a nested include before the including file’s own line')).toBe('%');
    // the repository config includes relative to .git/config
    writeFileSync(join(t.dir, '.git', 'local-inc'), '[core]\n\tcommentChar = !\n');
    t.git(['config', 'include.path', 'local-inc']);
    expect(agree(t, 'core', 'commentchar', 'an include in the repository config')).toBe('!');
    // a subsection of include is not an include; [core "x"] is not core
    writeFileSync(join(h, '.gitconfig'), '[include "x"]\n\tpath = inc\n[user "x"]\n\temail = sub@example.com\n');
    expect(agree(t, 'user', 'email', 'include.x.path, user.x.email')).toBeNull();
  });

  it('[includeIf "gitdir:…"] and gitdir/i: patterns, against the repository’s git dir', () => {
    const t = makeRepo();
    const h = t.home;
    const base = join(t.dir, '..');
    writeFileSync(join(h, 'work'), '[user]\n\temail = work@example.com\n');
    const patterns = [
      `gitdir:${base}/repo/`, `gitdir:${base}/other/`, 'gitdir:repo/.git', 'gitdir:repo/', 'gitdir:repo', `gitdir:${base}/re*/`, `gitdir:${base}/**/.git`,
      `gitdir:${base}/*/.git`, `gitdir:${base}/r?po/`, `gitdir:${base}/[q-s]epo/`, `gitdir:${base}/[!r]epo/`, `gitdir:${base.toUpperCase()}/REPO/`,
      `gitdir/i:${base.toUpperCase()}/REPO/`, 'gitdir:~/../repo/', 'gitdir:**/.git', 'gitdir:.git', `gitdir:${base}/repo/.git`, `gitdir:${base}/repo/.gi`,
      'gitdir:', 'bogus:x', 'gitdir:./../repo/',
    ];
    let matched = 0;
    for (const p of patterns) {
      writeFileSync(join(h, '.gitconfig'), `[includeIf "${p}"]\n\tpath = ~/work\n`);
      if (agree(t, 'user', 'email', p) !== null) matched++;
    }
    expect(matched).toBeGreaterThan(5);
    expect(matched).toBeLessThan(patterns.length - 5);
    // `./` is the including file's directory: a file next to the repository
    writeFileSync(join(base, 'beside'), '[includeIf "gitdir:./repo/"]\n\tpath = home/work\n');
    writeFileSync(join(h, '.gitconfig'), `[include]\n\tpath = ${base}/beside\n`);
    expect(agree(t, 'user', 'email', './ in an included file')).toBe('work@example.com');
  });

  it('[includeIf "onbranch:…"] patterns against HEAD’s branch, born or not', () => {
    const t = makeRepo();
    writeFileSync(join(t.home, 'branchy'), '[test]\n\tv = yes\n');
    const branches = ['main', 'feature/x', 'feature/deep/y', 'fix-1'];
    const patterns = ['main', 'mai', 'feat*', 'feature/', 'feature/*', 'feature/**', '**/y', 'm?in', '[a-m]ain', 'feature', '*', '**', 'fix-[0-9]', 'FIX-1', '*/x'];
    let hits = 0;
    for (const b of branches) {
      t.git(['symbolic-ref', 'HEAD', `refs/heads/${b}`]);
      for (const p of patterns) {
        writeFileSync(join(t.home, '.gitconfig'), `[includeIf "onbranch:${p}"]\n\tpath = branchy\n`);
        if (agree(t, 'test', 'v', `${p} on ${b}`) !== null) hits++;
      }
    }
    expect(hits).toBeGreaterThan(10);
    t.git(['symbolic-ref', 'HEAD', 'refs/heads/main']);
    t.git(['checkout', '-q', '--detach']);
    writeFileSync(join(t.home, '.gitconfig'), '[includeIf "onbranch:*"]\n\tpath = branchy\n');
    expect(agree(t, 'test', 'v', 'detached')).toBeNull();
  });

  it('answers undefined, and notes why once, where only git can tell', () => {
    const t = makeRepo();
    const dirs = { commonDir: join(t.dir, '.git'), gitDir: join(t.dir, '.git') };
    resetConfigFallbackForTests(); // whatever earlier tests noted
    writeFileSync(join(t.home, 'x'), '[user]\n\temail = x@example.com\n');
    const cases: [string, string][] = [
      ['[includeIf "hasconfig:remote.*.url:https://example.com/**"]\n\tpath = x\n', 'hasconfig'],
      ['[include]\n\tpath = ~root/x\n', '~root'],
      ['[includeIf "gitdir:~root/work/"]\n\tpath = x\n', '~root in a pattern'],
      ['[include]\n\tpath = %(prefix)/x\n', 'prefix'],
      ['[include]\n\tpath\n', 'no value'],
      ['[include]\n\tpath = .gitconfig\n', 'itself, endlessly'],
    ];
    for (const [text, what] of cases) {
      writeFileSync(join(t.home, '.gitconfig'), text);
      expect(readConfigValue('user', 'email', dirs, envOf(t)), what).toBeUndefined();
    }
    // git stops at an endless include too
    expect(t.gitResult(['config', '--get', 'user.email'], { env: { GIT_CONFIG_GLOBAL: undefined } }).status).toBe(128);
    writeFileSync(join(t.home, '.gitconfig'), '');
    expect(readConfigValue('user', 'email', dirs, { ...envOf(t), GIT_CONFIG_PARAMETERS: `'include.path'='${join(t.home, 'x')}'` })).toBeUndefined();
    // noted once: the first reason, then nothing
    expect(takeConfigFallback()).toMatch(/hasconfig/);
    expect(takeConfigFallback()).toBeNull();
    // and a config without such things reads in-process
    writeFileSync(join(t.home, '.gitconfig'), '[include]\n\tpath = x\n');
    expect(readConfigValue('user', 'email', dirs, envOf(t))).toEqual({ value: 'x@example.com' });
  });
});

describe('wildmatch (git’s wildmatch.c, WM_PATHNAME)', () => {
  it('matches as git’s own test table says', () => {
    // from git's t/t3070-wildmatch.sh (pathname-mode column)
    const cases: [string, string, boolean][] = [
      ['foo', 'foo', true], ['bar', 'foo', false], ['???', 'foo', true], ['??', 'foo', false], ['*', 'foo', true], ['f*', 'foo', true],
      ['*f', 'foo', false], ['*foo*', 'foo', true], ['*ob*a*r*', 'foobar', true], ['*ab', 'aaaaaaabababab', true], ['foo\\*', 'foo*', true],
      ['foo\\*bar', 'foobar', false], ['f\\\\oo', 'f\\oo', true], ['*[al]?', 'ball', true], ['[ten]', 'ten', false], ['**[!te]', 'ten', true],
      ['**[!ten]', 'ten', false], ['t[a-g]n', 'ten', true], ['t[!a-g]n', 'ten', false], ['t[!a-g]n', 'ton', true], ['t[^a-g]n', 'ton', true],
      ['a[]]b', 'a]b', true], ['a[]-]b', 'a-b', true], ['a[]-]b', 'a]b', true], ['a[]-]b', 'aab', false], ['a[]a-]b', 'aab', true], [']', ']', true],
      ['foo*bar', 'foo/baz/bar', false], ['foo**bar', 'foo/baz/bar', false], ['foo**bar', 'foobazbar', true], ['foo/**/bar', 'foo/baz/bar', true],
      ['foo/**/**/bar', 'foo/baz/bar', true], ['foo/**/bar', 'foo/b/a/z/bar', true], ['foo/**/bar', 'foo/bar', true], ['foo/**/**/bar', 'foo/bar', true],
      ['foo?bar', 'foo/bar', false], ['foo[/]bar', 'foo/bar', false], ['foo[^a-z]bar', 'foo/bar', false], ['f[^eiu][^eiu][^eiu][^eiu][^eiu]r', 'foo-bar', true],
      ['**/foo', 'foo', true], ['**/foo', 'XXX/foo', true], ['**/foo', 'bar/baz/foo', true], ['*/foo', 'bar/baz/foo', false], ['**/bar*', 'foo/bar/baz', false],
      ['**/bar/*', 'deep/foo/bar/baz', true], ['**/bar/*', 'deep/foo/bar/baz/', false], ['**/bar/**', 'deep/foo/bar/baz/', true], ['**/bar/*', 'deep/foo/bar', false],
      ['**/bar/**', 'deep/foo/bar/', true], ['**/bar**', 'foo/bar/baz', false], ['*/bar/**', 'foo/bar/baz/x', true], ['*/bar/**', 'deep/foo/bar/baz/x', false],
      ['**/bar/*/*', 'deep/foo/bar/baz/x', true], ['a[c-c]st', 'acrt', false], ['a[c-c]rt', 'acrt', true], ['[!]-]', ']', false], ['[!]-]', 'a', true],
      ['\\', '', false], ['\\', '\\', false], ['*/\\', '/\\', false], ['*/\\\\', '/\\', true], ['foo', 'foo', true], ['@foo', '@foo', true], ['@foo', 'foo', false],
      ['\\[ab]', '[ab]', true], ['[[]ab]', '[ab]', true], ['[[:]ab]', '[ab]', true], ['[[::]ab]', '[ab]', false], ['[[:digit]ab]', '[ab]', true], ['[\\[:]ab]', '[ab]', true],
      ['\\??\\?b', '?a?b', true], ['\\a\\b\\c', 'abc', true], ['', 'foo', false], ['**/t[o]', 'foo/bar/baz/to', true], ['[[:alpha:]][[:digit:]][[:upper:]]', 'a1B', true],
      ['[[:digit:][:upper:][:space:]]', 'a', false], ['[[:digit:][:upper:][:space:]]', 'A', true], ['[[:digit:][:upper:][:space:]]', '1', true],
      ['[[:digit:][:upper:][:spaci:]]', '1', false], ['[[:space:]]', ' ', true], ['[[:space:]]', '.', false], ['[[:digit:][:punct:][:space:]]', '.', true],
      ['[a-c[:digit:]x-z]', '5', true], ['[a-c[:digit:]x-z]', 'b', true], ['[a-c[:digit:]x-z]', 'y', true], ['[a-c[:digit:]x-z]', 'q', false],
      ['-*-*-*-*-*-*-12-*-*-*-m-*-*-*', '-adobe-courier-bold-o-normal--12-120-75-75-m-70-iso8859-1', true],
      ['-*-*-*-*-*-*-12-*-*-*-m-*-*-*', '-adobe-courier-bold-o-normal--12-120-75-75-X-70-iso8859-1', false],
      ['XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*', 'XXX/adobe/courier/bold/o/normal//12/120/75/75/m/70/iso8859/1', true],
      ['**/*a*b*g*n*t', 'abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txt', true], ['**/*a*b*g*n*t', 'abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txtz', false],
      ['*/*/*', 'foo/bba/arr', true], ['*/*/*', 'foo/bb/aa/rr', false], ['**/**/**', 'foo/bb/aa/rr', true], ['*X*i', 'abcXdefXghi', true], ['*/*X*/*/*i', 'ab/cXd/efXg/hi', true],
      ['**/*X*/**/*i', 'ab/cXd/efXg/hi', true],
    ];
    const wrong = cases.filter(([p, t, want]) => wildmatch(p, t, { pathname: true }) !== want).map(([p, t, want]) => `${p} ~ ${t}: want ${want}`);
    expect(wrong).toEqual([]);
    // case folding (ASCII), as gitdir/i: asks
    expect(wildmatch('[A-Z]*/x', 'abc/x', { pathname: true, casefold: true })).toBe(true);
    expect(wildmatch('ABC/**', 'abc/d/e', { pathname: true, casefold: true })).toBe(true);
    expect(wildmatch('ABC/**', 'abc/d/e', { pathname: true })).toBe(false);
  });
});
