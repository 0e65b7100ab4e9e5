import type { Command } from 'commander';

/** SPEC §8.9 `entire explain`. The logic lives in src/commands/explain.ts. */
export function register(program: Command): void {
  program
    .command('explain')
    .description('Explain a commit, a checkpoint or a session: prompts, files, tokens and transcript')
    .option('--checkpoint <id>', 'explain one checkpoint (ID or unique prefix)')
    .option('--commit <rev>', "explain a commit's checkpoints")
    .option('--session <id>', 'list the checkpoints of a session (with --checkpoint: show only that session)')
    .option('--short', 'summary only (no prompts or transcript)')
    .option('--full', 'the whole transcript, untruncated')
    .option('--raw-transcript', 'print the stored transcript bytes exactly')
    .option('--json', 'one JSON document')
    .action(async (opts: { checkpoint?: string; commit?: string; session?: string; short?: boolean; full?: boolean; rawTranscript?: boolean; json?: boolean }) => {
      // SPEC-3 §A.4: a checkpoint that is not local is fetched (one ref); hooks never fetch
      (await import('../../store/routing.js')).allowOnDemandFetch();
      const { runExplain } = await import('../../commands/explain.js');
      const { processIo } = await import('../../commands/common.js');
      await runExplain(process.cwd(), opts, processIo);
    });
}
