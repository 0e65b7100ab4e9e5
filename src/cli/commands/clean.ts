import type { Command } from 'commander';
import { EntireError } from '../../errors.js';

/** Placeholder until `clean` is built (see issues). */
export function register(program: Command): void {
  program
    .command('clean')
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .action(() => {
      throw new EntireError('INTERNAL', 'clean is not implemented yet');
    });
}
