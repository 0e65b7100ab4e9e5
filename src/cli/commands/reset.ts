import type { Command } from 'commander';

/** SPEC §8.5 `entire reset`. The logic lives in src/commands/reset.ts. */
export function register(program: Command): void {
  program
    .command('reset')
    .description("Clear this worktree's session state for HEAD and delete its shadow branch")
    .option('--force', 'do not ask; also reset active sessions')
    .option('--session <id>', 'reset only this session')
    .action(async (opts: { force?: boolean; session?: string }) => {
      const { runReset } = await import('../../commands/reset.js');
      const { processIo } = await import('../../commands/common.js');
      const code = await runReset(process.cwd(), opts, processIo);
      if (code !== 0) process.exitCode = code;
    });
}
