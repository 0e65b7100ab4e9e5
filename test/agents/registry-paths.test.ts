import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupAll, tempDir } from '../helpers/repo.js';
import { AGENT_KEYS, agentByDisplayName, agentInfo, getAgent, isAgentKey } from '../../src/agents/registry.js';
import { sanitizePathForDir, toRepoRelative } from '../../src/agents/kit/home-paths.js';
import { cleanPrompt } from '../../src/agents/kit/text.js';
import { cleanCursorPrompt } from '../../src/agents/cursor/text.js';
import { EntireError } from '../../src/errors.js';

afterAll(cleanupAll);

const savedEnv = { ...process.env };
afterEach(() => {
  for (const k of ['HOME', 'ENTIRE_TEST_CLAUDE_PROJECT_DIR', 'ENTIRE_TEST_GEMINI_PROJECT_DIR', 'ENTIRE_TEST_CURSOR_PROJECT_DIR']) {
    if (savedEnv[k] === undefined) delete process.env[k];
    else process.env[k] = savedEnv[k];
  }
});

describe('registry', () => {
  it('lists the agents in support order', () => {
    expect(AGENT_KEYS.slice(0, 3)).toEqual(['claude-code', 'gemini', 'cursor']);
    expect(AGENT_KEYS).toContain('codex');
    expect(AGENT_KEYS).toContain('opencode');
    expect(AGENT_KEYS).toContain('copilot-cli');
    expect(isAgentKey('gemini')).toBe(true);
    expect(isAgentKey('no-such-agent')).toBe(false);
  });

  it.each([
    ['claude-code', 'Claude Code', 'jsonl', 'jsonl', 'claude -r s1'],
    ['gemini', 'Gemini CLI', 'jsonl', 'json', 'gemini --resume s1'],
    ['cursor', 'Cursor', 'jsonl', 'jsonl', 'cursor-agent --resume s1'],
    ['copilot-cli', 'Copilot CLI', 'jsonl', 'jsonl', 'copilot --resume=s1'],
    ['codex', 'Codex', 'jsonl', 'jsonl', 'codex resume -- s1'],
  ] as const)('getAgent(%s) loads the adapter', async (key, name, format, legacyFormat, resume) => {
    const a = await getAgent(key);
    expect(a.key).toBe(key);
    expect(a.displayName).toBe(name);
    // the storage format is a file's: Gemini's legacy `.json` documents are stored as documents
    expect(a.transcriptFormat('/t/session-x.jsonl')).toBe(format);
    expect(a.transcriptFormat('/t/session-x.json')).toBe(legacyFormat);
    expect(a.resumeArgv('s1').join(' ')).toBe(resume);
    expect(agentByDisplayName(name)?.key).toBe(key);
    expect(agentInfo(key).displayName).toBe(name);
  });

  it('unknown keys throw UNKNOWN_AGENT with a clear message', async () => {
    await expect(getAgent('no-such-agent')).rejects.toBeInstanceOf(EntireError);
    await expect(getAgent('no-such-agent')).rejects.toMatchObject({ code: 'UNKNOWN_AGENT', message: `Unknown agent "no-such-agent" (known agents: ${AGENT_KEYS.join(', ')}).` });
    expect(() => agentInfo('x')).toThrow(`Unknown agent "x" (known agents: ${AGENT_KEYS.join(', ')}).`);
    expect(agentByDisplayName('Agent')).toBeUndefined();
  });

  it('hook verbs per agent (SPEC §7)', async () => {
    expect((await getAgent('claude-code')).hookVerbs).toEqual(
      expect.arrayContaining(['session-start', 'session-end', 'user-prompt-submit', 'stop', 'pre-task', 'post-task', 'post-todo']),
    );
    expect((await getAgent('gemini')).hookVerbs).toEqual(
      expect.arrayContaining(['before-agent', 'after-agent', 'before-model', 'after-model', 'before-tool-selection', 'before-tool', 'after-tool', 'pre-compress', 'notification']),
    );
    expect((await getAgent('cursor')).hookVerbs).toEqual(
      expect.arrayContaining(['session-start', 'before-submit-prompt', 'stop', 'session-end']),
    );
  });
});

