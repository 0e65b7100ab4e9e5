/** Build the CLI bundle once before the suite, so tests drive what users run. */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT } from './repo.js';

export default function setup(): void {
  execFileSync(process.execPath, [join(PROJECT_ROOT, 'scripts', 'build.mjs')], { stdio: 'inherit' });
}
