// The import graph of src/ and the size and branching of its functions, read with the TypeScript
// compiler's parser (syntax only: no type checker, so it takes about a second). Shared by
// `npm run arch` (scripts/arch-report.mjs, the figures) and test/architecture/layers.test.ts (the rules).
//
// An import is *type-only* when nothing of it exists at run time: `import type …`,
// `import { type A, type B }` (every named specifier a type, no default), `export type … from`,
// `export { type A } from` (likewise), and `import('…').T` in a type position. Everything else is
// a runtime edge: value imports, side-effect imports, `export * from`, and dynamic `import()` calls
// (loaded later, but still a dependency of the module that calls it).
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join, relative, dirname, resolve, sep } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const ts = require('typescript');

export const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Loose files directly in src/ count as one pseudo-directory. */
export const ROOT_DIR = 'root';

function listTs(dir) {
  const out = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...listTs(p));
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out.sort();
}

/** The top-level directory of a src-relative path (`git/refs.ts` → `git`, `log.ts` → `root`). */
export function topDir(srcRel) {
  const i = srcRel.indexOf('/');
  return i < 0 ? ROOT_DIR : srcRel.slice(0, i);
}

function resolveSpecifier(fromAbs, spec) {
  if (!spec.startsWith('.')) return null; // node: built-ins and packages
  const base = resolve(dirname(fromAbs), spec);
  for (const c of [base.replace(/\.js$/, '.ts'), base + '.ts', join(base, 'index.ts'), base]) {
    if (c.endsWith('.ts') && existsSync(c)) return c;
  }
  return null;
}

function allSpecifiersAreTypes(elements) {
  return elements.length > 0 && elements.every((e) => e.isTypeOnly);
}

/** The import edges of one source text: `{ spec, typeOnly, kind }`, kind ∈ static | reexport | dynamic | typeref. */
export function importsOf(fileName, text) {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const out = [];
  const visit = (node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const c = node.importClause;
      let typeOnly = false;
      if (c) {
        if (c.isTypeOnly) typeOnly = true;
        else if (!c.name && c.namedBindings && ts.isNamedImports(c.namedBindings)) {
          typeOnly = allSpecifiersAreTypes(c.namedBindings.elements);
        }
      }
      out.push({ spec: node.moduleSpecifier.text, typeOnly, kind: 'static' });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      let typeOnly = node.isTypeOnly;
      if (!typeOnly && node.exportClause && ts.isNamedExports(node.exportClause)) {
        typeOnly = allSpecifiersAreTypes(node.exportClause.elements);
      }
      out.push({ spec: node.moduleSpecifier.text, typeOnly, kind: 'reexport' });
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      out.push({ spec: node.arguments[0].text, typeOnly: false, kind: 'dynamic' });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      out.push({ spec: node.argument.literal.text, typeOnly: true, kind: 'typeref' });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return { sourceFile: sf, imports: out };
}

function functionName(node) {
  if (node.name && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name) || ts.isPrivateIdentifier(node.name))) {
    const own = node.name.text;
    const cls = node.parent && ts.isClassLike(node.parent) && node.parent.name ? node.parent.name.text + '.' : '';
    return cls + own;
  }
  if (ts.isConstructorDeclaration(node)) return (node.parent.name ? node.parent.name.text : '<class>') + '.constructor';
  const p = node.parent;
  if (p && ts.isVariableDeclaration(p) && ts.isIdentifier(p.name)) return p.name.text;
  if (p && ts.isPropertyAssignment(p) && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name))) return p.name.text;
  if (p && ts.isPropertyDeclaration(p) && ts.isIdentifier(p.name)) return p.name.text;
  return '<anonymous>';
}

function isFunctionLike(node) {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  );
}

const BRANCHING_OPERATORS = new Set([
  ts.SyntaxKind.AmpersandAmpersandToken,
  ts.SyntaxKind.BarBarToken,
  ts.SyntaxKind.QuestionQuestionToken,
  ts.SyntaxKind.AmpersandAmpersandEqualsToken,
  ts.SyntaxKind.BarBarEqualsToken,
  ts.SyntaxKind.QuestionQuestionEqualsToken,
]);

