#!/usr/bin/env node
// Bundle src/cli/main.ts into one CJS file (SPEC §10): start-up cost is one
// file read plus a V8 code-cache hit, instead of resolving hundreds of modules.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { readFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
let commit = 'unknown';
try {
  commit = execFileSync('git', ['rev-parse', '--short=7', 'HEAD'], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] })
    .toString()
    .trim();
} catch {
  /* not a checkout */
}

mkdirSync(join(root, 'dist'), { recursive: true });
const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  // whitespace and syntax only: start-up reads the whole file; names stay readable in logs
  minifySyntax: true,
  minifyWhitespace: true,
  legalComments: 'none',
  // ASCII only: one byte per character, so the source's length is its size (and any decoding reads it exactly)
  charset: 'ascii',
  sourcemap: false,
  logLevel: 'warning',
  define: {
    __ENTIRE_VERSION__: JSON.stringify(pkg.version),
    __ENTIRE_COMMIT__: JSON.stringify(commit),
  },
};
// Two bundles: every command, and the hooks alone. V8 compiles a bundle's
// whole top level at start-up, so hooks (run on every commit and agent turn)
// load one without commander and the commands: about half the code cache.
// The hooks bundle also shortens identifiers (about 1.3 ms per hook measured: less to read, hash
// and deserialize); the commands keep their names for readable stack traces.
// Hooks never look up an agent capability that only commands use (line provenance's
// `EditsReader`, SPEC-3 §B.1): the registry's loaders of those modules resolve to an empty module.
const commandOnlyCapabilities = {
  name: 'command-only-capabilities',
  setup(b) {
    b.onResolve({ filter: /^\.\/[a-z0-9-]+\/edits\.js$/ }, (args) =>
      args.importer.endsWith(join('src', 'agents', 'registry.ts')) ? { path: args.path, namespace: 'command-only' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'command-only' }, () => ({ contents: 'export {};', loader: 'js' }));
  },
};
const outputs = [
  { entry: 'src/cli/main.ts', out: 'dist/entire.cjs', extra: {} },
  { entry: 'src/cli/hooks-main.ts', out: 'dist/hooks.cjs', extra: { minifyIdentifiers: process.env.BUILD_NAMES !== '1', plugins: [commandOnlyCapabilities] } },
];
for (const o of outputs) {
  await build({ ...common, ...o.extra, entryPoints: [join(root, o.entry)], outfile: join(root, o.out) });
}

for (const o of outputs) {
  // bin/entire.cjs runs the bundle through vm.Script, which has no loader for
  // real dynamic imports: every `import()` must have been bundled
  const out = readFileSync(join(root, o.out), 'utf8');
  if (/[^\x00-\x7f]/.test(out)) {
    console.error(`build: ${o.out} must be ASCII`);
    process.exit(1);
  }
  // bin/entire.cjs hands the bundle its own require, which only resolves built-ins
  const external = [...out.matchAll(/\brequire\((["'`])([^"'`]+)\1\)/g)].map((m) => m[2]).filter((id) => !id.startsWith('node:'));
  if (external.length > 0) {
    console.error(`build: ${o.out} requires modules that are not node: built-ins: ${[...new Set(external)].join(', ')}`);
    process.exit(1);
  }
  const stray = out.match(/\bimport\((["'`])(node:)?[a-z_/]+\1\)/g);
  if (stray) {
    console.error(`build: dynamic import of an external module in ${o.out}: ${stray.join(', ')}`);
    process.exit(1);
  }
}
