import type { Command } from 'commander';
import { EntireError } from '../../errors.js';

/** Placeholder until `explain` is built (see issues). */
export function register(program: Command): void {
  program
    .command('explain')
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .action(() => {
      throw new EntireError('INTERNAL', 'explain is not implemented yet');
    });
}
