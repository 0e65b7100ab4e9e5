/**
 * Hand-written shape checks that mirror our zod/mini schemas, for the hot
 * path: a hook parses settings and session state on every run, and zod's
 * first `safeParse` in a process costs about 4 ms (it sets up each schema on
 * first use), a tenth of a whole hook. A value that passes a check here is
 * exactly what the schema accepts (test/session/shape.test.ts checks the two
 * agree on generated inputs); anything else goes to the schema, which stays
 * the authority and writes the error message.
 */
export type Check = (v: unknown) => boolean;

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export const str: Check = (v) => typeof v === 'string';
export const bool: Check = (v) => typeof v === 'boolean';
/** z.int(): a safe integer. */
export const int: Check = (v) => Number.isSafeInteger(v);
export const unknown: Check = () => true;
export const nullish =
  (c: Check): Check =>
  (v) =>
    v === undefined || v === null || c(v);
export const arrayOf =
  (c: Check): Check =>
  (v) =>
    Array.isArray(v) && v.every((x) => c(x));
export const recordOf =
  (c: Check): Check =>
  (v) =>
    isPlainObject(v) && Object.keys(v).every((k) => c(v[k]));
/** z.looseObject: the listed fields checked, other keys passed through. */
export function looseObject(fields: Record<string, Check>): Check {
  const entries = Object.entries(fields);
  return (v) => isPlainObject(v) && entries.every(([k, c]) => c(Object.hasOwn(v, k) ? v[k] : undefined));
}

/** Run `check`; only when it fails, ask the (lazily built) schema for the verdict and its issues. */
export function parseWith<T>(
  value: unknown,
  check: Check,
  schema: () => { safeParse(v: unknown): { success: true; data: T } | { success: false; error: { issues: ReadonlyArray<{ path: PropertyKey[]; message: string }> } } },
): { success: true; data: T } | { success: false; error: { issues: ReadonlyArray<{ path: PropertyKey[]; message: string }> } } {
  if (check(value)) return { success: true, data: value as T };
  return schema().safeParse(value);
}