/**
 * Cyclomatic complexity of one function body, the way ESLint's `complexity` rule counts it:
 * 1 + if, ?:, each non-default case, each loop, catch, &&, ||, ?? (and their assignments),
 * and each default parameter value. Nested functions are counted on their own, not here.
 */
function complexityOf(fn) {
  let n = 1;
  for (const p of fn.parameters) if (p.initializer) n++;
  const visit = (node) => {
    if (node !== fn && isFunctionLike(node)) return;
    switch (node.kind) {
      case ts.SyntaxKind.IfStatement:
      case ts.SyntaxKind.ConditionalExpression:
      case ts.SyntaxKind.ForStatement:
      case ts.SyntaxKind.ForInStatement:
      case ts.SyntaxKind.ForOfStatement:
      case ts.SyntaxKind.WhileStatement:
      case ts.SyntaxKind.DoStatement:
      case ts.SyntaxKind.CatchClause:
      case ts.SyntaxKind.CaseClause:
        n++;
        break;
      case ts.SyntaxKind.BinaryExpression:
        if (BRANCHING_OPERATORS.has(node.operatorToken.kind)) n++;
        break;
    }
    ts.forEachChild(node, visit);
  };
  if (fn.body) ts.forEachChild(fn.body, visit);
  return n;
}

function functionsOf(sf, srcRel) {
  const out = [];
  const visit = (node) => {
    if (isFunctionLike(node) && node.body) {
      const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
      const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
      out.push({ file: srcRel, name: functionName(node), line: start, lines: end - start + 1, complexity: complexityOf(node) });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/**
 * The whole of src/: `files` (src-relative paths), `edges` (one per import statement that resolves
 * to a file of src/: `{ from, to, fromDir, toDir, typeOnly, kind }`, paths src-relative with `/`),
 * and `functions` (`{ file, name, line, lines, complexity }`).
 */
export function analyzeSrc(root = PROJECT_ROOT) {
  const src = join(root, 'src');
  const rel = (abs) => relative(src, abs).split(sep).join('/');
  const files = listTs(src);
  const edges = [];
  const functions = [];
  for (const abs of files) {
    const from = rel(abs);
    const { sourceFile, imports } = importsOf(abs, readFileSync(abs, 'utf8'));
    for (const imp of imports) {
      const target = resolveSpecifier(abs, imp.spec);
      if (!target) continue;
      const to = rel(target);
      edges.push({ from, to, fromDir: topDir(from), toDir: topDir(to), typeOnly: imp.typeOnly, kind: imp.kind });
    }
    functions.push(...functionsOf(sourceFile, from));
  }
  return { files: files.map(rel), edges, functions };
}

/** Directory edges `Map<"a→b", fileEdges[]>` between different directories, of the edges `keep` selects. */
export function directoryEdges(edges, keep = (e) => !e.typeOnly) {
  const m = new Map();
  for (const e of edges) {
    if (e.fromDir === e.toDir || !keep(e)) continue;
    const k = `${e.fromDir}→${e.toDir}`;
    if (!m.has(k)) m.set(k, []);
    m.get(k).push(e);
  }
  return m;
}

/** Strongly connected components with more than one node (Tarjan), each sorted, largest first. */
export function cycles(nodes, dirEdgeKeys) {
  const adj = new Map(nodes.map((n) => [n, []]));
  for (const k of dirEdgeKeys) {
    const [a, b] = k.split('→');
    if (!adj.has(a)) adj.set(a, []);
    if (!adj.has(b)) adj.set(b, []);
    adj.get(a).push(b);
  }
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const stack = [];
  const on = new Set();
  const out = [];
  const strong = (v) => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    on.add(v);
    for (const w of adj.get(v)) {
      if (!idx.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const comp = [];
      let w;
      do {
        w = stack.pop();
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1) out.push(comp.sort());
    }
  };
  for (const v of adj.keys()) if (!idx.has(v)) strong(v);
  return out.sort((a, b) => b.length - a.length || a[0].localeCompare(b[0]));
}
