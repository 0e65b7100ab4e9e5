/** Claude Code, headless (`claude -p`), against the Anthropic dialect (SPEC-2 §G). */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { anthropicDialect } from '../dialects/anthropic.js';
import type { AgentDriver } from './types.js';

/** Claude's project folder name: the absolute root with every non-alphanumeric as `-`. */
export function claudeProjectDir(home: string, projectRoot: string): string {
  return join(home, '.claude', 'projects', projectRoot.replace(/[^A-Za-z0-9]/g, '-'));
}

// acceptEdits lets the edit tools run; the shell commands the scripts use are
// allowed by prefix (as root, bypassPermissions would need IS_SANDBOX=1)
const PERMISSIONS = ['--permission-mode', 'acceptEdits', '--allowedTools', 'Bash(git add:*)', 'Bash(git commit:*)', 'Bash(sleep:*)'];

export const claudeCodeDriver: AgentDriver = {
  key: 'claude-code',
  displayName: 'Claude Code',
  dialect: anthropicDialect,
  agentCommitsRunHooks: true,
  subagents: true,
  backgroundSubagents: true,
  subagentTokens: 'separate',
  enableFiles: ['.claude/settings.json', '.entire/settings.json', '.entire/.gitignore'],
  turnEndVerb: 'stop',
  recordedUsagePerCall: (u) => ({ input_tokens: u.input, cache_creation_tokens: u.cacheCreation, cache_read_tokens: u.cacheRead, output_tokens: u.output }),

  prepareHome(home, projectRoots, apiKey) {
    mkdirSync(join(home, '.claude'), { recursive: true });
    // what an onboarded user has (only interactive runs need it; -p reads it too)
    const projects: Record<string, unknown> = {};
    for (const root of projectRoots) projects[root] = { hasTrustDialogAccepted: true, allowedTools: [] };
    writeFileSync(
      join(home, '.claude.json'),
      JSON.stringify({ hasCompletedOnboarding: true, customApiKeyResponses: { approved: [apiKey.slice(-20)], rejected: [] }, projects }, null, 2),
    );
  },

  env(serverUrl, apiKey) {
    return {
      ANTHROPIC_BASE_URL: serverUrl,
      ANTHROPIC_API_KEY: apiKey,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_ERROR_REPORTING: '1',
    };
  },

  startArgv: (bin, prompt, sessionId) => [bin, '-p', prompt, '--session-id', sessionId, ...PERMISSIONS],
  resumeArgv: (bin, sessionId, prompt) => [bin, '-p', prompt, '--resume', sessionId, ...PERMISSIONS],
  sessionIdOf: (_run, imposed) => imposed,
  answerOf: (run) => run.stdout.trim(),

  resumeHint: (sessionId) => `claude -r ${sessionId}`,
  restoreProblems(home, projectRoot, sessionId, restoredPath) {
    const want = join(claudeProjectDir(home, projectRoot), `${sessionId}.jsonl`);
    const problems: string[] = [];
    if (restoredPath !== want) problems.push(`restored to ${restoredPath}, claude -r looks in ${want}`);
    if (!existsSync(want)) problems.push(`${want} does not exist`);
    return problems;
  },

  transcriptFiles(home, sessionId) {
    const files: string[] = [];
    const projects = join(home, '.claude', 'projects');
    if (!existsSync(projects)) return files;
    for (const p of readdirSync(projects)) {
      const main = join(projects, p, `${sessionId}.jsonl`);
      if (existsSync(main)) files.push(main);
      const subs = join(projects, p, sessionId, 'subagents');
      if (existsSync(subs)) for (const f of readdirSync(subs)) if (f.endsWith('.jsonl')) files.push(join(subs, f));
    }
    return files;
  },

  lineKind(line) {
    const type = typeof line['type'] === 'string' ? line['type'] : '?';
    if (type === 'attachment') {
      const a = line['attachment'];
      const at = a !== null && typeof a === 'object' ? (a as Record<string, unknown>)['type'] : undefined;
      return `attachment/${typeof at === 'string' ? at : '?'}`;
    }
    return typeof line['subtype'] === 'string' ? `${type}/${line['subtype']}` : type;
  },
};
