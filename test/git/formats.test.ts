/**
 * The one parser per git format (src/git/tree-format.ts, commit-format.ts,
 * ref-format.ts), attacked the way a teammate with push access, or anything
 * that can write into .git, could: trees with `..`, `.`, `.git`, `/` in
 * names, bad modes and truncated entries; commits with repeated or misplaced
 * headers; packed-refs and HEAD files with junk. Each case checks what every
 * reader built on the parser does with it: the decoded list, the in-place
 * lookup, `<rev>:<path>` and `^{tree}` reads, the tree editor that writes new
 * trees from old ones, discovery, and ref transactions.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeRepo, cleanupAll, type TempRepo } from '../helpers/repo.js';
import { withEnv } from '../helpers/env.js';
import { CorruptTreeError, findTreeEntry, isValidTreeName, modeValue, parseTree } from '../../src/git/tree-format.js';
import { commitTree, parseCommit, tagTarget } from '../../src/git/commit-format.js';
import { isValidRefName, packedRefValue, packedRefsTraits, parseRefFile, readHead } from '../../src/git/ref-format.js';
import { LocalObjects } from '../../src/git/local-odb.js';
import { discoverRepo, resolveRef } from '../../src/git/discover.js';
import { currentBranch, openRepo } from '../../src/git/repo.js';
import { writeCommitLoose } from '../../src/git/odb.js';
import { buildStream } from '../../src/git/fastimport.js';
import { updateRefsInProcess } from '../../src/git/ref-files.js';

afterAll(cleanupAll);

const ident = { name: 'T', email: 't@example.com' };

/** Write any bytes as an object of `type` (no checks: --literally), return its id. */
function rawObject(t: TempRepo, type: string, data: Buffer | string): string {
  return t.git(['hash-object', '-t', type, '--literally', '-w', '--stdin'], { input: data }).trim();
}

function entry(mode: string, name: string | Buffer, oid: string): Buffer {
  return Buffer.concat([Buffer.from(mode + ' ', 'latin1'), typeof name === 'string' ? Buffer.from(name, 'utf8') : name, Buffer.from([0]), Buffer.from(oid, 'hex')]);
}

function local(t: TempRepo): LocalObjects {
  const g = join(t.dir, '.git');
  return new LocalObjects(join(g, 'objects'), 'sha1', { gitDir: g, commonDir: g });
}

/** Names, as raw bytes in order, of a tree as git lists it. */
function gitNames(t: TempRepo, tree: string): Buffer[] {
  const r = spawnSync('git', ['ls-tree', '-z', tree], { cwd: t.dir, env: t.env });
  const out: Buffer[] = [];
  let i = 0;
  const b = r.stdout;
  while (i < b.length) {
    const tab = b.indexOf(0x09, i);
    const nul = b.indexOf(0, tab);
    out.push(b.subarray(tab + 1, nul));
    i = nul + 1;
  }
  return out;
}

/**
 * `git fsck --strict` of one tree and its blobs, copied alone into a new repository (the
 * hostile objects the tests plant would fail a fsck of the whole store): its complaints.
 */
function fsckAlone(t: TempRepo, tree: string): string {
  const u = makeRepo({ initialCommit: false });
  const cat = (type: string, oid: string): Buffer => spawnSync('git', ['cat-file', type, oid], { cwd: t.dir, env: t.env }).stdout;
  const raw = cat('tree', tree);
  for (const e of parseTree(raw, 'sha1')) expect(rawObject(u, 'blob', cat('blob', e.oid))).toBe(e.oid);
  expect(rawObject(u, 'tree', raw)).toBe(tree);
  const r = u.gitResult(['fsck', '--strict', '--no-dangling', '--no-progress']);
  const complaints = (r.stdout + r.stderr).split('\n').filter((l) => l.trim() !== '' && !l.startsWith('notice:'));
  return (r.status === 0 ? '' : `exit ${r.status} `) + complaints.join('\n');
}

