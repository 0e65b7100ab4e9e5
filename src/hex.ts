/**
 * Lowercase-hex checks for object and checkpoint IDs, as plain loops: hooks
 * test a handful of IDs per run, and each distinct regular expression costs
 * a compilation on its first use in a process (≈ 20 µs each on the bench VM).
 */

/** Non-empty and only `0-9a-f`. */
export function isLowerHex(s: string): boolean {
  if (s.length === 0) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false;
  }
  return true;
}

/** A full SHA-1 or SHA-256 object id (40 or 64 lowercase hex). */
export function isObjectId(s: string): boolean {
  return (s.length === 40 || s.length === 64) && isLowerHex(s);
}
