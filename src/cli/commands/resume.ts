import type { Command } from 'commander';

/** SPEC §8.8 / SPEC-2 §F.2 `entire resume`: by branch (src/commands/resume.ts) or by thread (src/commands/resume-thread.ts). */
export function register(program: Command): void {
  program
    .command('resume')
    .description("Restore a session's transcript so its agent can continue it: the branch's latest sessions, or one thread by task, checkpoint, commit or session")
    .argument('[branch]', 'branch to check out and resume (default: the current branch)')
    .option('--task <id>', 'the newest thread of this task (ENTIRE_TASK_ID)')
    .option('--checkpoint <id>', 'the threads of this checkpoint')
    .option('--commit <rev>', "the threads of this commit's checkpoints")
    .option('--session <sid>', 'this session (id or a unique prefix of at least 8 characters)')
    .option('--agent <key>', 'the agent you resume with: a thread of another agent is refused (with --task: default, your own thread\'s agent)')
    .option('--exec', "run the agent's resume command (exactly one thread; arguments after -- are passed on)")
    .option('--list', 'list the threads instead')
    .option('--json', 'with --list: one JSON document')
    .option('-f, --force', 'overwrite a local transcript that differs (a backup is kept)')
    .allowExcessArguments(true)
    .action(async (branch: string | undefined, opts: { task?: string; agent?: string; checkpoint?: string; commit?: string; session?: string; exec?: boolean; list?: boolean; json?: boolean; force?: boolean }, cmd: Command) => {
      const dash = process.argv.indexOf('--');
      const agentArgs = dash >= 0 ? process.argv.slice(dash + 1) : [];
      const byThread = opts.task !== undefined || opts.agent !== undefined || opts.checkpoint !== undefined || opts.commit !== undefined || opts.session !== undefined || opts.exec || opts.list;
      if (byThread) {
        // SPEC-3 §A.4: a checkpoint that is not local is fetched (one ref); hooks never fetch
        (await import('../../store/routing.js')).allowOnDemandFetch();
        const { runThreadResume } = await import('../../commands/resume-thread.js');
        // with `--`, commander hands the agent's arguments over as operands too
        const target = branch !== undefined && !agentArgs.includes(branch) ? branch : undefined;
        if (target !== undefined) {
          const { EntireError } = await import('../../errors.js');
          throw new EntireError('INVALID_USAGE', 'a branch cannot be combined with --task/--checkpoint/--commit/--session/--exec/--list');
        }
        process.exitCode = await runThreadResume(process.cwd(), { ...opts, agentArgs });
        return;
      }
      void cmd;
      // SPEC-3 §A.4: a checkpoint that is not local is fetched (one ref); hooks never fetch
      (await import('../../store/routing.js')).allowOnDemandFetch();
      const { runResume } = await import('../../commands/resume.js');
      let name = branch;
      if (name === undefined) {
        const { openRepo, currentBranch } = await import('../../git/repo.js');
        const repo = await openRepo(process.cwd());
        name = currentBranch(repo) ?? '';
        repo.objects.close();
      }
      process.exitCode = await runResume(process.cwd(), name, opts);
    });
}