describe('tree objects: one parser, invalid entries dropped everywhere', () => {
  function hostileTree(t: TempRepo): { tree: string; blob: string } {
    const blob = rawObject(t, 'blob', 'payload\n');
    const bytes = Buffer.concat([
      entry('100644', '', blob), // empty name
      entry('100644', '.', blob),
      entry('40000', '..', blob),
      entry('100644', '.GiT', blob),
      entry('100644', 'a', blob),
      entry('100644', 'ctl\u0001\nname', blob), // control characters: git's rules allow them
      entry('100600', 'badmode', blob),
      entry('0100644', 'padded', blob),
      entry('100644', 'x/y', blob),
      entry('100755', 'z', blob),
    ]);
    return { tree: rawObject(t, 'tree', bytes), blob };
  }

  it('parseTree returns the valid entries only, findTreeEntry finds no invalid one', () => {
    const t = makeRepo();
    const { tree, blob } = hostileTree(t);
    const raw = spawnSync('git', ['cat-file', 'tree', tree], { cwd: t.dir, env: t.env }).stdout;
    expect(parseTree(raw, 'sha1')).toEqual([
      { mode: '100644', name: 'a', oid: blob },
      { mode: '100644', name: 'ctl\u0001\nname', oid: blob },
      { mode: '100755', name: 'z', oid: blob },
    ]);
    for (const bad of ['', '.', '..', '.GiT', '.git', 'badmode', 'padded', 'x/y', 'x']) expect(findTreeEntry(raw, bad, 20), bad).toBeNull();
    expect(findTreeEntry(raw, 'a', 20)).toEqual({ oid: blob, mode: 0o100644 });
    expect(findTreeEntry(raw, 'ctl\u0001\nname', 20)).toEqual({ oid: blob, mode: 0o100644 });
  });

  it('<rev>:<path> reads do not walk `..`, `.` or `.git`, nor reach a bad-mode entry', () => {
    const t = makeRepo();
    const { tree, blob } = hostileTree(t);
    const commit = t.git(['commit-tree', tree, '-m', 'hostile']).trim();
    const lo = local(t);
    expect(lo.read(`${commit}:a`)?.oid).toBe(blob);
    for (const p of ['..', '../a', '.', './a', '.GiT', 'badmode', 'padded', 'x/y']) {
      expect(lo.read(`${commit}:${p}`), p).toBeNull();
      expect(lo.entryAt(commit, p), p).toBeNull();
    }
  });

  it('a tree written from a hostile one leaves its invalid entries out', async () => {
    const t = makeRepo();
    const { tree, blob } = hostileTree(t);
    const repo = await withEnv(t.env, () => openRepo(t.dir, { fast: true }));
    try {
      const c = await withEnv(t.env, () => writeCommitLoose(repo, { message: 'm', baseTree: tree, changes: [{ op: 'put', path: 'new.txt', content: 'n\n' }], author: ident, time: 1 }));
      const out = t.git(['rev-parse', `${c}^{tree}`]).trim();
      expect(gitNames(t, out).map((b) => b.toString('utf8'))).toEqual(['a', 'ctl\u0001\nname', 'new.txt', 'z']);
      expect(t.git(['rev-parse', `${out}:a`]).trim()).toBe(blob);
      // and it is a tree git's fsck finds nothing wrong with
      expect(fsckAlone(t, out)).toBe('');
      // a hostile subtree on the changed path is cleaned too
      const outer = rawObject(t, 'tree', entry('40000', 'sub', tree));
      const c2 = await withEnv(t.env, () => writeCommitLoose(repo, { message: 'm', baseTree: outer, changes: [{ op: 'put', path: 'sub/b', content: 'b\n' }], author: ident, time: 1 }));
      expect(gitNames(t, t.git(['rev-parse', `${c2}:sub`]).trim()).map((b) => b.toString('utf8'))).toEqual(['a', 'b', 'ctl\u0001\nname', 'z']);
    } finally {
      repo.objects.close();
    }
  });

  it('never writes an invalid name itself (odb and the fast-import stream alike); deleting one is a no-op', async () => {
    const t = makeRepo();
    const repo = await withEnv(t.env, () => openRepo(t.dir, { fast: true }));
    try {
      for (const path of ['../escape', 'a/../b', './x', '.git/config', 'sub/.GIT/hooks/x', 'nul\0byte']) {
        await expect(writeCommitLoose(repo, { message: 'm', changes: [{ op: 'put', path, content: 'x' }], author: ident }), path).rejects.toThrow(/invalid path/);
        expect(() => buildStream({ message: 'm', changes: [{ op: 'put-oid', path, oid: '0'.repeat(40), mode: '100644' }], author: ident }, 'refs/x'), path).toThrow(/invalid path/);
      }
      const head = t.git(['rev-parse', 'HEAD']).trim();
      const c = await withEnv(t.env, () => writeCommitLoose(repo, { message: 'm', parent: head, changes: [{ op: 'delete', path: '../README.md' }], author: ident }));
      expect(t.git(['rev-parse', `${c}^{tree}`]).trim()).toBe(t.git(['rev-parse', 'HEAD^{tree}']).trim());
      expect(Buffer.concat(buildStream({ message: 'm', changes: [{ op: 'delete', path: '..' }], author: ident }, 'refs/x')).toString()).not.toMatch(/^D /m);
    } finally {
      repo.objects.close();
    }
  });

  it('names that are not UTF-8 keep their bytes and git’s order when a tree is rewritten', async () => {
    const t = makeRepo();
    const blob = rawObject(t, 'blob', 'x');
    // two names that decode to the same string (U+FFFD), in git's byte order
    const tree = rawObject(t, 'tree', Buffer.concat([entry('100644', Buffer.from([0x61, 0xfe]), blob), entry('100644', Buffer.from([0x61, 0xff]), blob)]));
    const repo = await withEnv(t.env, () => openRepo(t.dir, { fast: true }));
    try {
      const c = await withEnv(t.env, () => writeCommitLoose(repo, { message: 'm', baseTree: tree, changes: [{ op: 'put', path: 'a', content: 'new' }], author: ident, time: 1 }));
      const out = t.git(['rev-parse', `${c}^{tree}`]).trim();
      expect(gitNames(t, out).map((b) => b.toString('hex'))).toEqual(['61', '61fe', '61ff']);
      expect(fsckAlone(t, out)).toBe('');
    } finally {
      repo.objects.close();
    }
  });

  it('a tree whose entries cannot be delimited is corrupt for every reader', () => {
    const t = makeRepo();
    const blob = rawObject(t, 'blob', 'x');
    const good = entry('100644', 'a', blob);
    const cases: Record<string, Buffer> = {
      'truncated id': Buffer.concat([good, good.subarray(0, good.length - 5)]),
      'no NUL after the name': Buffer.concat([good, Buffer.from('100644 b')]),
      'no space after the mode': Buffer.concat([good, Buffer.from('100644')]),
      'mode with a letter': Buffer.concat([good, entry('10064x', 'b', blob)]),
    };
    for (const [what, bytes] of Object.entries(cases)) {
      expect(() => parseTree(bytes, 'sha1'), what).toThrow(CorruptTreeError);
      // a lookup that scans past the damage stops there, it does not answer "absent"
      expect(() => findTreeEntry(bytes, 'zz', 20), what).toThrow(CorruptTreeError);
      expect(findTreeEntry(bytes, 'a', 20), what).toEqual({ oid: blob, mode: 0o100644 });
      const tree = rawObject(t, 'tree', bytes);
      const commit = t.git(['commit-tree', tree, '-m', what]).trim();
      // the in-process reader throws (the object reader then asks git), it does not answer from half a tree
      expect(() => local(t).read(`${commit}:zz`), what).toThrow(CorruptTreeError);
    }
    // an entry found before the damage is not enough either: git's own decoder rejects the object
    expect(() => parseTree(cases['truncated id']!, 'sha1')).toThrow(/truncated/);
  });

  it('mode and name rules', () => {
    for (const m of ['100644', '100755', '120000', '40000', '040000', '160000']) expect(modeValue(m), m).toBeGreaterThan(0);
    for (const m of ['100664', '100600', '0100644', '00040000', '4000', '140000', '777777', '1006444']) expect(modeValue(m), m).toBe(-1);
    for (const m of ['', '10064x', '-100644', '100644 ']) expect(modeValue(m), m).toBe(-2);
    for (const n of ['a', '.a', '..a', 'a..', '.gitignore', '.git2', 'git', ' ', '\t', 'ü']) expect(isValidTreeName(n), n).toBe(true);
    for (const n of ['', '.', '..', '.git', '.GIT', '.Git', 'a/b', '/', 'a\0b']) expect(isValidTreeName(n), JSON.stringify(n)).toBe(false);
  });
});

