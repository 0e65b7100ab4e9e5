import type { Command } from 'commander';
import { VERSION, COMMIT } from '../../version.js';
import { out } from '../output.js';

/** SPEC §8.10's three lines; also what `entire --version` prints. */
export function versionLines(): string[] {
  return [`Entire CLI ${VERSION} (${COMMIT})`, `Node version: ${process.version}`, `OS/Arch: ${process.platform}/${process.arch}`];
}

export function printVersion(): void {
  for (const line of versionLines()) out(line);
}

/** SPEC §8.10 `entire version`. */
export function register(program: Command): void {
  program.command('version').description('Print the version of the CLI').action(printVersion);
}
