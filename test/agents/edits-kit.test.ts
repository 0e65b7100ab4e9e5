/** The shared parsing of the edits readers (src/agents/kit/): apply_patch, unified diffs, lines, path confinement. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseApplyPatch } from '../../src/agents/kit/apply-patch.js';
import { parseUnifiedDiff, hunkListLines } from '../../src/agents/kit/unified-diff.js';
import { countTextLines, splitLines } from '../../src/agents/kit/lines.js';
import { RepoPaths } from '../../src/agents/kit/paths.js';

const text = fc.string({ maxLength: 20, unit: fc.constantFrom('a', 'b', ' ', '+', '-', '@', '*', '\t', 'é') });
const lines = fc.array(text, { maxLength: 8 });

describe('splitLines', () => {
  it('round-trips lines joined with \\n or \\r\\n, terminated or not', () => {
    fc.assert(
      fc.property(lines, fc.boolean(), fc.boolean(), (ls, crlf, terminated) => {
        const eol = crlf ? '\r\n' : '\n';
        const t = ls.join(eol) + (terminated && ls.length > 0 ? eol : '');
        // an unterminated text cannot end in an empty line (`a\n` is one terminated line)
        const want = !terminated && ls[ls.length - 1] === '' ? ls.slice(0, -1) : ls;
        expect(splitLines(t)).toEqual(want);
        expect(countTextLines(t)).toBe(t.split('\n').length - (t.endsWith('\n') || t === '' ? 1 : 0));
      }),
    );
    expect(splitLines('')).toEqual([]);
    expect(splitLines('\n')).toEqual(['']);
  });
});

describe('apply_patch', () => {
  it('Add, Update with Move to, Delete, End of File, a heredoc around it, no End Patch', () => {
    const patch = [
      "apply_patch <<'EOF'",
      '*** Begin Patch',
      '*** Add File: src/new.ts',
      '+export const a = 1;',
      '+',
      '*** Update File: src/old.ts',
      '*** Move to: src/renamed.ts',
      '@@ function f() {',
      ' keep',
      '-  return 1;',
      '+  return 2;',
      '*** End of File',
      '*** Delete File: gone.txt',
      '*** Update File: b.txt',
      '@@',
      '-x',
      '+y',
    ].join('\n');
    expect(parseApplyPatch(patch)).toEqual([
      { op: 'add', path: 'src/new.ts', added: ['export const a = 1;', ''], removed: [] },
      { op: 'update', path: 'src/old.ts', moveTo: 'src/renamed.ts', added: ['  return 2;'], removed: ['  return 1;'] },
      { op: 'delete', path: 'gone.txt', added: [], removed: [] },
      { op: 'update', path: 'b.txt', added: ['y'], removed: ['x'] },
    ]);
    expect(parseApplyPatch('no patch here\n+x')).toEqual([]);
    expect(parseApplyPatch('*** Begin Patch\n*** Add File: \n+x\n*** End Patch')).toEqual([]);
  });

  it('round-trips generated patches', () => {
    const file = fc.record({ op: fc.constantFrom('add' as const, 'update' as const, 'delete' as const), path: fc.stringMatching(/^[a-z]{1,8}(\/[a-z]{1,8}){0,2}\.[a-z]{1,3}$/), added: lines, removed: lines });
    fc.assert(
      fc.property(fc.array(file, { maxLength: 5 }), (files) => {
        const want = files.map((f) => (f.op === 'delete' ? { ...f, added: [], removed: [] } : f.op === 'add' ? { ...f, removed: [] } : f));
        const body = want.flatMap((f) => {
          if (f.op === 'delete') return [`*** Delete File: ${f.path}`];
          if (f.op === 'add') return [`*** Add File: ${f.path}`, ...f.added.map((l) => '+' + l)];
          return [`*** Update File: ${f.path}`, '@@', ...f.removed.map((l) => '-' + l), ...f.added.map((l) => '+' + l)];
        });
        // a line such as `*** End Patch` inside a file would end the patch: generated lines never are one
        fc.pre(!body.some((l, i) => i > 0 && /^.\*\*\* End Patch\s*$/.test(l)));
        expect(parseApplyPatch(['*** Begin Patch', ...body, '*** End Patch', ''].join('\n'))).toEqual(want);
      }),
    );
  });
});

describe('unified diffs', () => {
  it('reads complete diffs (git, Gemini, Codex) and refuses cut ones', () => {
    const gemini = 'Index: b.go\n===================================================================\n--- b.go\tCurrent\n+++ b.go\tProposed\n@@ -1,3 +1,3 @@\n package main\n \n-func B() int { return 1 }\n+func B() int { return 2 }\n';
    expect(parseUnifiedDiff(gemini)).toEqual({ added: ['func B() int { return 2 }'], removed: ['func B() int { return 1 }'] });
    expect(parseUnifiedDiff('@@ -3 +3,3 @@\n A demo repo.\n+\n+See hello.txt.\n')).toEqual({ added: ['', 'See hello.txt.'], removed: [] });
    expect(parseUnifiedDiff('@@ -0,0 +1,2 @@\n+a\n+b\n\\ No newline at end of file\n')).toEqual({ added: ['a', 'b'], removed: [] });
    // the captures' trimmed `…[+N chars]` diffs, and a hunk short of its count
    expect(parseUnifiedDiff('\ndiff --git a/tmp/ra/cp1/repo/hello.txt b/tmp/ra/cp1/repo/hello.txt\ncr…[+121 chars]')).toBeUndefined();
    expect(parseUnifiedDiff('@@ -1,2 +1,2 @@\n a\n-b\n')).toBeUndefined();
    expect(parseUnifiedDiff('@@ -1,1 +1,1 @@\n-a\n+b\n+c\n')).toBeUndefined();
    expect(parseUnifiedDiff('no diff')).toBeUndefined();
  });

  it('a generated hunk reads back; any cut of its body is refused', () => {
    const row = fc.tuple(fc.constantFrom(' ', '+', '-'), text);
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 12 }), fc.nat(), (rows, cutAt) => {
        const oldN = rows.filter(([c]) => c !== '+').length;
        const newN = rows.filter(([c]) => c !== '-').length;
        const body = rows.map(([c, t]) => c + t);
        const diff = `--- a/x\n+++ b/x\n@@ -1,${oldN} +1,${newN} @@\n${body.join('\n')}\n`;
        expect(parseUnifiedDiff(diff)).toEqual({ added: rows.filter(([c]) => c === '+').map(([, t]) => t), removed: rows.filter(([c]) => c === '-').map(([, t]) => t) });
        const keep = cutAt % rows.length; // at least one body line missing
        const cut = body.slice(0, keep);
        expect(parseUnifiedDiff(`@@ -1,${oldN} +1,${newN} @@\n${cut.map((l) => l + '\n').join('')}`)).toBeUndefined();
      }),
    );
  });

  it("hunk lists (a tool result's structured patch)", () => {
    expect(hunkListLines([{ oldStart: 1, oldLines: 1, newStart: 1, newLines: 3, lines: [' hello', '+', '+See a.go for the greeting.'] }])).toEqual({ added: ['', 'See a.go for the greeting.'], removed: [] });
    expect(hunkListLines([])).toBeUndefined();
    expect(hunkListLines([{ lines: [1] }])).toBeUndefined();
    expect(hunkListLines('x')).toBeUndefined();
  });
});

describe('repo-relative paths', () => {
  const paths = new RepoPaths('/work/repo', ['/old/place/repo']);

  it('maps the roots, a cwd, and relative paths; refuses everything outside', () => {
    expect(paths.relative('/work/repo/src/a.ts')).toBe('src/a.ts');
    expect(paths.relative('/old/place/repo/src/a.ts')).toBe('src/a.ts');
    expect(paths.relative('a.ts', '/work/repo/sub')).toBe('sub/a.ts');
    expect(paths.relative('./x/../b.ts')).toBe('b.ts');
    expect(paths.relative('file:///work/repo/c.ts')).toBe('c.ts');
    for (const bad of ['/work/repository/a', '/work/repo', '/work/repo/', '/work/repo/../x', '../x', 'a/../../x', '/etc/passwd', '.git/config', '/work/repo/.git/HEAD', 'a\0b', '', '.', 7, null]) {
      expect(paths.relative(bad), String(bad)).toBeUndefined();
    }
    expect(paths.relative('a.ts', '/elsewhere')).toBeUndefined();
    expect(paths.relative('../../x', '/work/repo/sub')).toBeUndefined();
  });

  it('a recorded root is tried after the given ones (a subdirectory never shortens a path)', () => {
    const p = new RepoPaths('/work/repo');
    p.addRoot('/work/repo/sub');
    expect(p.relative('/work/repo/sub/a.ts')).toBe('sub/a.ts');
    p.addRoot('/moved/sub');
    expect(p.relative('/moved/sub/a.ts')).toBe('a.ts');
  });

  it('never escapes: any result is relative, normalized, with no `..` and outside .git', () => {
    const seg = fc.constantFrom('..', '.', '', 'a', 'b.ts', '.git', 'work', 'repo', '\\..', '..\\');
    const anyPath = fc.tuple(fc.boolean(), fc.array(seg, { maxLength: 8 })).map(([abs, s]) => (abs ? '/' : '') + s.join('/'));
    fc.assert(
      fc.property(anyPath, fc.option(anyPath, { nil: undefined }), (raw, cwd) => {
        const r = paths.relative(raw, cwd);
        if (r === undefined) return;
        expect(r.startsWith('/')).toBe(false);
        expect(r.split('/')).not.toContain('..');
        expect(r.split('/')).not.toContain('.');
        expect(r.split('/')).not.toContain('');
        expect(r.split('/')[0]).not.toBe('.git');
      }),
    );
  });
});
