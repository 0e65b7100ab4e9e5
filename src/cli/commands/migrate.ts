import type { Command } from 'commander';

/** SPEC-3 §A.9 `entire migrate --to refs|branch [--dry-run]`. The logic lives in src/commands/migrate/. */
export function register(program: Command): void {
  program
    .command('migrate')
    .description('Copy checkpoints between entire/checkpoints/v1 and one ref each (the Go refs format)')
    .requiredOption('--to <backend>', 'refs (git-refs) or branch (git-branch)')
    .option('--dry-run', 'say what would be migrated, write nothing')
    .action(async (opts: { to: string; dryRun?: boolean }) => {
      const { runMigrate } = await import('../../commands/migrate/index.js');
      const { processIo } = await import('../../commands/common.js');
      process.exitCode = await runMigrate(process.cwd(), opts, processIo);
    });
}
