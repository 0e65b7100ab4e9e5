import type { Command } from 'commander';
import { EntireError } from '../../errors.js';

/** Placeholder until `rewind` is built (see issues). */
export function register(program: Command): void {
  program
    .command('rewind')
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .action(() => {
      throw new EntireError('INTERNAL', 'rewind is not implemented yet');
    });
}
