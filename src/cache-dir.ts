/**
 * The user's cache directory, as the launcher vetted it (SPEC-2 §A.9):
 * `bin/entire.cjs` decides once per process whether `$XDG_CACHE_HOME/entire`
 * (else `$HOME/.cache/entire`) is a non-symlink directory owned by us with no
 * group or other bits, and hands the answer to the bundle here — not through
 * the environment, which child processes would inherit unchecked. null: no
 * cache (unset, unsafe, or not run through the launcher).
 */
const KEY = Symbol.for('entire.cacheDir');

export function trustedCacheDir(): string | null {
  const v = (globalThis as Record<symbol, unknown>)[KEY];
  return typeof v === 'string' && v !== '' ? v : null;
}
