import type { Command } from 'commander';
import { EntireError } from '../../errors.js';

/** Placeholder until `doctor` is built (see issues). */
export function register(program: Command): void {
  program
    .command('doctor')
    .allowUnknownOption(true)
    .allowExcessArguments(true)
    .action(() => {
      throw new EntireError('INTERNAL', 'doctor is not implemented yet');
    });
}