describe('commit objects: one header model', () => {
  function commitText(t: TempRepo): { tree: string; parent: string; author: string; committer: string } {
    const head = t.git(['rev-parse', 'HEAD']).trim();
    return { tree: t.git(['rev-parse', 'HEAD^{tree}']).trim(), parent: head, author: 'A U Thor <a@example.com> 1700000000 +0100', committer: 'C O Mitter <c@example.com> 1700000001 -0200' };
  }

  it('reads tree, parents, idents, encoding, continuation lines and the message', () => {
    const t = makeRepo();
    const c = commitText(t);
    const other = t.git(['commit-tree', c.tree, '-m', 'other']).trim();
    const text =
      `tree ${c.tree}\nparent ${c.parent}\nparent ${other}\nauthor ${c.author}\ncommitter ${c.committer}\nencoding ISO-8859-1\n` +
      `gpgsig -----BEGIN PGP SIGNATURE-----\n \n tree ${other}\n parent ${other}\n -----END PGP SIGNATURE-----\n` +
      `mergetag object ${other}\n type commit\n\nsubject\n\nbody\n`;
    const oid = rawObject(t, 'commit', text);
    const info = parseCommit(Buffer.from(text), 'sha1')!;
    expect(info).not.toBeNull();
    expect(info.tree).toBe(c.tree);
    expect(info.parents).toEqual([c.parent, other]);
    expect(info.author).toBe(c.author);
    expect(info.committer).toBe(c.committer);
    expect(info.encoding).toBe('ISO-8859-1');
    expect(info.extra.map((e) => e.key)).toEqual(['encoding', 'gpgsig', 'mergetag']);
    expect(info.extra[1]!.value).toBe(`-----BEGIN PGP SIGNATURE-----\n\ntree ${other}\nparent ${other}\n-----END PGP SIGNATURE-----`);
    expect(info.message).toBe('subject\n\nbody\n');
    // git agrees on what matters: the tree, the parents
    expect(t.git(['rev-parse', `${oid}^{tree}`]).trim()).toBe(info.tree);
    expect(t.git(['log', '-1', '--format=%P', oid]).trim()).toBe(`${c.parent} ${other}`);
    expect(local(t).read(`${oid}^{tree}`)?.oid).toBe(c.tree);
  });

  it('a repeated or misplaced tree/parent/author/committer header makes the commit unreadable here', () => {
    const t = makeRepo();
    const c = commitText(t);
    const decoy = rawObject(t, 'tree', '');
    const bad: Record<string, string> = {
      'two trees': `tree ${c.tree}\ntree ${decoy}\nauthor ${c.author}\ncommitter ${c.committer}\n\nm\n`,
      'tree not first': `author ${c.author}\ntree ${c.tree}\ncommitter ${c.committer}\n\nm\n`,
      'parent after author': `tree ${c.tree}\nauthor ${c.author}\nparent ${c.parent}\ncommitter ${c.committer}\n\nm\n`,
      'two authors': `tree ${c.tree}\nauthor ${c.author}\nauthor Evil <e@x> 1 +0000\ncommitter ${c.committer}\n\nm\n`,
      'author again after committer': `tree ${c.tree}\nauthor ${c.author}\ncommitter ${c.committer}\nauthor Evil <e@x> 1 +0000\n\nm\n`,
      'no author': `tree ${c.tree}\ncommitter ${c.committer}\n\nm\n`,
      'no committer': `tree ${c.tree}\nauthor ${c.author}\n\nm\n`,
      'capital hex tree': `tree ${c.tree.toUpperCase()}\nauthor ${c.author}\ncommitter ${c.committer}\n\nm\n`,
      'short tree id': `tree ${c.tree.slice(0, 39)}\nauthor ${c.author}\ncommitter ${c.committer}\n\nm\n`,
      'tree with CR': `tree ${c.tree}\r\nauthor ${c.author}\ncommitter ${c.committer}\n\nm\n`,
      'NUL in a header': `tree ${c.tree}\nauthor ${c.author}\ncommitter ${c.committer}\nx-evil a\0b\n\nm\n`,
      'continuation of committer': `tree ${c.tree}\nauthor ${c.author}\ncommitter ${c.committer}\n tree ${decoy}\n\nm\n`,
      'two encodings': `tree ${c.tree}\nauthor ${c.author}\ncommitter ${c.committer}\nencoding a\nencoding b\n\nm\n`,
      empty: '',
    };
    for (const [what, text] of Object.entries(bad)) {
      expect(parseCommit(Buffer.from(text), 'sha1'), what).toBeNull();
      expect(commitTree(Buffer.from(text), 'sha1'), what).toBeNull();
      if (text === '') continue;
      const oid = rawObject(t, 'commit', text);
      // no reading of git's picked over another: no tree, and no file through it
      expect(local(t).read(`${oid}^{tree}`), what).toBeNull();
      expect(local(t).read(`${oid}:README.md`), what).toBeNull();
    }
    // a message may hold anything, header-like lines included
    const ok = `tree ${c.tree}\nauthor ${c.author}\ncommitter ${c.committer}\n\ntree ${decoy}\nauthor Evil <e@x> 1 +0000\n`;
    expect(parseCommit(Buffer.from(ok), 'sha1')?.tree).toBe(c.tree);
    expect(parseCommit(Buffer.from(ok), 'sha1')?.author).toBe(c.author);
    // headers without a message (no empty line) are complete
    expect(parseCommit(Buffer.from(`tree ${c.tree}\nauthor ${c.author}\ncommitter ${c.committer}\n`), 'sha1')?.message).toBe('');
  });

  it('an annotated tag is peeled through its object line only', () => {
    const t = makeRepo();
    const head = t.git(['rev-parse', 'HEAD']).trim();
    t.git(['tag', '-a', 'v1', '-m', 'tag']);
    expect(local(t).read('refs/tags/v1^{tree}')?.oid).toBe(t.git(['rev-parse', 'HEAD^{tree}']).trim());
    const junk = rawObject(t, 'tag', `type commit\nobject ${head}\ntag x\ntagger T <t@x> 1 +0000\n\nm\n`);
    expect(tagTarget(Buffer.from(`type commit\nobject ${head}\n`), 'sha1')).toBeNull();
    expect(local(t).read(`${junk}^{commit}`)).toBeNull();
    expect(tagTarget(Buffer.from(`object ${head}\ntype commit\n`), 'sha1')).toBe(head);
  });
});

