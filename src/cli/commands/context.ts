import type { Command } from 'commander';

/** SPEC-2 §F.5 `entire context`. The logic lives in src/commands/context.ts. */
export function register(program: Command): void {
  program
    .command('context [target]')
    .description("Print a session's execution register (and with --full its cognitive cache): live sessions, a checkpoint's or a commit's")
    .option('--session <sid>', 'only this session (id or a unique prefix of at least 8 characters)')
    .option('--full', 'also the cognitive cache (constraints, decisions, failed approaches)')
    .option('--json', 'one JSON document')
    .action(async (target: string | undefined, opts: { session?: string; full?: boolean; json?: boolean }) => {
      // SPEC-3 §A.4: a checkpoint that is not local is fetched (one ref); hooks never fetch
      (await import('../../store/routing.js')).allowOnDemandFetch();
      const { runContext } = await import('../../commands/context.js');
      const { processIo } = await import('../../commands/common.js');
      process.exitCode = await runContext(process.cwd(), target, opts, processIo);
    });
}
