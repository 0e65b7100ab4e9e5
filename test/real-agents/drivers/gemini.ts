/** Gemini CLI, headless (`gemini -p … -o json`), against the Gemini dialect (SPEC-2 §G). */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { geminiDialect } from '../dialects/gemini.js';
import type { AgentDriver } from './types.js';

/** The project folder name Gemini picks for a root in a fresh home (SPEC-2 §B.7). */
export function geminiSlug(projectRoot: string): string {
  return basename(projectRoot)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '-');
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function parseJsonOutput(stdout: string): Record<string, unknown> {
  const start = stdout.indexOf('{');
  const end = stdout.lastIndexOf('}');
  if (start < 0 || end < start) return {};
  try {
    return JSON.parse(stdout.slice(start, end + 1)) as Record<string, unknown>;
  } catch {
    return {};
  }
}

export const geminiDriver: AgentDriver = {
  key: 'gemini',
  displayName: 'Gemini CLI',
  dialect: geminiDialect,
  agentCommitsRunHooks: false,
  subagents: false,
  backgroundSubagents: false,
  subagentTokens: 'separate',
  enableFiles: ['.gemini/settings.json', '.entire/settings.json', '.entire/.gitignore'],
  turnEndVerb: 'after-agent',
  // Gemini's session file counts cached tokens inside `input` (promptTokenCount); B.7 records that
  recordedUsagePerCall: (u) => ({ input_tokens: u.input + u.cacheRead, cache_creation_tokens: 0, cache_read_tokens: u.cacheRead, output_tokens: u.output }),

  prepareHome(home, projectRoots) {
    const dir = join(home, '.gemini');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'settings.json'),
      JSON.stringify(
        {
          security: { auth: { selectedType: 'gemini-api-key' } },
          privacy: { usageStatisticsEnabled: false },
          general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
        },
        null,
        2,
      ),
    );
    // project settings (and so Entire's hooks) load only in a trusted folder (B.8)
    const trusted: Record<string, string> = {};
    for (const root of projectRoots) trusted[root] = 'TRUST_FOLDER';
    writeFileSync(join(dir, 'trustedFolders.json'), JSON.stringify(trusted, null, 2));
  },

  env(serverUrl, apiKey) {
    return { GOOGLE_GEMINI_BASE_URL: serverUrl, GEMINI_API_KEY: apiKey };
  },

  // an explicit -m keeps the CLI from calling other models (router, classifier)
  startArgv: (bin, prompt) => [bin, '-p', prompt, '--approval-mode', 'yolo', '-m', 'gemini-2.5-flash', '-o', 'json'],
  resumeArgv: (bin, sessionId, prompt) => [bin, '--resume', sessionId, '-p', prompt, '--approval-mode', 'yolo', '-m', 'gemini-2.5-flash', '-o', 'json'],
  sessionIdOf(run) {
    const sid = parseJsonOutput(run.stdout)['session_id'];
    return typeof sid === 'string' ? sid : '';
  },
  answerOf(run) {
    const r = parseJsonOutput(run.stdout)['response'];
    return typeof r === 'string' ? r : '';
  },

  resumeHint: (sessionId) => `gemini --resume ${sessionId}`,
  // SPEC-2 §B.8: the project's slug folder (registered in projects.json), a dated JSONL name
  restoreProblems(home, projectRoot, sessionId, restoredPath) {
    const problems: string[] = [];
    const slug = geminiSlug(projectRoot);
    const chats = join(home, '.gemini', 'tmp', slug, 'chats');
    const name = new RegExp(`^session-\\d{4}-\\d\\d-\\d\\dT\\d\\d-\\d\\d-${escapeRe(sessionId.slice(0, 8))}\\.jsonl$`);
    if (dirname(restoredPath) !== chats || !name.test(basename(restoredPath))) {
      problems.push(`restored to ${restoredPath}, expected ${chats}/session-<YYYY-MM-DDTHH-MM>-${sessionId.slice(0, 8)}.jsonl`);
    }
    if (!existsSync(restoredPath)) problems.push(`${restoredPath} does not exist`);
    let projects: unknown;
    try {
      projects = (JSON.parse(readFileSync(join(home, '.gemini', 'projects.json'), 'utf8')) as { projects?: Record<string, unknown> }).projects?.[projectRoot];
    } catch (e) {
      projects = `unreadable: ${String(e)}`;
    }
    if (projects !== slug) problems.push(`~/.gemini/projects.json maps ${projectRoot} to ${JSON.stringify(projects)}, expected "${slug}"`);
    return problems;
  },

  transcriptFiles(home, sessionId) {
    const files: string[] = [];
    const tmp = join(home, '.gemini', 'tmp');
    if (!existsSync(tmp)) return files;
    for (const p of readdirSync(tmp)) {
      const chats = join(tmp, p, 'chats');
      if (!existsSync(chats)) continue;
      for (const f of readdirSync(chats)) {
        if (f.endsWith(`-${sessionId.slice(0, 8)}.jsonl`) || f === `session-${sessionId}.jsonl`) files.push(join(chats, f));
      }
    }
    return files;
  },

  lineKind(line) {
    if (typeof line['sessionId'] === 'string' && typeof line['startTime'] === 'string') return 'metadata';
    if ('$set' in line) return '$set';
    if ('$rewindTo' in line) return '$rewindTo';
    return typeof line['type'] === 'string' ? line['type'] : '?';
  },
};