describe('ref names, loose refs and HEAD', () => {
  it('isValidRefName agrees with git check-ref-format', () => {
    const names = [
      'refs/heads/main', 'refs/heads/a.b', 'refs/heads/a..b', 'refs/heads/.a', 'refs/heads/a.', 'refs/heads/a.lock', 'refs/heads/a.lock/b',
      'refs/heads/x.lockx', 'refs/heads//a', 'refs/heads/a/', '/refs/heads/a', 'refs/heads/a b', 'refs/heads/a\tb', 'refs/heads/a\u0001b',
      'refs/heads/a\u007fb', 'refs/heads/a~1', 'refs/heads/a^', 'refs/heads/a:b', 'refs/heads/a?', 'refs/heads/a*', 'refs/heads/a[b', 'refs/heads/a\\b',
      'refs/heads/a@{1}', 'refs/heads/@', '@', 'HEAD', 'main', 'refs/heads/ü', 'refs/heads/a@b', 'refs/heads/-x', 'refs/heads/.', 'refs/heads/..',
      'refs/../config', 'refs/heads/../../config', 'refs/heads/a/.b', 'refs/heads/a/b.', 'refs/heads/a/.lock', 'refs/.lock/x',
    ];
    for (const n of names) {
      for (const oneLevel of [false, true]) {
        const r = spawnSync('git', ['check-ref-format', ...(oneLevel ? ['--allow-onelevel'] : []), n]);
        expect(isValidRefName(n, oneLevel), `${JSON.stringify(n)} onelevel=${oneLevel}`).toBe(r.status === 0);
      }
    }
  });

  it('parseRefFile: a symbolic ref with a valid name, or an id as git writes it', () => {
    const oid = 'a'.repeat(40);
    expect(parseRefFile('ref: refs/heads/main\n', 40)).toEqual({ symref: 'refs/heads/main' });
    expect(parseRefFile('ref:refs/heads/main', 40)).toEqual({ symref: 'refs/heads/main' });
    expect(parseRefFile('ref: \t refs/heads/main \n\n', 40)).toEqual({ symref: 'refs/heads/main' });
    expect(parseRefFile(`${oid}\n`, 40)).toEqual({ oid });
    expect(parseRefFile(`${oid}\tanything after whitespace`, 40)).toEqual({ oid }); // git's FETCH_HEAD rule
    for (const bad of ['ref: refs/heads/../x', 'ref: refs/heads/a\u0001b', 'ref: refs/heads/a b', 'ref: ', 'ref refs/heads/main', `${oid}x`, oid.toUpperCase(), oid.slice(1), 'a'.repeat(64), '', 'garbage\n']) {
      expect(parseRefFile(bad, 40), JSON.stringify(bad)).toBeNull();
    }
    expect(parseRefFile('b'.repeat(64), 64)).toEqual({ oid: 'b'.repeat(64) });
  });

  it('a HEAD with junk or a bad ref name: discovery, reads and writes leave it to git', async () => {
    const t = makeRepo();
    const gitDir = join(t.dir, '.git');
    const head = t.git(['rev-parse', 'HEAD']).trim();
    expect(readHead(gitDir, 40)).toEqual({ symref: 'refs/heads/main' });
    expect(currentBranch({ gitDir, objectFormat: 'sha1' } as never)).toBe('main');
    for (const text of ['garbage\n', 'ref: refs/heads/../../config\n', 'ref: refs/heads/ma\u0001in\n', 'ref: HEAD\n', 'ref: main\n', `${head.toUpperCase()}\n`]) {
      writeFileSync(join(gitDir, 'HEAD'), text);
      expect(readHead(gitDir, 40), text).toBeNull();
      expect(discoverRepo(t.dir, {}), text).toBeNull();
      expect(local(t).read('HEAD'), text).toBeUndefined();
      expect(currentBranch({ gitDir, objectFormat: 'sha1' } as never), text).toBeNull();
    }
    // git refuses such a repository too: it is not ours to decide
    writeFileSync(join(gitDir, 'HEAD'), 'ref: refs/heads/../../config\n');
    expect(t.gitResult(['rev-parse', 'HEAD']).status).not.toBe(0);
    // ref transactions do not guess whether HEAD names the ref they move
    writeFileSync(join(gitDir, 'HEAD'), 'garbage\n');
    const repo = { root: t.dir, gitDir, commonDir: gitDir, objectFormat: 'sha1', filesRefs: true } as never;
    await expect(withEnv(t.env, async () => updateRefsInProcess(repo, [{ ref: 'refs/heads/x', newOid: head, oldOid: null }], 'm'))).resolves.toBeUndefined();
    writeFileSync(join(gitDir, 'HEAD'), 'ref: refs/heads/main\n');
    await expect(withEnv(t.env, async () => updateRefsInProcess(repo, [{ ref: 'refs/heads/x', newOid: head, oldOid: null }], 'm'))).resolves.toBe('ok');
    for (const bad of ['refs/heads/a..b', 'refs/heads/a\u0001', 'refs/heads/.x', 'refs/heads/x.lock', 'refs/heads/a b', 'refs/tags/v1']) {
      await expect(withEnv(t.env, async () => updateRefsInProcess(repo, [{ ref: bad, newOid: head, oldOid: null }], 'm')), bad).resolves.toBeUndefined();
    }
  });

  it('a loose ref never becomes a path outside refs, and a junk one is left to git', () => {
    const t = makeRepo();
    const gitDir = join(t.dir, '.git');
    const head = t.git(['rev-parse', 'HEAD']).trim();
    // an object id sitting in a file the name would reach with `..`
    writeFileSync(join(gitDir, 'evil'), head + '\n');
    expect(resolveRef(gitDir, gitDir, 'refs/../evil')).toBeUndefined();
    expect(local(t).read('refs/../evil')).toBeUndefined();
    // `<ref>~1` is git's syntax, not a ref file: not "missing"
    expect(local(t).read('refs/heads/main~1')).toBeUndefined();
    mkdirSync(join(gitDir, 'refs', 'heads'), { recursive: true });
    writeFileSync(join(gitDir, 'refs', 'heads', 'junk'), 'not an id\n');
    expect(resolveRef(gitDir, gitDir, 'refs/heads/junk')).toBeUndefined();
    writeFileSync(join(gitDir, 'refs', 'heads', 'sym'), 'ref: refs/heads/main\n');
    expect(resolveRef(gitDir, gitDir, 'refs/heads/sym')).toBeUndefined();
    expect(resolveRef(gitDir, gitDir, 'refs/heads/main')).toBe(head);
  });
});

