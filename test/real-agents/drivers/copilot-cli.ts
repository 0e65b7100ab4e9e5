/** Copilot CLI, headless (`copilot -p … --allow-all-tools`), against OpenAI chat completions (SPEC-2 §G). */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { openAiChatDialect } from '../dialects/openai-chat.js';
import type { AgentDriver } from './types.js';

/** `$COPILOT_HOME` is left unset: the CLI (and Entire) use `$HOME/.copilot`. */
export function copilotSessionDir(home: string, sessionId: string): string {
  return join(home, '.copilot', 'session-state', sessionId);
}

const UUID_RE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

export const copilotCliDriver: AgentDriver = {
  key: 'copilot-cli',
  displayName: 'Copilot CLI',
  // Copilot's `task` requires a name and one of its agent types; `mode: sync` waits for the subagent
  dialect: openAiChatDialect({
    toolCall: (a) =>
      a.kind === 'task'
        ? {
            name: 'task',
            args: { description: a.description, prompt: a.prompt, agent_type: 'general-purpose', name: 'scripted-helper', mode: a.background ? 'background' : 'sync' },
          }
        : undefined,
  }),
  agentCommitsRunHooks: true,
  subagents: true,
  backgroundSubagents: false,
  subagentTokens: 'session',
  enableFiles: ['.github/hooks/entire.json', '.entire/settings.json', '.entire/.gitignore'],
  turnEndVerb: 'agent-stop',
  // usage records carry the prompt tokens (cached ones included) as inputTokens (SPEC-2 §C.3)
  recordedUsagePerCall: (u) => ({
    input_tokens: u.input + u.cacheCreation + u.cacheRead,
    cache_creation_tokens: 0,
    cache_read_tokens: u.cacheRead,
    output_tokens: u.output,
  }),

  // nothing to prepare: COPILOT_ALLOW_ALL trusts the folder (repository hooks load only then)
  prepareHome() {},

  env(serverUrl, apiKey) {
    return {
      COPILOT_OFFLINE: 'true',
      COPILOT_PROVIDER_BASE_URL: `${serverUrl}/v1`,
      COPILOT_PROVIDER_API_KEY: apiKey,
      COPILOT_MODEL: 'gpt-4.1',
      COPILOT_AUTO_UPDATE: 'false',
      COPILOT_ALLOW_ALL: 'true',
    };
  },

  startArgv: (bin, prompt) => [bin, '-p', prompt, '--allow-all-tools'],
  resumeArgv: (bin, sessionId, prompt) => [bin, `--resume=${sessionId}`, '-p', prompt, '--allow-all-tools'],
  sessionIdOf(run) {
    const ids = `${run.stderr}\n${run.stdout}`.match(UUID_RE);
    return ids?.[ids.length - 1] ?? '';
  },
  answerOf: (run) => run.stdout.trim(),

  resumeHint: (sessionId) => `copilot --resume=${sessionId}`,
  restoreProblems(home, _projectRoot, sessionId, restoredPath) {
    const want = join(copilotSessionDir(home, sessionId), 'events.jsonl');
    const problems: string[] = [];
    if (restoredPath !== want) problems.push(`restored to ${restoredPath}, copilot --resume looks in ${want}`);
    if (!existsSync(want)) problems.push(`${want} does not exist`);
    else if ((statSync(copilotSessionDir(home, sessionId)).mode & 0o077) !== 0) problems.push(`${copilotSessionDir(home, sessionId)} is not 0700`);
    return problems;
  },

  transcriptFiles(home, sessionId) {
    const dir = copilotSessionDir(home, sessionId);
    return existsSync(dir) ? readdirSync(dir).filter((f) => f === 'events.jsonl').map((f) => join(dir, f)) : [];
  },

  lineKind: (line) => (typeof line['type'] === 'string' ? line['type'] : '?'),
};
