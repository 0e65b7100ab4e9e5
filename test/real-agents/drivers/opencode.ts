/**
 * OpenCode, headless (`opencode run --format json …`), against the OpenAI
 * chat-completions dialect through an `@ai-sdk/openai-compatible` provider
 * `local` (SPEC-2 §G). Its sessions live in a database under
 * `$XDG_DATA_HOME/opencode`; the transcript is what `opencode export` prints.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { openAiChatDialect } from '../dialects/openai-chat.js';
import { releaseLocksLeftBy } from '../../../src/agents/opencode/locks.js';
import type { AgentDriver } from './types.js';

/** The CLI the suite runs (startArgv hears it first): restoreProblems exports with it. */
let lastBin = '';

/** The XDG directories the world gives a HOME (world.ts). */
function xdgEnv(home: string): Record<string, string> {
  return {
    HOME: home,
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
  };
}

// npm offline: OpenCode `npm install`s its plugin package into each config dir it loads (SPEC-2
// §C.2), ≈ 20 s per run in a fresh repository with the registry reachable; offline it is one
// WARN at once, as SPEC-2 §G describes the run (our plugin needs nothing from that package)
const QUIET_ENV = { OPENCODE_DISABLE_MODELS_FETCH: '1', OPENCODE_DISABLE_AUTOUPDATE: '1', npm_config_offline: 'true' };

/** `opencode run --format json` prints one JSON event per line. */
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

export const openCodeDriver: AgentDriver = {
  key: 'opencode',
  displayName: 'OpenCode',
  dialect: openAiChatDialect({ models: ['local-model'] }),
  agentCommitsRunHooks: true,
  subagents: true,
  backgroundSubagents: false,
  subagentTokens: 'separate',
  enableFiles: ['.opencode/plugins/entire.ts', '.entire/settings.json', '.entire/.gitignore'],
  turnEndVerb: 'turn-end',
  // OpenCode records input without the cached tokens; OpenAI's usage has no cache writes
  recordedUsagePerCall: (u) => ({ input_tokens: u.input + u.cacheCreation, cache_creation_tokens: 0, cache_read_tokens: u.cacheRead, output_tokens: u.output }),
  // OpenCode names a model by its provider: the config's `local` provider
  recordedModel: (sent) => `local/${sent}`,

  prepareHome(home) {
    const dir = join(home, '.config', 'opencode');
    mkdirSync(dir, { recursive: true });
    // the server's URL is known only to env(): the config reads it from there
    const config = {
      $schema: 'https://opencode.ai/config.json',
      provider: {
        local: {
          npm: '@ai-sdk/openai-compatible',
          name: 'Local',
          options: { baseURL: '{env:ETIER_OPENAI_BASE_URL}', apiKey: '{env:ETIER_OPENAI_API_KEY}' },
          models: { 'local-model': { name: 'Local Model', tool_call: true } },
        },
      },
      model: 'local/local-model',
      autoupdate: false,
      share: 'disabled',
    };
    writeFileSync(join(dir, 'opencode.json'), JSON.stringify(config, null, 2));
  },

  env(serverUrl, apiKey) {
    return { ETIER_OPENAI_BASE_URL: `${serverUrl}/v1`, ETIER_OPENAI_API_KEY: apiKey, ...QUIET_ENV };
  },

  // the prompt as words: `opencode run` quotes a message argument that holds spaces (SPEC-2 §C.2)
  startArgv: (bin, prompt) => {
    lastBin = bin;
    return [bin, 'run', '--format', 'json', ...prompt.split(' ')];
  },
  resumeArgv: (bin, sessionId, prompt) => {
    lastBin = bin;
    return [bin, 'run', '--format', 'json', '--session', sessionId, ...prompt.split(' ')];
  },
  sessionIdOf(run) {
    const sid = events(run.stdout).find((e) => typeof e['sessionID'] === 'string')?.['sessionID'];
    return typeof sid === 'string' ? sid : '';
  },
  answerOf(run) {
    return events(run.stdout)
      .filter((e) => e['type'] === 'text')
      .map((e) => String((e['part'] as { text?: unknown } | undefined)?.text ?? ''))
      .join('\n');
  },

  resumeHint: (sessionId) => `opencode -s ${sessionId}`,
  // the session is in OpenCode's database of the new HOME, under its own id
  restoreProblems(home, _projectRoot, sessionId, restoredPath) {
    const problems: string[] = [];
    if (!restoredPath.includes('opencode import')) problems.push(`restored to ${restoredPath}, expected OpenCode's import`);
    const env = { ...process.env, ...xdgEnv(home), ...QUIET_ENV };
    const from = Date.now();
    const r = spawnSync(lastBin, ['export', sessionId], { cwd: home, env, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
    // this check is not the user's: it leaves no npm-install lock for the resumed run to wait out
    // (OpenCode starts one in the new HOME's config dir and exits before it is done, docs/agents.md)
    releaseLocksLeftBy(env, from, Date.now());
    if (r.status !== 0) problems.push(`opencode export ${sessionId} in the new HOME failed (${r.status}): ${r.stderr.slice(-500)}`);
    else if (!r.stdout.includes('ETIER-STD')) problems.push('the imported session lacks the first prompt');
    return problems;
  },

  // The transcript "as it stood at turn end" is the export Entire staged then (OpenCode moves the
  // session's `time.updated` after the turn, so a later export differs in its header): the
  // staged copies in the world's repositories.
  transcriptFiles(home, sessionId) {
    const base = dirname(home);
    const files: string[] = [];
    for (const d of readdirSync(base)) {
      const f = join(base, d, '.entire', 'tmp', `${sessionId}.json`);
      if (existsSync(f)) files.push(f);
    }
    return files;
  },

  lineKind(line) {
    return typeof line['type'] === 'string' ? line['type'] : '?';
  },
};

