import type { Command } from 'commander';
import { EntireError } from '../../errors.js';

/** Placeholder until `disable` is built (see issues). */
export function register(program: Command): void {
  program
    .command('disable')
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .action(() => {
      throw new EntireError('INTERNAL', 'disable is not implemented yet');
    });
}
