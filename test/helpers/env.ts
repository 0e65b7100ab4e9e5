/**
 * Run in-process code with a test environment. src/git/exec.ts snapshots
 * process.env once, so this also resets that snapshot.
 */
export async function withEnv<T>(env: NodeJS.ProcessEnv, fn: () => Promise<T>): Promise<T> {
  const saved = { ...process.env };
  for (const k of Object.keys(process.env)) delete process.env[k];
  Object.assign(process.env, env);
  const exec = await import('../../src/git/exec.js');
  exec.resetGitEnvForTests();
  try {
    return await fn();
  } finally {
    // leave the test env in place for the reader process spawned above; the
    // base env is re-derived on the next withEnv call
    for (const k of Object.keys(process.env)) delete process.env[k];
    Object.assign(process.env, saved);
  }
}
