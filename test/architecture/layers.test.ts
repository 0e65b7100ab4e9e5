/**
 * SPEC-3 §F.1 (issue 26): src/ is a layer stack whose direction this test enforces.
 *
 *   cli → commands → flows → {sync, store, install, agents} → {model, redact, git} → {trust, platform}
 *
 * - a runtime import may point to its own layer or any lower one, never up;
 * - a type-only import (`import type`, `import { type A }`, `import('…').T`) may point anywhere
 *   at or below its layer (SPEC-3 wants these to reach a lower layer's `types` module); up is a violation too;
 * - no cycle between directories (counting type-only imports as well: a type cycle still ties two
 *   directories together and blocks moving one of them).
 *
 * Today's directories do not carry the target names yet, so LAYER_OF maps each of them to the layer
 * it belongs to, and ALLOWED lists today's violating imports one by one (file → file). The test
 * passes today and fails on any new violating import — the same bad kind from another file, too,
 * since entries name files, not directories — on a new cycle, and on an entry that no longer
 * exists (delete the line: the list only shrinks). `npm run arch` prints the figures.
 */
import { describe, expect, it } from 'vitest';
import { analyzeSrc, cycles, type ImportEdge } from '../../scripts/arch-graph.mjs';

/** 0 is the top. */
const LAYERS = ['cli', 'commands', 'flows', 'sync|store|install|agents', 'model|redact|git', 'trust|platform'] as const;
type Layer = (typeof LAYERS)[number];

/**
 * Each directory of src/ → its target layer. A new top-level directory fails the test until it is
 * placed here.
 */
const LAYER_OF: Record<string, Layer> = {
  cli: 'cli',
  commands: 'commands',
  // strategy/ holds the hook flows (turn, prepare-commit-msg, post-commit, finalize…): it becomes flows/.
  strategy: 'flows',
  // context/ derives context.md from the adapters' normalized events and reads stored layers back
  // (stored.ts reads the store, incremental.ts drives an adapter): it composes agents and store, and
  // only commands and flows use it, so it sits with the flows. Its pure half (derive, render, text,
  // shell) can go down to model once the event types (agents/types.ts) live there.
  context: 'flows',
  sync: 'sync|store|install|agents',
  store: 'sync|store|install|agents',
  install: 'sync|store|install|agents',
  agents: 'sync|store|install|agents',
  // session/ is a store: state files, locks, the index (its phase machine and state schema are pure
  // and go down to model when the directory is split).
  session: 'sync|store|install|agents',
  // links/ is the notes index (refs/notes/entire): reads and CAS writes of a git-backed store.
  links: 'sync|store|install|agents',
  // checkpoint/ holds the pure codecs (ids, trailers, metadata.json, chunking): the model.
  checkpoint: 'model|redact|git',
  // provenance/ holds B.2's pure line matching (edit distance, hunk matching): no I/O, the model.
  provenance: 'model|redact|git',
  redact: 'model|redact|git',
  git: 'model|redact|git',
  // settings/ is the settings files' schema and reader: configuration, read by every layer above;
  // it needs only checkpoint's JSON encoder, trust and platform, so it sits with the model.
  settings: 'model|redact|git',
  trust: 'trust|platform',
  // the loose files of src/ (errors, log, builtins, fs helpers, timing, version…) are the platform.
  root: 'trust|platform',
};

/**
 * Today's violating imports, `from -> to` (src-relative). `(type)` allows only a type-only import of
 * that pair: a runtime import of the same pair still fails. Remove an entry when its import goes.
 */
const ALLOWED: readonly string[] = [
  // --- runtime imports that point up ---
  // install → cli/commands: enable prints through cli's error formatter and asks through commands' confirm
  'install/enable.ts -> cli/output.ts',
  'install/enable.ts -> commands/common.ts',

  // --- type-only imports that point up ---
  // HookContext lives in strategy/context.ts (flows); the stores below take it as a parameter type
  'links/note-writer.ts -> strategy/context.ts (type)',
  'links/squash.ts -> strategy/context.ts (type)',
  'sync/merge-into.ts -> strategy/context.ts (type)',
  'sync/notes-push.ts -> strategy/context.ts (type)',
  'sync/push.ts -> strategy/context.ts (type)',
  'sync/sync-refs.ts -> strategy/context.ts (type)',
  'sync/target.ts -> strategy/context.ts (type)',
  // the committed store stores context.md layers, whose type lives in context/ (flows)
  'store/committed.ts -> context/layers.ts (type)',

  // --- same-layer imports that close a cycle between directories (the direction judged wrong) ---
  // store ↔ sync: sync builds on the store; the store reaches back for merge's extends check and the
  // checkpoint-remote setting
  'store/committed.ts -> sync/merge.ts',
  'store/sources.ts -> sync/checkpoint-remote.ts',
  // the routing store's on-demand fetch (SPEC-3 §A.4) asks sync for the checkpoint remote and install
  // for the remote list (move both settings readers down to store/ or git/)
  'store/routing.ts -> sync/checkpoint-remote.ts',
  'store/routing.ts -> install/fetch-refspecs.ts',
  // install ↔ sync: install configures sync's checkpoint remote; sync's status reads install's remote list
  'sync/state.ts -> install/fetch-refspecs.ts',
  // trust ↔ platform: trust uses the platform's errors, ids and readers; the log and stderr reach
  // up into trust's confined writer and terminal sanitizer
  'log.ts -> trust/confined.ts',
  'stderr.ts -> trust/terminal.ts',
];

