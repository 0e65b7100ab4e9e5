import type { Command } from 'commander';

/** SPEC §8.4 `entire doctor [--force] [--json]`. */
export function register(program: Command): void {
  program
    .command('doctor')
    .description('Find stuck sessions, pending work, dangling trailers and broken hooks; fix them with --force')
    .option('-f, --force', 'repair what was found without asking')
    .option('--json', 'print the findings as one JSON document')
    .action(async (opts: { force?: boolean; json?: boolean }) => {
      const { runDoctor } = await import('../../commands/doctor.js');
      const { hasTty, confirm } = await import('../confirm.js');
      process.exitCode = await runDoctor(process.cwd(), opts, undefined, async () =>
        hasTty() ? confirm('Fix these problems? [y/N] ', 'doctor') : false,
      );
    });
}
