/**
 * The one "is this a JSON object" test every agent reader uses on parsed, untrusted JSON
 * (SPEC-3 §F.2: one definition each): a plain object, never null or an array.
 */
export type Obj = Record<string, unknown>;

export const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
