/**
 * `entire hooks <agent|git> <verb>`: the hot path. Hooks never fail the
 * caller: every error is logged and the process exits 0 (SPEC §6).
 */
export async function runHookCommand(args: string[]): Promise<void> {
  const [group, verb, ...rest] = args;
  void group;
  void verb;
  void rest;
  process.exitCode = 0;
}
