/**
 * Codex CLI, headless (`codex exec --json …`), against the OpenAI Responses
 * dialect (SPEC-2 §G). Its home is `$HOME/.codex` (CODEX_HOME unset): a
 * `config.toml` with a custom provider pointing at our server and the
 * projects trusted. Hook approval (SPEC-2 §C.1) is per handler hash: the
 * shared scenarios run with `--dangerously-bypass-hook-trust`, and
 * test/real-agents/codex.test.ts checks the real approval path on its own.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { openaiResponsesDialect } from '../dialects/openai-responses.js';
import type { AgentDriver } from './types.js';

export const CODEX_KEY_VAR = 'ETIER_CODEX_API_KEY';

/** `config.toml` of a user of the scripted provider (trusting `projectRoots`). */
export function codexConfig(serverUrl: string, projectRoots: string[]): string {
  const lines = [
    'model = "gpt-5.5"',
    'model_provider = "local"',
    'check_for_update_on_startup = false',
    '',
    '[model_providers.local]',
    'name = "local"',
    `base_url = "${serverUrl}/v1"`,
    'wire_api = "responses"',
    `env_key = "${CODEX_KEY_VAR}"`,
    '',
    '[analytics]',
    'enabled = false',
  ];
  for (const root of projectRoots) lines.push('', `[projects.${JSON.stringify(root)}]`, 'trust_level = "trusted"');
  return lines.join('\n') + '\n';
}

/** The JSONL events `codex exec --json` printed. */
function events(stdout: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      out.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      /* not an event */
    }
  }
  return out;
}

/** Every rollout of a session under `sessions/` (dated directories). */
function rollouts(sessions: string, sessionId: string): string[] {
  const found: string[] = [];
  const walk = (dir: string, depth: number) => {
    if (!existsSync(dir)) return;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory() && depth < 3) walk(p, depth + 1);
      else if (e.isFile() && e.name.startsWith('rollout-') && e.name.endsWith(`-${sessionId}.jsonl`)) found.push(p);
    }
  };
  walk(sessions, 0);
  return found;
}

const EXEC_FLAGS = ['--json', '--dangerously-bypass-approvals-and-sandbox', '--dangerously-bypass-hook-trust'];

export const codexDriver: AgentDriver = {
  key: 'codex',
  displayName: 'Codex',
  dialect: openaiResponsesDialect,
  agentCommitsRunHooks: true,
  subagents: false,
  backgroundSubagents: false,
  subagentTokens: 'separate',
  enableFiles: ['.codex/hooks.json', '.entire/settings.json', '.entire/.gitignore'],
  turnEndVerb: 'stop',
  // cached tokens count inside OpenAI's input_tokens; Entire records input − cached (SPEC-2 §C.1)
  recordedUsagePerCall: (u) => ({ input_tokens: u.input, cache_creation_tokens: 0, cache_read_tokens: u.cacheRead, output_tokens: u.output }),

  prepareHome(home, projectRoots, _apiKey, serverUrl) {
    const dir = join(home, '.codex');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'config.toml'), codexConfig(serverUrl ?? 'http://127.0.0.1:9', projectRoots));
  },

  env(_serverUrl, apiKey) {
    return { [CODEX_KEY_VAR]: apiKey };
  },

  startArgv: (bin, prompt) => [bin, 'exec', ...EXEC_FLAGS, prompt],
  resumeArgv: (bin, sessionId, prompt) => [bin, 'exec', 'resume', ...EXEC_FLAGS, sessionId, prompt],
  sessionIdOf(run) {
    const started = events(run.stdout).find((e) => e['type'] === 'thread.started');
    return typeof started?.['thread_id'] === 'string' ? started['thread_id'] : '';
  },
  answerOf(run) {
    let answer = '';
    for (const e of events(run.stdout)) {
      const item = e['item'] as Record<string, unknown> | undefined;
      if (e['type'] === 'item.completed' && item?.['type'] === 'agent_message' && typeof item['text'] === 'string') answer = item['text'];
    }
    return answer;
  },

  resumeHint: (sessionId) => `codex resume -- ${sessionId}`,
  // SPEC-2 §C.1: a dated directory and name in local time, found by `codex exec resume <id>`
  restoreProblems(home, _projectRoot, sessionId, restoredPath) {
    const sessions = join(home, '.codex', 'sessions');
    const rel = relative(sessions, dirname(restoredPath));
    const problems: string[] = [];
    if (!/^\d{4}\/\d\d\/\d\d$/.test(rel) || !new RegExp(`^rollout-\\d{4}-\\d\\d-\\d\\dT\\d\\d-\\d\\d-\\d\\d-${sessionId}\\.jsonl$`).test(basename(restoredPath))) {
      problems.push(`restored to ${restoredPath}, expected ${sessions}/YYYY/MM/DD/rollout-<local time>-${sessionId}.jsonl`);
    }
    if (!existsSync(restoredPath)) problems.push(`${restoredPath} does not exist`);
    return problems;
  },

  transcriptFiles: (home, sessionId) => rollouts(join(home, '.codex', 'sessions'), sessionId),

  lineKind(line) {
    const type = typeof line['type'] === 'string' ? line['type'] : '?';
    const payload = line['payload'] as Record<string, unknown> | undefined;
    const sub = payload !== undefined && typeof payload['type'] === 'string' ? payload['type'] : undefined;
    return sub === undefined || (type !== 'event_msg' && type !== 'response_item') ? type : `${type}/${sub}`;
  },
};