type Verdict = {
  unmapped: string[];
  upward: string[];
  cycles: string[][];
  stale: string[];
};

const rank = (dir: string): number => LAYERS.indexOf(LAYER_OF[dir] as Layer);
const entry = (e: ImportEdge, asType: boolean): string => `${e.from} -> ${e.to}${asType ? ' (type)' : ''}`;

/** An import is allowed when its exact pair is listed (a type-only import also by a runtime entry). */
function allowedBy(e: ImportEdge, allow: ReadonlySet<string>): string | undefined {
  if (allow.has(entry(e, false))) return entry(e, false);
  if (e.typeOnly && allow.has(entry(e, true))) return entry(e, true);
  return undefined;
}

/** Checks the rules over `edges` (a parameter, so that the self-test below can plant imports). */
function judge(files: string[], edges: ImportEdge[], allowList: readonly string[]): Verdict {
  const allow = new Set(allowList);
  const used = new Set<string>();
  const dirs = new Set(files.map((f) => (f.includes('/') ? f.slice(0, f.indexOf('/')) : 'root')));
  const unmapped = [...dirs].filter((d) => !(d in LAYER_OF)).sort();
  const upward: string[] = [];
  const kept = new Set<string>();
  for (const e of edges) {
    if (e.fromDir === e.toDir) continue;
    const ok = allowedBy(e, allow);
    if (ok) {
      used.add(ok);
      continue;
    }
    if (rank(e.toDir) < rank(e.fromDir)) upward.push(`${entry(e, e.typeOnly)}   [${LAYER_OF[e.fromDir]} → ${LAYER_OF[e.toDir]}]`);
    kept.add(`${e.fromDir}→${e.toDir}`);
  }
  const stale = allowList.filter((a) => !used.has(a));
  return { unmapped, upward, cycles: cycles([...dirs], kept), stale };
}

describe('src/ layers (SPEC-3 §F.1)', () => {
  const { files, edges } = analyzeSrc();
  const verdict = judge(files, edges, ALLOWED);

  it('places every directory of src/ in a layer', () => {
    expect(verdict.unmapped, 'add each new directory to LAYER_OF with a line saying why').toEqual([]);
  });

  it('has no import pointing to a higher layer beyond the listed ones', () => {
    expect(verdict.upward, 'import from the same or a lower layer (or move the code down)').toEqual([]);
  });

  it('has no cycle between directories beyond the listed imports', () => {
    expect(verdict.cycles, 'these directories import each other (counting type-only imports)').toEqual([]);
  });

  it('lists no import that is gone (the allowlist only shrinks)', () => {
    expect(verdict.stale, 'delete these entries from ALLOWED').toEqual([]);
  });

  it('reads src/ at all (the graph is not empty)', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(edges.filter((e) => e.typeOnly).length).toBeGreaterThan(0);
    expect(edges.filter((e) => !e.typeOnly).length).toBeGreaterThan(500);
  });
});

describe('the layer check catches planted imports', () => {
  const { files, edges } = analyzeSrc();
  const plant = (from: string, to: string, typeOnly = false): ImportEdge => ({
    from,
    to,
    fromDir: from.includes('/') ? from.slice(0, from.indexOf('/')) : 'root',
    toDir: to.includes('/') ? to.slice(0, to.indexOf('/')) : 'root',
    typeOnly,
    kind: 'static',
  });

  it('an upward runtime import', () => {
    const v = judge(files, [...edges, plant('git/refs.ts', 'strategy/turn.ts')], ALLOWED);
    expect(v.upward.join('\n')).toContain('git/refs.ts -> strategy/turn.ts');
  });

  it('an allowlisted bad import made from another file', () => {
    const v = judge(files, [...edges, plant('install/disable.ts', 'commands/common.ts')], ALLOWED);
    expect(v.upward.join('\n')).toContain('install/disable.ts -> commands/common.ts');
  });

  it('a runtime import of a pair allowed only as a type', () => {
    const v = judge(files, [...edges, plant('sync/push.ts', 'strategy/context.ts')], ALLOWED);
    expect(v.upward.join('\n')).toContain('sync/push.ts -> strategy/context.ts');
  });

  it('an upward type-only import', () => {
    const v = judge(files, [...edges, plant('git/refs.ts', 'session/state.ts', true)], ALLOWED);
    expect(v.upward.join('\n')).toContain('git/refs.ts -> session/state.ts (type)');
  });

  it('a new cycle inside one layer', () => {
    // agents → session would close a loop with session/prune.ts → agents/registry.ts
    const v = judge(files, [...edges, plant('agents/registry.ts', 'session/state.ts')], ALLOWED);
    expect(v.upward.join('\n')).not.toContain('agents/registry.ts'); // same layer: not an upward import
    expect(v.cycles).toContainEqual(['agents', 'session']);
  });

  it('an entry whose import is gone', () => {
    const v = judge(files, edges, [...ALLOWED, 'git/refs.ts -> log.ts']);
    expect(v.stale).toEqual(['git/refs.ts -> log.ts']);
  });
});
