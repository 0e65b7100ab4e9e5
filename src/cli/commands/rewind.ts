import type { Command } from 'commander';

/** SPEC §8.7 `entire rewind [--list] [--to <id>] [--logs-only] [--reset] [--force]`. */
export function register(program: Command): void {
  program
    .command('rewind')
    .description('List rewind points or restore the work tree and transcript to one')
    .option('--list', 'print the rewind points as JSON')
    .option('--to <id>', 'restore this point (a step commit, a commit sha or a checkpoint id)')
    .option('--logs-only', 'restore only the transcript, not the files')
    .option('--reset', 'for a committed point: also `git reset --hard` to its commit (clean tree only)')
    .option('-f, --force', 'do not ask for confirmation')
    .action(async (opts: { list?: boolean; to?: string; logsOnly?: boolean; reset?: boolean; force?: boolean }) => {
      // SPEC-3 §A.4: a checkpoint that is not local is fetched (one ref); hooks never fetch
      (await import('../../store/routing.js')).allowOnDemandFetch();
      const { runRewind } = await import('../../commands/rewind.js');
      const { confirm } = await import('../confirm.js');
      process.exitCode = await runRewind(process.cwd(), opts, undefined, (q) => confirm(q, 'rewind'));
    });
}
