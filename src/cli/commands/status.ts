import type { Command } from 'commander';
import { EntireError } from '../../errors.js';

/** Placeholder until `status` is built (see issues). */
export function register(program: Command): void {
  program
    .command('status')
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .action(() => {
      throw new EntireError('INTERNAL', 'status is not implemented yet');
    });
}
