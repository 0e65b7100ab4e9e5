import type { Command } from 'commander';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { EntireError } from '../../errors.js';
import { printJson } from '../output.js';
import { agentKeyList } from '../../agents/registry.js';

/**
 * Hidden `entire debug transcript <path> --agent <key> [--from N] [--root DIR]`
 * (SPEC §7): what Entire reads from a transcript, as one JSON document
 * `{position, last_identifier, modified_files, prompts, token_usage}`, plus `model` from
 * agents whose transcripts name it.
 */
export function register(program: Command): void {
  const debug = program.command('debug', { hidden: true }).description('Inspect what Entire reads (for troubleshooting)');
  debug
    .command('transcript')
    .description('Print what Entire reads from an agent transcript')
    .argument('<path>', 'transcript file')
    .option('--agent <key>', `${agentKeyList().replace(/, /g, ' | ')} (default: detected from the content)`)
    .option('--from <n>', "offset to analyse from, in the agent's unit (JSONL line, document message)", '0')
    .option('--root <dir>', 'repository root for modified_files (default: the root the transcript names)')
    .action(async (path: string, opts: { agent?: string; from: string; root?: string }) => {
      await runDebugTranscript(path, opts);
    });
}

async function runDebugTranscript(path: string, opts: { agent?: string; from: string; root?: string }): Promise<void> {
  if (!/^\d+$/.test(opts.from)) {
    throw new EntireError('INVALID_USAGE', `--from must be a non-negative integer, got "${opts.from}"`);
  }
  const from = Number(opts.from);
  if (!existsSync(path) || !statSync(path).isFile()) {
    throw new EntireError('TRANSCRIPT_UNREADABLE', `cannot read transcript ${path}`, { detail: { path } });
  }
  const { getAgent, agentForStoredData } = await import('../../agents/registry.js');
  const { toRepoRelative } = await import('../../agents/kit/home-paths.js');
  const text = readFileSync(path, 'utf8');
  const agent = opts.agent !== undefined ? await getAgent(opts.agent) : await agentForStoredData(undefined, text);
  const { analysis } = agent.analyzeTranscriptFile(path, { from });

  const root = opts.root ?? agent.transcriptProjectRoot(text, analysis.modifiedFiles);
  const modified = root !== undefined ? toRepoRelative(analysis.modifiedFiles, root) : analysis.modifiedFiles;
  printJson({
    position: analysis.position,
    last_identifier: analysis.lastIdentifier,
    modified_files: modified,
    prompts: analysis.prompts,
    token_usage: analysis.tokenUsage,
    ...(analysis.model !== undefined ? { model: analysis.model } : {}),
  });
}
