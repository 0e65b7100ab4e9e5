/**
 * The saved state of SPEC-2 §F.4's incremental derivation: where the fold of one transcript
 * stopped (byte offset after a complete line, line count, digests of the transcript's head and
 * of the last line before the offset) and the fold's state there (./derive.ts `FoldState`).
 *
 * It lives in the work tree (`.entire/tmp/context/`), which a cloned repository or another
 * process may have written: `parseCheckpoint` is the one place it is read back, and it checks
 * every field's type and the §F.4 bounds (≤ 3 turns, ≤ 512 pending calls, ≤ 64 failure keys,
 * ≤ 64 items per cache list). Anything else → null, and the caller folds from scratch.
 */
import * as z from 'zod/mini';
import type { FoldState } from './derive.js';
import { lazySchema } from '../agents/kit/hook-input.js';
import { CLI_VERSION } from '../version.js';
import { ENGINE_ID } from '../redact/engine-id.js';

/** Bump when the derivation or an adapter's events change: older states are then refolded. */
const FOLD_VERSION = 1;
/**
 * The build, the fold and the redaction engine the state was derived under: a new redaction
 * engine rewrites the redacted transcript the offsets point into, so its states are refolded.
 */
export const FOLD_ENGINE = `${CLI_VERSION}/fold-${FOLD_VERSION}/${ENGINE_ID}`;

/** A saved state larger than this is not read (the bounds keep real ones far smaller). */
export const MAX_CHECKPOINT_BYTES = 8 * 1024 * 1024;

export interface Checkpoint {
  v: 1;
  engine: string;
  /** What the fold is of: a state is reused only for the same agent, format and repository root. */
  agent: string;
  format: string;
  root: string;
  /** Bytes folded: the transcript's first `offset` bytes, ending with a newline. */
  offset: number;
  /** Lines in those bytes. */
  lines: number;
  /** SHA-256 (hex) of the first ≤ 4 KiB of those bytes, and of their last line (its last ≤ 4 KiB). */
  headHash: string;
  lastLineHash: string;
  state: FoldState;
}

const schema = lazySchema(() => {
  const str = z.string();
  const nat = z.number().check(z.int(), z.nonnegative());
  const opt = <T extends z.ZodMiniType>(t: T) => z.optional(t);
  const kind = z.enum(['edit', 'shell', 'todo', 'task', 'question', 'plan', 'other']);
  const turn = z.object({
    index: nat,
    prompt: str,
    edits: z.array(str),
    commands: nat,
    lastCommand: opt(z.object({ key: str, ok: z.boolean() })),
    committed: z.boolean(),
    pushed: z.boolean(),
    rejected: z.array(str),
    lastReply: str,
    activity: z.boolean(),
  });
  const item = z.object({ text: str, prio: z.number().check(z.int()), seq: nat, count: nat });
  const cacheList = z.array(z.tuple([str, item])).check(z.maxLength(64));
  const state = z.object({
    seq: nat,
    goal: str,
    currentAsk: str,
    turnCount: nat,
    turns: z.array(turn).check(z.maxLength(3)),
    lastActive: z.nullable(z.union([nat, turn])),
    todos: z.nullable(z.array(z.object({ text: str, status: z.enum(['pending', 'in_progress', 'completed']) }))),
    files: z.array(z.tuple([str, nat])),
    pending: z.array(z.object({ id: str, kind, name: str, paths: opt(z.array(str)), command: opt(str), text: opt(str) })).check(z.maxLength(512)),
    failures: z
      .array(z.object({ key: str, category: z.nullable(str), count: nat, error: str, turn: nat, seq: nat, open: z.boolean(), resolvedVia: opt(str) }))
      .check(z.maxLength(64)),
    awaiting: z.nullable(z.object({ what: str, feedback: str, interrupt: z.boolean() })),
    rejectedPlan: z.nullable(z.object({ text: str, feedback: str })),
    compactionNext: str,
    finalText: str,
    lastAssistant: str,
    afterStop: z.boolean(),
    edits: z.array(z.tuple([str, z.array(z.tuple([str, str])).check(z.maxLength(16))])).check(z.maxLength(256)),
    activity: z.boolean(),
    constraints: cacheList,
    decisions: cacheList,
    failed: cacheList,
  });
  const hex = z.string().check(z.regex(/^[0-9a-f]{64}$/));
  return z.object({
    v: z.literal(1),
    engine: str,
    agent: str,
    format: str,
    root: str,
    offset: z.number().check(z.int(), z.positive()),
    lines: z.number().check(z.int(), z.positive()),
    headHash: hex,
    lastLineHash: hex,
    state,
  });
});

/** The saved checkpoint, or null when it is not one this build wrote (then: fold from scratch). */
export function parseCheckpoint(text: string): Checkpoint | null {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null;
  }
  const r = schema().safeParse(raw);
  if (!r.success || r.data.engine !== FOLD_ENGINE) return null;
  const state = r.data.state;
  // keys must be unique, as in the maps the fold rebuilds from them
  const unique = (keys: string[]) => new Set(keys).size === keys.length;
  const lists = [state.failures.map((f) => f.key), state.pending.map((c) => c.id), state.files.map((f) => f[0]), state.edits.map((e) => e[0])];
  for (const l of [state.constraints, state.decisions, state.failed]) lists.push(l.map((e) => e[0]));
  if (!lists.every(unique)) return null;
  return r.data as Checkpoint;
}
