import type { Command } from 'commander';
import { EntireError } from '../../errors.js';

/** Placeholder until `resume` is built (see issues). */
export function register(program: Command): void {
  program
    .command('resume')
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .action(() => {
      throw new EntireError('INTERNAL', 'resume is not implemented yet');
    });
}