describe('packed-refs', () => {
  const A = '1'.repeat(40);
  const B = '2'.repeat(40);

  it('answers from a well-formed record only; junk where the ref is named is git’s to read', () => {
    const text =
      '# pack-refs with: peeled fully-peeled sorted \n' +
      `${A} refs/heads/a\n` +
      `${B} refs/tags/t\n^${A}\n` +
      `garbage refs/heads/b\n` +
      `${A.toUpperCase().replace(/1/g, 'F')} refs/heads/c\n` +
      `^${A} refs/heads/d\n` +
      `${A} refs/heads/e\n${B} refs/heads/e\n` +
      `${'3'.repeat(64)} refs/heads/f\n` +
      `${A} refs/heads/g refs/heads/h\n`;
    expect(packedRefsTraits(text)).toEqual(new Set(['peeled', 'fully-peeled', 'sorted']));
    expect(packedRefValue(text, 'refs/heads/a', 40)).toBe(A);
    expect(packedRefValue(text, 'refs/tags/t', 40)).toBe(B); // its peeled line is not a record
    for (const r of ['refs/heads/b', 'refs/heads/c', 'refs/heads/d', 'refs/heads/e', 'refs/heads/f', 'refs/heads/h']) expect(packedRefValue(text, r, 40), r).toBeUndefined();
    expect(packedRefValue(text, 'refs/heads/missing', 40)).toBeNull();
    expect(packedRefValue(text, 'refs/heads/../a', 40)).toBeUndefined();
    // files git refuses: a header that is not git's, an unterminated last line
    expect(packedRefValue(`# junk\n${A} refs/heads/a\n`, 'refs/heads/a', 40)).toBeUndefined();
    expect(packedRefsTraits('# junk\n')).toBeNull();
    expect(packedRefValue(`${A} refs/heads/a\n${B} refs/heads/z`, 'refs/heads/a', 40)).toBeUndefined();
    expect(packedRefValue('', 'refs/heads/a', 40)).toBeNull();
    expect(packedRefValue(`${A} refs/heads/a\n`, 'refs/heads/a', 40)).toBe(A);
  });

  it('discovery, reads and ref transactions use it, and agree with git where git reads the file', async () => {
    const t = makeRepo();
    const gitDir = join(t.dir, '.git');
    const head = t.git(['rev-parse', 'HEAD']).trim();
    t.git(['branch', 'side']);
    t.git(['pack-refs', '--all']);
    const packed = readFileSync(join(gitDir, 'packed-refs'), 'utf8');
    expect(resolveRef(gitDir, gitDir, 'refs/heads/side')).toBe(t.git(['rev-parse', 'refs/heads/side']).trim());
    expect(discoverRepo(t.dir, {})?.head).toBe(head);
    // junk on the line of the branch HEAD names: git refuses the file, we do not read past it
    writeFileSync(join(gitDir, 'packed-refs'), packed.replace(`${head} refs/heads/main`, `${head}x refs/heads/main`));
    expect(t.gitResult(['rev-parse', 'refs/heads/main']).status).not.toBe(0);
    expect(resolveRef(gitDir, gitDir, 'refs/heads/main')).toBeUndefined();
    expect(discoverRepo(t.dir, {})).toBeNull();
    expect(local(t).read('HEAD')).toBeUndefined();
    // a ref transaction creating a branch next to a packed-refs git would refuse leaves it to git
    writeFileSync(join(gitDir, 'packed-refs'), '# not git\n' + packed);
    const repo = { root: t.dir, gitDir, commonDir: gitDir, objectFormat: 'sha1', filesRefs: true } as never;
    await expect(withEnv(t.env, async () => updateRefsInProcess(repo, [{ ref: 'refs/heads/new', newOid: head, oldOid: null }], 'm'))).resolves.toBeUndefined();
    writeFileSync(join(gitDir, 'packed-refs'), packed);
    await expect(withEnv(t.env, async () => updateRefsInProcess(repo, [{ ref: 'refs/heads/new', newOid: head, oldOid: null }], 'm'))).resolves.toBe('ok');
    expect(t.git(['rev-parse', 'refs/heads/new']).trim()).toBe(head);
  });
});
