/**
 * Field tables for JSON records written in the Go tool's style (issue 26, SPEC-3 §F.2): one table
 * per record says, for each key in file order, its JSON type, whether it is always written (with
 * the value a missing or empty one reads as) or omitted when empty (Go's `omitempty`), and how
 * its value is read and written. From the table come the TypeScript type (`Shape`), the shape
 * check and its zod twin, the reader (`decodeRecord`) and the writer (`encodeRecord`), so a field
 * is added in one place. Pure: no I/O.
 */
import * as z from 'zod/mini';
import * as shape from '../shape.js';

// ---------------------------------------------------------------------------
// JSON types

/**
 * A JSON type: the hand-written check hooks run (src/shape.ts, no zod start-up on the hot path)
 * and the zod schema built from the same description, the authority whose issues make the error
 * text (test/session/shape.test.ts checks the two agree).
 */
export interface JsonType {
  readonly check: shape.Check;
  readonly zod: () => z.ZodMiniType;
}

export const json = {
  str: { check: shape.str, zod: () => z.string() } as JsonType,
  /** a safe integer */
  int: { check: shape.int, zod: () => z.int() } as JsonType,
  any: { check: shape.unknown, zod: () => z.unknown() } as JsonType,
  nullish: (t: JsonType): JsonType => ({ check: shape.nullish(t.check), zod: () => z.nullish(t.zod()) }),
  array: (t: JsonType): JsonType => ({ check: shape.arrayOf(t.check), zod: () => z.array(t.zod()) }),
  /** an object used as a map: any keys, each value of type `t` */
  map: (t: JsonType): JsonType => ({ check: shape.recordOf(t.check), zod: () => z.record(z.string(), t.zod()) }),
  /** an object with these fields checked and any other key let through */
  object: (fields: Readonly<Record<string, JsonType>>): JsonType => ({
    check: shape.looseObject(Object.fromEntries(Object.entries(fields).map(([k, t]) => [k, t.check]))),
    zod: () => z.looseObject(Object.fromEntries(Object.entries(fields).map(([k, t]) => [k, t.zod()]))),
  }),
};

type Issues = { issues: ReadonlyArray<{ path: PropertyKey[]; message: string }> };
export type Parsed<T> = { success: true; data: T } | { success: false; error: Issues };

/** `value` checked against `t`: the hand check first, zod only when it fails (for the verdict and the issues). */
export function parseAs<T>(t: JsonType, value: unknown, zodSchema: () => z.ZodMiniType = t.zod): Parsed<T> {
  return shape.parseWith<T>(value, t.check, zodSchema as () => { safeParse(v: unknown): Parsed<T> });
}

