import type { Command } from 'commander';

/** SPEC §8.8 `entire resume <branch> [--force]`. */
export function register(program: Command): void {
  program
    .command('resume')
    .description("Check out a branch and restore its latest sessions' transcripts so the agent can continue them")
    .argument('<branch>', 'branch to resume')
    .option('-f, --force', 'overwrite a local transcript even when it is longer')
    .action(async (branch: string, opts: { force?: boolean }) => {
      const { runResume } = await import('../../commands/resume.js');
      process.exitCode = await runResume(process.cwd(), branch, opts);
    });
}
