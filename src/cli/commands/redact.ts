import type { Command } from 'commander';
import { EntireError } from '../../errors.js';

/** Placeholder until `redact` is built (see issues). */
export function register(program: Command): void {
  program
    .command('redact')
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .action(() => {
      throw new EntireError('INTERNAL', 'redact is not implemented yet');
    });
}
