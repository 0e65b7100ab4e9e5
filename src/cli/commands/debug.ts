import type { Command } from 'commander';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { EntireError } from '../../errors.js';
import { printJson } from '../output.js';

/**
 * Hidden `entire debug transcript <path> --agent <key> [--from N] [--root DIR]`
 * (SPEC §7): what Entire reads from a transcript, as one JSON document
 * `{position, last_identifier, modified_files, prompts, token_usage}`.
 */
export function register(program: Command): void {
  const debug = program.command('debug', { hidden: true }).description('Inspect what Entire reads (for troubleshooting)');
  debug
    .command('transcript')
    .description('Print what Entire reads from an agent transcript')
    .argument('<path>', 'transcript file')
    .option('--agent <key>', 'claude-code | gemini | cursor (default: detected from the content)')
    .option('--from <n>', 'offset: JSONL line / Gemini message index to analyse from', '0')
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
  const { getAgent } = await import('../../agents/registry.js');
  const { toRepoRelative } = await import('../../agents/paths.js');
  const key = opts.agent ?? detectAgent(path);
  const agent = await getAgent(key);
  const { analysis } = agent.analyzeTranscriptFile(path, { from });

  const root = opts.root ?? (await transcriptRoot(key, path, analysis.modifiedFiles));
  const modified = root !== undefined ? toRepoRelative(analysis.modifiedFiles, root) : analysis.modifiedFiles;
  printJson({
    position: analysis.position,
    last_identifier: analysis.lastIdentifier,
    modified_files: modified,
    prompts: analysis.prompts,
    token_usage: analysis.tokenUsage,
  });
}

/** SPEC §2.7's rule: a document starting `{` with a `messages` array is Gemini; otherwise Claude JSONL. */
function detectAgent(path: string): string {
  const text = readFileSync(path, 'utf8');
  if (text.trimStart().startsWith('{')) {
    try {
      const v: unknown = JSON.parse(text);
      if (v !== null && typeof v === 'object' && Array.isArray((v as { messages?: unknown }).messages)) return 'gemini';
    } catch {
      /* JSONL */
    }
  }
  return 'claude-code';
}

/**
 * The project root the transcript itself names: Claude/Cursor lines carry
 * `cwd`; a Gemini document's `projectHash` is the SHA-256 of its root.
 */
async function transcriptRoot(key: string, path: string, paths: readonly string[]): Promise<string | undefined> {
  const text = readFileSync(path, 'utf8');
  if (key === 'gemini') {
    const { parseGeminiTranscript, geminiProjectRoot } = await import('../../agents/gemini/transcript.js');
    try {
      return geminiProjectRoot(parseGeminiTranscript(text), paths);
    } catch {
      return undefined;
    }
  }
  const m = /"cwd"\s*:\s*"((?:[^"\\]|\\.)+)"/.exec(text);
  if (!m || m[1] === undefined) return undefined;
  try {
    return JSON.parse(`"${m[1]}"`) as string;
  } catch {
    return undefined;
  }
}
