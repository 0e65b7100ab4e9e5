import type { Command } from 'commander';
import { EntireError } from '../../errors.js';

/** Placeholder until `reset` is built (see issues). */
export function register(program: Command): void {
  program
    .command('reset')
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .action(() => {
      throw new EntireError('INTERNAL', 'reset is not implemented yet');
    });
}
