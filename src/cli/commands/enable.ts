import type { Command } from 'commander';
import { EntireError } from '../../errors.js';

/** Placeholder until `enable` is built (see issues). */
export function register(program: Command): void {
  program
    .command('enable')
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .action(() => {
      throw new EntireError('INTERNAL', 'enable is not implemented yet');
    });
}
