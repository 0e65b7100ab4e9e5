import type { Command } from 'commander';
import { out } from '../output.js';
import { agentKeyList, DEFAULT_AGENT } from '../../agents/registry.js';

/** SPEC §8.1 `entire enable`. */
export function register(program: Command): void {
  program
    .command('enable')
    .description('Install the git and agent hooks and turn Entire on for this repository')
    .option('--agent <agent>', `agent to install hooks for (${agentKeyList()})`, DEFAULT_AGENT)
    .option('--local', 'write settings to .entire/settings.local.json (not committed)')
    .option('--project', 'write settings to .entire/settings.json (committed)')
    .option('-f, --force', 'reinstall agent hooks')
    .option('--skip-push-sessions', 'do not push session logs on git push')
    .option('--approve-agent-hooks', "approve the agent hooks in the agent's own configuration, where it gates them (asks first; needs a terminal)")
    .option('--checkpoint-remote <name|url>', 'push checkpoints only to this remote (a URL adds the remote entire-checkpoints)')
    .action(async (opts: { agent: string; local?: boolean; project?: boolean; force?: boolean; skipPushSessions?: boolean; approveAgentHooks?: boolean; checkpointRemote?: string }) => {
      const { enable } = await import('../../install/enable.js');
      for (const line of await enable(process.cwd(), opts)) out(line);
    });
}
