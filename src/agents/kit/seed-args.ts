/**
 * SPEC-2 §F.3 under `resume --exec -- <args>`: the args were written for the agent's headless
 * resume (`-p <prompt>` and flags, or flags and a trailing prompt); the fallback's new session
 * must carry the seed first and that prompt after it, in one first prompt.
 */

/** Seed, blank line, the user's prompt: the model reads the context before the ask. */
export function seededPrompt(seed: string, prompt: string): string {
  return `${seed}\n\n${prompt}`;
}

/**
 * `args` with the value of the first of `flags` (`-p <v>`, `--prompt <v>`, `--prompt=<v>`)
 * replaced by the seeded prompt; null when no such flag carries a value.
 */
export function seedFlagValue(args: readonly string[], flags: readonly string[], seed: string): string[] | null {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const eq = flags.find((f) => f.startsWith('--') && a.startsWith(`${f}=`));
    if (eq !== undefined) return [...args.slice(0, i), `${eq}=${seededPrompt(seed, a.slice(eq.length + 1))}`, ...args.slice(i + 1)];
    const value = args[i + 1];
    if (flags.includes(a) && value !== undefined && !value.startsWith('-')) {
      return [...args.slice(0, i + 1), seededPrompt(seed, value), ...args.slice(i + 2)];
    }
  }
  return null;
}

/**
 * `args` whose last argument, a prompt (not an option), is seeded; without one, the seed is
 * appended as the prompt (`<agent> [flags] <prompt>`).
 */
export function seedLastArg(args: readonly string[], seed: string): string[] {
  const last = args[args.length - 1];
  if (last === undefined || last.startsWith('-')) return [...args, seed];
  return [...args.slice(0, -1), seededPrompt(seed, last)];
}

