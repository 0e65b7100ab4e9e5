#!/usr/bin/env node
// `npm run arch`: the structure figures of src/ (issue 26) — runtime import edges between its
// top-level directories (loose files = "root"; type-only imports left out), the cycles between
// directories, and the largest and most branching functions. `--json` prints them as JSON;
// `--edges` also lists every directory edge with how many imports make it.
import { analyzeSrc, directoryEdges, cycles } from './arch-graph.mjs';

const args = new Set(process.argv.slice(2));
const TOP = 15;

const { files, edges, functions } = analyzeSrc();
const dirs = [...new Set(files.map((f) => (f.includes('/') ? f.slice(0, f.indexOf('/')) : 'root')))].sort();
const runtime = directoryEdges(edges);
const all = directoryEdges(edges, () => true);
const runtimeCycles = cycles(dirs, runtime.keys());
const allCycles = cycles(dirs, all.keys());
const edgesInCycle = (comp) => [...runtime.keys()].filter((k) => k.split('→').every((d) => comp.includes(d))).length;
const byLines = [...functions].sort((a, b) => b.lines - a.lines || b.complexity - a.complexity).slice(0, TOP);
const byComplexity = [...functions].sort((a, b) => b.complexity - a.complexity || b.lines - a.lines).slice(0, TOP);

const report = {
  files: files.length,
  directories: dirs,
  importStatements: { runtime: edges.filter((e) => !e.typeOnly).length, typeOnly: edges.filter((e) => e.typeOnly).length },
  directoryEdges: { runtime: runtime.size, includingTypeOnly: all.size },
  runtimeCycles: runtimeCycles.map((c) => ({ directories: c, edges: edgesInCycle(c) })),
  cyclesIncludingTypeOnly: allCycles,
  largestFunctions: byLines,
  mostComplexFunctions: byComplexity,
};

if (args.has('--json')) {
  console.log(JSON.stringify(report, null, 2));
} else {
  const fn = (f) => `${String(f.lines).padStart(5)} lines  cc ${String(f.complexity).padStart(3)}  ${f.name}  (${f.file}:${f.line})`;
  console.log(`src/: ${files.length} files in ${dirs.length} directories (${dirs.join(', ')})`);
  console.log(`imports inside src/: ${report.importStatements.runtime} runtime, ${report.importStatements.typeOnly} type-only`);
  console.log(`directory edges: ${runtime.size} runtime (${all.size} counting type-only imports)`);
  console.log(`cycles between directories (runtime): ${runtimeCycles.length}`);
  for (const c of report.runtimeCycles) console.log(`  ${c.directories.length} directories, ${c.edges} edges among them: ${c.directories.join(', ')}`);
  if (JSON.stringify(allCycles) !== JSON.stringify(runtimeCycles)) {
    console.log('cycles counting type-only imports:');
    for (const c of allCycles) console.log(`  ${c.join(', ')}`);
  }
  console.log(`\n${TOP} largest functions (lines, cyclomatic complexity):`);
  for (const f of byLines) console.log(fn(f));
  console.log(`\n${TOP} most complex functions:`);
  for (const f of byComplexity) console.log(fn(f));
  if (args.has('--edges')) {
    console.log('\ndirectory edges (runtime imports making each):');
    for (const [k, es] of [...runtime].sort((a, b) => a[0].localeCompare(b[0]))) console.log(`  ${k.padEnd(24)} ${es.length}`);
  }
}
