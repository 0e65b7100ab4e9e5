import type { Command } from 'commander';

/** SPEC-2 §F.1 `entire tasks`. The logic lives in src/commands/tasks.ts. */
export function register(program: Command): void {
  program
    .command('tasks')
    .description('List supervisor tasks (ENTIRE_TASK_ID) and the agent threads that worked on them')
    .option('--json', 'one JSON document')
    .action(async (opts: { json?: boolean }) => {
      // SPEC-3 §A.4: a checkpoint that is not local is fetched (one ref); hooks never fetch
      (await import('../../store/routing.js')).allowOnDemandFetch();
      const { runTasks } = await import('../../commands/tasks.js');
      const { processIo } = await import('../../commands/common.js');
      process.exitCode = await runTasks(process.cwd(), opts, processIo);
    });
}
