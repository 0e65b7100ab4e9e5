/**
 * SPEC-2 §A.7: the only tree layout accepted from `entire/checkpoints/v1`
 * data we did not write ourselves (a teammate's pushed checkpoints, fetched
 * refs, merged remote trees) — and checked by every reader too, since the
 * local branch may hold such data after a fast-forward:
 *
 *   <2 hex>/                         shard            tree 040000
 *     <10 hex>/                      checkpoint       tree 040000
 *       metadata.json                                 blob 100644
 *       0 … 9999/                    session slot     tree 040000
 *         metadata.json, full.jsonl, full.jsonl.<digits>, full.log,
 *         content_hash.txt, prompt.txt, context.md, summary.txt   blobs 100644
 *         tasks/<agent id>/<plain name>               (Go's task dirs)
 *       (legacy §2.10: a checkpoint dir holding one session's files directly)
 *
 * Anything else — symlinks, gitlinks, executables, `..`, other names — is
 * dropped (and logged by the caller), so it is never read, committed or
 * pushed on.
 */
import { isAgentId } from '../trust/ids.js';
import { isLowerHex } from '../hex.js';
import { isTreeMode } from '../git/tree-format.js';
import { chunkIndexOf } from './chunks.js';

export type Level = 'root' | 'shard' | 'checkpoint' | 'slot' | 'tasks' | 'task';

const BLOB = '100644';

/** File names a session slot (and a legacy checkpoint dir) may hold. */
export function isSlotFileName(name: string): boolean {
  switch (name) {
    case 'metadata.json':
    case 'full.jsonl':
    case 'full.log':
    case 'content_hash.txt':
    case 'prompt.txt':
    case 'context.md':
    case 'summary.txt':
      return true;
  }
  return chunkIndexOf(name) !== null;
}

/** Slot directory names: `0` … `9999`, no leading zeros. */
export function isSlotName(name: string): boolean {
  return /^(?:0|[1-9]\d{0,3})$/.test(name);
}

function isTaskFileName(name: string): boolean {
  return /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/.test(name);
}

/**
 * Whether an entry named `name` with `mode` may stand at `level`; for a tree,
 * the level of its children. `null`: drop it.
 */
export function acceptEntry(level: Level, name: string, mode: string): { child: Level | null } | null {
  const tree = isTreeMode(mode);
  if (!tree && mode !== BLOB) return null;
  switch (level) {
    case 'root':
      return tree && name.length === 2 && isLowerHex(name) ? { child: 'shard' } : null;
    case 'shard':
      return tree && name.length === 10 && isLowerHex(name) ? { child: 'checkpoint' } : null;
    case 'checkpoint':
      if (tree) return isSlotName(name) ? { child: 'slot' } : null;
      return isSlotFileName(name) ? { child: null } : null;
    case 'slot':
      if (tree) return name === 'tasks' ? { child: 'tasks' } : null;
      return isSlotFileName(name) ? { child: null } : null;
    case 'tasks':
      return tree && isAgentId(name) ? { child: 'task' } : null;
    case 'task':
      return !tree && isTaskFileName(name) ? { child: null } : null;
  }
}

/** `entries` without the ones `level` does not accept (trees and blobs alike). */
export function acceptedEntries<E extends { name: string; mode: string }>(level: Level, entries: readonly E[]): { kept: E[]; dropped: E[] } {
  const kept: E[] = [];
  const dropped: E[] = [];
  for (const e of entries) (acceptEntry(level, e.name, e.mode) ? kept : dropped).push(e);
  return { kept, dropped };
}

/** Untrusted JSON nesting cap (SPEC-2 §A.6): deeper values become `…`. */
export const MAX_JSON_DEPTH = 256;

/** `v` with anything nested deeper than `max` replaced by the string `…`. */
export function limitDepth(v: unknown, max = MAX_JSON_DEPTH): unknown {
  const walk = (x: unknown, depth: number): unknown => {
    if (x === null || typeof x !== 'object') return x;
    if (depth >= max) return '…';
    if (Array.isArray(x)) return x.map((y) => walk(y, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [k, y] of Object.entries(x as Record<string, unknown>)) out[k] = walk(y, depth + 1);
    return out;
  };
  return walk(v, 0);
}

/** Whether `v` nests deeper than `max` (cheap pre-check, iterative). */
export function deeperThan(v: unknown, max = MAX_JSON_DEPTH): boolean {
  const stack: [unknown, number][] = [[v, 0]];
  while (stack.length > 0) {
    const [x, d] = stack.pop()!;
    if (x === null || typeof x !== 'object') continue;
    if (d >= max) return true;
    for (const y of Array.isArray(x) ? x : Object.values(x as Record<string, unknown>)) stack.push([y, d + 1]);
  }
  return false;
}