describe('transcript locations', () => {
  it('Claude: ~/.claude/projects/<root with non-alphanumerics as "-">/<sid>.jsonl; a stdin path inside the root preferred; env override', async () => {
    const home = tempDir();
    process.env['HOME'] = home;
    delete process.env['ENTIRE_TEST_CLAUDE_PROJECT_DIR'];
    const claude = await getAgent('claude-code');
    const expected = join(home, '.claude', 'projects', '-home-dev-projects-acme-api', 'sid-1.jsonl');
    expect(claude.restorePath('/home/dev/projects/acme-api', 'sid-1')).toBe(expected);
    expect(claude.resolveTranscriptPath('/home/dev/projects/acme-api', 'sid-1')).toBe(expected);
    // SPEC-2 §A.5: a stdin path is used only inside the agent's transcript root
    const inside = join(home, '.claude', 'projects', 'elsewhere', 't.jsonl');
    expect(claude.resolveTranscriptPath('/home/dev/projects/acme-api', 'sid-1', inside)).toBe(inside);
    const why: string[] = [];
    expect(claude.resolveTranscriptPath('/home/dev/projects/acme-api', 'sid-1', '/given/t.jsonl', (w) => why.push(w))).toBe(expected);
    expect(claude.resolveTranscriptPath('/home/dev/projects/acme-api', 'sid-1', '.bashrc', (w) => why.push(w))).toBe(expected);
    expect(why).toEqual([expect.stringContaining('outside'), 'transcript path is not absolute']);
    process.env['CLAUDE_CONFIG_DIR'] = join(home, 'cfg');
    expect(claude.restorePath('/x', 'sid-3')).toBe(join(home, 'cfg', 'projects', '-x', 'sid-3.jsonl'));
    delete process.env['CLAUDE_CONFIG_DIR'];
    process.env['ENTIRE_TEST_CLAUDE_PROJECT_DIR'] = '/override';
    expect(claude.restorePath('/x', 'sid-2')).toBe('/override/sid-2.jsonl');
  });

  it('Gemini: stdin path, else the oldest chats/session-*-<sid8>.jsonl, else the newest legacy .json, else none', async () => {
    const dir = tempDir();
    process.env['ENTIRE_TEST_GEMINI_PROJECT_DIR'] = dir;
    const gemini = await getAgent('gemini');
    const sid = '5b2e9d41-7c3a-4f68-b1d0-93e6a4c8f215';
    expect(gemini.resolveTranscriptPath('/r', sid)).toBe('');
    mkdirSync(dir, { recursive: true });
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(dir, 'session-2026-02-13T08-40-5b2e9d41.json'), '{}');
    writeFileSync(join(dir, 'session-2026-02-14T08-40-5b2e9d41.json'), '{}');
    writeFileSync(join(dir, 'session-2026-02-15T08-40-aaaaaaaa.json'), '{}');
    expect(gemini.resolveTranscriptPath('/r', sid)).toBe(join(dir, 'session-2026-02-14T08-40-5b2e9d41.json'));
    // JSONL (0.61 on) wins; of several, the oldest: a resume leaves a newer stray start-up file
    writeFileSync(join(dir, 'session-2026-02-16T08-40-5b2e9d41.jsonl'), '{}\n');
    writeFileSync(join(dir, 'session-2026-02-17T08-40-5b2e9d41.jsonl'), '{}\n');
    expect(gemini.resolveTranscriptPath('/r', sid)).toBe(join(dir, 'session-2026-02-16T08-40-5b2e9d41.jsonl'));
    expect(gemini.resolveTranscriptPath('/r', sid, join(dir, 't.json'))).toBe(join(dir, 't.json'));
    // outside the root: the computed path instead
    expect(gemini.resolveTranscriptPath('/r', sid, '/t.json')).toBe(join(dir, 'session-2026-02-16T08-40-5b2e9d41.jsonl'));
  });

  it('sanitises every non-alphanumeric character', () => {
    expect(sanitizePathForDir('/home/dev/my.repo_x')).toBe('-home-dev-my-repo-x');
  });
});

describe('toRepoRelative', () => {
  it('makes paths repo-relative, drops outside paths, the root and .entire/, dedups in order', () => {
    const root = '/home/dev/projects/acme-api';
    expect(
      toRepoRelative(
        [
          `${root}/src/a.ts`,
          '/home/dev/projects/acme-api-other/x.ts',
          '/etc/passwd',
          `${root}/.entire/metadata/s/full.jsonl`,
          `${root}/.entire`,
          `${root}/.entirely.txt`,
          root,
          'src/b.ts',
          './src/a.ts',
          `${root}/src/../README.md`,
          '',
        ],
        root,
      ),
    ).toEqual(['src/a.ts', '.entirely.txt', 'src/b.ts', 'README.md']);
  });

  it('resolves relative paths against cwd when given', () => {
    expect(toRepoRelative(['x.ts', '../y.ts'], '/r', { cwd: '/r/sub' })).toEqual(['sub/x.ts', 'y.ts']);
  });

  it('matches a root reached through a symlink', () => {
    const base = tempDir();
    mkdirSync(join(base, 'real'));
    symlinkSync(join(base, 'real'), join(base, 'link'));
    expect(toRepoRelative([join(base, 'real', 'f.ts')], join(base, 'link'))).toEqual(['f.ts']);
  });
});

describe('prompt cleaning', () => {
  it('removes <ide_*> elements with attributes and the named system elements', () => {
    expect(cleanPrompt('<ide_selection path="a">sel\n</ide_selection>\nDo it')).toBe('Do it');
    expect(cleanPrompt('  plain  ')).toBe('plain');
    expect(cleanPrompt('<b>bold</b> stays')).toBe('<b>bold</b> stays');
    expect(cleanPrompt('<system-reminder>a</system-reminder>x<system-reminder>b</system-reminder>')).toBe('x');
  });

  it('Cursor: leading <timestamp> dropped, <user_query> unwrapped', () => {
    expect(cleanCursorPrompt('<timestamp>t</timestamp>\n<user_query>\nhello\n</user_query>')).toBe('hello');
    expect(cleanCursorPrompt('see <timestamp>t</timestamp>')).toBe('see <timestamp>t</timestamp>');
  });
});
