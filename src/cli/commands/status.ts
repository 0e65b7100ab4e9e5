import type { Command } from 'commander';

/** SPEC §8.3 `entire status`. The logic lives in src/commands/status.ts. */
export function register(program: Command): void {
  program
    .command('status')
    .description('Show whether Entire is enabled, its git hooks and the sessions of this worktree')
    .option('--detailed', 'also show each settings file and the git hooks')
    .option('--json', 'one JSON document')
    .action(async (opts: { detailed?: boolean; json?: boolean }) => {
      const { runStatus } = await import('../../commands/status.js');
      const { processIo } = await import('../../commands/common.js');
      await runStatus(process.cwd(), opts, processIo);
    });
}
