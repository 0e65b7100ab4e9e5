import type { Command } from 'commander';
import { VERSION, COMMIT } from '../../version.js';
import { out } from '../output.js';

export function printVersion(): void {
  out(`Entire CLI ${VERSION} (${COMMIT})`);
  out(`Node version: ${process.version}`);
  out(`OS/Arch: ${process.platform}/${process.arch}`);
}

/** SPEC §8.10 `entire version`. */
export function register(program: Command): void {
  program.command('version').description('Print the version of the CLI').action(printVersion);
}