/** The first three issues as one line: `path: message; …`. */
export function issuesText(error: Issues): string {
  return error.issues
    .slice(0, 3)
    .map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`)
    .join('; ');
}

// ---------------------------------------------------------------------------
// Fields

/**
 * `always`: written on every encode; a missing, null or empty value reads as `fallback`.
 * `optional`: kept and written only when not empty (Go's `omitempty`).
 * `legacy`: read (for the record's own repairs) and never kept in the value or written again.
 */
export type Mode = 'always' | 'optional' | 'legacy';

/** Where a read is, for warnings and nested error messages. */
export interface ReadContext {
  /** Reports a value dropped as invalid (`what` names it); the caller logs it. */
  warn(what: string): void;
  /** Error-message location of the record being read. */
  readonly path: string;
  /** `path` of a child key (the top record joins with `: `, nested ones with `.`). */
  at(key: string): string;
  /** How many self-checked objects (`object(…)`) enclose this read. */
  readonly depth: number;
  /** The same context one self-checked object deeper, at `path`. */
  nested(path: string): ReadContext;
}

export interface Field<T, M extends Mode = Mode> {
  readonly mode: M;
  /** The JSON type checked by the record's shape check (nullish unless the key is required). */
  readonly type: JsonType;
  /** Go's `omitempty` emptiness; null and undefined are always empty. */
  empty(v: unknown): boolean;
  /** The kept value from a JSON value that passed `type` and is not empty; undefined drops it. */
  decode(v: unknown, cx: ReadContext, key: string): T | undefined;
  /** The JSON value written for a kept value. */
  encode(v: T): unknown;
  readonly fallback?: T;
  /** Kept and written only when this earlier field of the record is. */
  readonly requires?: string;
  /** Written only when this holds (a value set in memory that a reader would drop is not written). */
  readonly writeIf?: (v: unknown) => boolean;
}

// biome-ignore lint/suspicious/noExplicitAny: a table holds fields of every value type
export type AnyField = Field<any, Mode>;
export type Fields = Readonly<Record<string, AnyField>>;

type ValueOf<F> = F extends Field<infer T, Mode> ? T : never;
type KeysIn<F extends Fields, M extends Mode> = { [K in keyof F]: F[K]['mode'] extends M ? K : never }[keyof F];
type Simplify<T> = { [K in keyof T]: T[K] } & {};
/** The in-memory value of a table: `always` fields required, `optional` ones optional, `legacy` ones absent. */
export type Shape<F extends Fields> = Simplify<
  { -readonly [K in KeysIn<F, 'always'>]: ValueOf<F[K]> } & { -readonly [K in KeysIn<F, 'optional'>]?: ValueOf<F[K]> }
>;

const isAbsent = (v: unknown): v is null | undefined => v === undefined || v === null;
const identity = <T>(v: T): T => v;

interface ScalarOptions<T> {
  /** Always written; a missing or empty value reads as this. */
  always?: T;
  /** A JSON value must be present and non-null (no `nullish` in its type). */
  required?: boolean;
  /** Kept only when this holds; dropped with a warning otherwise. */
  valid?: (v: T) => boolean;
  /** Kept only when this holds; dropped silently otherwise. */
  keep?: (v: T) => boolean;
  /** Also written only when `valid` holds. */
  validOnWrite?: boolean;
  /** What a kept value becomes (normalisation). */
  normalize?: (v: T) => T;
  requires?: string;
}

function scalar<T>(base: JsonType, isEmpty: (v: unknown) => boolean, o: ScalarOptions<T>): AnyField {
  const { valid, keep, normalize = identity } = o;
  return {
    mode: o.always === undefined ? 'optional' : 'always',
    type: o.required ? base : json.nullish(base),
    empty: (v) => isAbsent(v) || isEmpty(v),
    decode(v, cx, key) {
      const t = v as T;
      if (keep && !keep(t)) return undefined;
      if (valid && !valid(t)) {
        cx.warn(`${key} ${JSON.stringify(String(v).slice(0, 40))}`);
        return undefined;
      }
      return normalize(t);
    },
    encode: identity,
    ...(o.always === undefined ? {} : { fallback: o.always }),
    ...(o.requires === undefined ? {} : { requires: o.requires }),
    ...(o.validOnWrite && valid ? { writeIf: valid as (v: unknown) => boolean } : {}),
  };
}

/** A string; empty is `""`. */
export function text(o: ScalarOptions<string> & { always: string }): Field<string, 'always'>;
export function text(o?: ScalarOptions<string>): Field<string, 'optional'>;
export function text(o: ScalarOptions<string> = {}): AnyField {
  return scalar<string>(json.str, (v) => v === '', o);
}

/** A safe integer; empty is 0. */
export function int(o: ScalarOptions<number> & { always: number }): Field<number, 'always'>;
export function int(o?: ScalarOptions<number>): Field<number, 'optional'>;
export function int(o: ScalarOptions<number> = {}): AnyField {
  return scalar<number>(json.int, (v) => v === 0, o);
}

/** Any JSON value kept as read (another tool's data); only null is empty. `valid` narrows what is kept. */
export function jsonValue<T = unknown>(o: ScalarOptions<T> = {}): Field<T, 'optional'> {
  return scalar<T>(json.any, () => false, o) as Field<T, 'optional'>;
}

/** A list of strings; empty is `[]`. */
export function texts(o: { always: true }): Field<string[], 'always'>;
export function texts(o?: { always?: false }): Field<string[], 'optional'>;
export function texts(o: { always?: boolean } = {}): AnyField {
  return listField(json.str, (v) => [...(v as string[])], identity, o.always ? [] : undefined);
}

/** A list of JSON values kept as read (another tool's data). */
export function jsonList(): Field<unknown[], 'optional'> {
  return listField(json.any, (v) => [...(v as unknown[])], identity, undefined) as Field<unknown[], 'optional'>;
}

function listField(item: JsonType, decode: AnyField['decode'], encode: AnyField['encode'], fallback: unknown[] | undefined): AnyField {
  return {
    mode: fallback ? 'always' : 'optional',
    type: json.nullish(json.array(item)),
    empty: (v) => isAbsent(v) || (v as unknown[]).length === 0,
    decode,
    encode,
    ...(fallback ? { fallback } : {}),
  };
}

/** A field with its own reading, for a value no helper above describes. */
export function custom<T, M extends 'always' | 'optional'>(f: Omit<Field<T, M>, 'empty'> & { empty?: (v: unknown) => boolean }): Field<T, M> {
  return { ...f, empty: (v) => isAbsent(v) || (f.empty ? f.empty(v) : false) };
}

/** A key read by older files only: its value goes to the record's repairs, then it is gone. */
export function legacy(type: JsonType): Field<unknown, 'legacy'> {
  return { mode: 'legacy', type: json.nullish(type), empty: isAbsent, decode: identity, encode: identity };
}

// ---------------------------------------------------------------------------
// Records

export interface RecordSpec<F extends Fields> {
  readonly fields: F;
  /** Keys written, in order (the table's, without legacy keys). */
  readonly keys: readonly string[];
  /** Every key the table names (legacy included): never taken as an unknown key. */
  readonly known: ReadonlySet<string>;
  /** Unknown keys kept as read (`extra`) and written after the known ones. */
  readonly keepUnknown: boolean;
  /** The record's JSON type: an object with every field's type checked, other keys let through. */
  readonly type: JsonType;
}

/** The in-memory value of a record: its fields, plus `extra` when it keeps unknown keys. */
export type RecordValue<F extends Fields, Keep extends boolean> = Simplify<Shape<F> & (Keep extends true ? { extra?: Record<string, unknown> } : unknown)>;

export function record<F extends Fields>(fields: F, o: { keepUnknown: boolean }): RecordSpec<F> {
  return {
    fields,
    keys: Object.keys(fields).filter((k) => fields[k]!.mode !== 'legacy'),
    known: new Set(Object.keys(fields)),
    keepUnknown: o.keepUnknown,
    type: json.object(Object.fromEntries(Object.entries(fields).map(([k, f]) => [k, f.type]))),
  };
}

/**
 * Read an object that passed `spec.type`: each field in table order (an empty or absent `always`
 * field takes its fallback), then unknown keys into `extra`. Legacy values come back apart, for
 * the caller's repairs.
 */
export function decodeRecord(
  spec: RecordSpec<Fields>,
  obj: Record<string, unknown>,
  cx: ReadContext,
): { value: Record<string, unknown>; legacy: Record<string, unknown> } {
  const value: Record<string, unknown> = {};
  const legacyValues: Record<string, unknown> = {};
  for (const [key, f] of Object.entries(spec.fields)) {
    if (f.requires !== undefined && !(f.requires in value)) continue;
    const v = Object.hasOwn(obj, key) ? obj[key] : undefined;
    if (f.mode === 'legacy') {
      if (!isAbsent(v)) legacyValues[key] = v;
      continue;
    }
    const kept = f.empty(v) ? undefined : f.decode(v, cx, key);
    if (kept !== undefined) value[key] = kept;
    else if (f.mode === 'always') value[key] = f.fallback;
  }
  if (spec.keepUnknown) {
    let extra: Record<string, unknown> | undefined;
    for (const [k, v] of Object.entries(obj)) if (!spec.known.has(k)) (extra ??= {})[k] = v;
    if (extra) value['extra'] = extra;
  }
  return { value, legacy: legacyValues };
}

/** The record as an ordered plain object: known keys in table order (empty optional ones omitted), then unknown keys. */
export function encodeRecord(spec: RecordSpec<Fields>, value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of spec.keys) {
    const f = spec.fields[key]!;
    if (f.requires !== undefined && !(f.requires in out)) continue;
    const v = value[key];
    if (f.mode === 'always') {
      out[key] = f.encode(f.empty(v) ? f.fallback : v);
    } else if (!f.empty(v) && (!f.writeIf || f.writeIf(v))) {
      out[key] = f.encode(v);
    }
  }
  const extra = value['extra'] as Record<string, unknown> | undefined;
  if (spec.keepUnknown && extra) {
    for (const [k, v] of Object.entries(extra)) if (!spec.known.has(k) && !(k in out)) out[k] = v;
  }
  return out;
}

// ---------------------------------------------------------------------------
// Fields holding records

/**
 * An object field that checks its value itself: the parent's shape check lets any value through,
 * so this field's errors name its own path, and a record nested in itself is bounded to `maxDepth`.
 */
export function object<T, F extends Fields>(spec: () => RecordSpec<F>, o: { maxDepth: number; error: (message: string) => Error }): Field<T, 'optional'> {
  return {
    mode: 'optional',
    type: json.nullish(json.any),
    empty: isAbsent,
    decode(v, cx, key) {
      const path = cx.at(key);
      const r = parseAs<Record<string, unknown>>(spec().type, v);
      if (!r.success || cx.depth > o.maxDepth) throw o.error(`${path}: ${r.success ? 'nested too deeply' : issuesText(r.error)}`);
      return decodeRecord(spec(), r.data, cx.nested(path)).value as T;
    },
    encode: (v) => encodeRecord(spec(), v as Record<string, unknown>),
  };
}

/**
 * A list of records; empty is `[]`. `valid` drops an item with a warning naming it (`label`).
 */
export function listOf<T, F extends Fields>(
  spec: RecordSpec<F>,
  o: { valid?: (item: Record<string, unknown>) => boolean; label?: (item: Record<string, unknown>) => string } = {},
): Field<T[], 'optional'> {
  return {
    mode: 'optional',
    type: json.nullish(json.array(spec.type)),
    empty: (v) => isAbsent(v) || (v as unknown[]).length === 0,
    decode(v, cx) {
      const kept: T[] = [];
      for (const item of v as Record<string, unknown>[]) {
        if (o.valid && !o.valid(item)) {
          cx.warn(o.label ? o.label(item) : 'item');
          continue;
        }
        kept.push(decodeRecord(spec, item, cx).value as T);
      }
      return kept.length > 0 ? kept : undefined;
    },
    encode: (v) => (v as Record<string, unknown>[]).map((item) => encodeRecord(spec, item)),
  };
}

/** A map of records keyed by id; empty is `{}`. Written with sorted keys, as Go encodes maps. */
export function mapOf<T, F extends Fields>(spec: RecordSpec<F>): Field<Record<string, T>, 'optional'> {
  return {
    mode: 'optional',
    type: json.nullish(json.map(spec.type)),
    empty: (v) => isAbsent(v) || Object.keys(v as object).length === 0,
    decode(v, cx) {
      const out: Record<string, T> = {};
      for (const [id, item] of Object.entries(v as Record<string, Record<string, unknown>>)) out[id] = decodeRecord(spec, item, cx).value as T;
      return out;
    },
    encode(v) {
      const m = v as Record<string, Record<string, unknown>>;
      const out: Record<string, unknown> = {};
      for (const id of Object.keys(m).sort()) out[id] = encodeRecord(spec, m[id]!);
      return out;
    },
  };
}

/** The context for reading a top-level record at `where`; `warn` receives each dropped value's name. */
export function readContext(where: string, warn: (what: string) => void): ReadContext {
  const make = (path: string, depth: number, join: string): ReadContext => ({
    warn,
    path,
    depth,
    at: (key) => `${path}${join}${key}`,
    nested: (p) => make(p, depth + 1, '.'),
  });
  return make(where, 0, ': ');
}
