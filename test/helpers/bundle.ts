/** Bundle a TypeScript helper script so tests can run it as separate processes. */
import { build } from 'esbuild';
import { join } from 'node:path';
import { PROJECT_ROOT, tempDir } from './repo.js';

export async function bundleScript(entry: string): Promise<string> {
  const out = join(tempDir('entire-bundle-'), 'script.cjs');
  await build({
    entryPoints: [join(PROJECT_ROOT, entry)],
    outfile: out,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    logLevel: 'error',
  });
  return out;
}
