import type { Command } from 'commander';
import { EntireError } from '../../errors.js';

/** Placeholder until `debug` is built (see issues). */
export function register(program: Command): void {
  program
    .command('debug')
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .action(() => {
      throw new EntireError('INTERNAL', 'debug is not implemented yet');
    });
}
