import type { Command } from 'commander';

/** SPEC §8.6 `entire clean`. The logic lives in src/commands/clean.ts. */
export function register(program: Command): void {
  program
    .command('clean')
    .description('List (and with --force delete) orphaned shadow branches, session states, scratch files and locks')
    .option('--force', 'delete the items found')
    .option('--json', 'one JSON document')
    .action(async (opts: { force?: boolean; json?: boolean }) => {
      const { runClean } = await import('../../commands/clean.js');
      const { processIo } = await import('../../commands/common.js');
      const code = await runClean(process.cwd(), opts, processIo);
      if (code !== 0) process.exitCode = code;
    });
}
