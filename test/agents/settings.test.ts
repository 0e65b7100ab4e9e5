import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupAll, FIXTURES, tempDir } from '../helpers/repo.js';
import { getAgent } from '../../src/agents/registry.js';
import { isEntireError } from '../../src/errors.js';

afterAll(cleanupAll);

const claude = await getAgent('claude-code');
const gemini = await getAgent('gemini');
const cursor = await getAgent('cursor');

function read(root: string, rel: string): string {
  return readFileSync(join(root, rel), 'utf8');
}
function readJson(root: string, rel: string): any {
  return JSON.parse(read(root, rel));
}
function write(root: string, rel: string, value: unknown): void {
  mkdirSync(join(root, rel, '..'), { recursive: true });
  writeFileSync(join(root, rel), typeof value === 'string' ? value : JSON.stringify(value, null, 2) + '\n');
}
function commands(settings: any, event: string): string[] {
  return (settings.hooks?.[event] ?? []).flatMap((g: any) => (g.hooks ?? []).map((h: any) => h.command));
}

/** The settings block of hook-inputs.md's Claude section, as a fresh install must write it. */
function expectedClaudeSettings(): string {
  const md = readFileSync(join(FIXTURES, 'transcripts', 'hook-inputs.md'), 'utf8');
  const block = /## 1\. Claude Code[\s\S]*?```json\n([\s\S]*?)```/.exec(md)?.[1];
  if (!block) throw new Error('Claude settings block not found in hook-inputs.md');
  return JSON.stringify(JSON.parse(block), null, 2) + '\n';
}

describe('Claude Code settings (SPEC §7.1)', () => {
  it('a fresh install writes exactly the documented block', () => {
    const root = tempDir();
    const r = claude.installHooks(root);
    expect(r).toEqual({ file: '.claude/settings.json', path: join(root, '.claude/settings.json'), changed: true });
    expect(read(root, '.claude/settings.json')).toBe(expectedClaudeSettings());
    expect(Object.keys(readJson(root, '.claude/settings.json').hooks)).toEqual([
      'SessionStart',
      'SessionEnd',
      'UserPromptSubmit',
      'Stop',
      'PreToolUse',
      'PostToolUse',
    ]);
    expect(claude.hooksInstalled(root)).toBe(true);
  });

  it('is idempotent: a second install changes nothing', () => {
    const root = tempDir();
    claude.installHooks(root);
    const first = read(root, '.claude/settings.json');
    expect(claude.installHooks(root).changed).toBe(false);
    expect(read(root, '.claude/settings.json')).toBe(first);
  });

  it('merges: keeps unknown keys, foreign hooks and deny rules, reuses same-matcher groups', () => {
    const root = tempDir();
    write(root, '.claude/settings.json', {
      model: 'opus',
      env: { FOO: '1' },
      hooks: {
        Notification: [{ matcher: '', hooks: [{ type: 'command', command: 'notify-send hi' }] }],
        Stop: [{ matcher: '', hooks: [{ type: 'command', command: 'make lint' }] }],
        PostToolUse: [{ matcher: 'Task', hooks: [{ type: 'command', command: 'echo task', timeout: 5 }] }],
      },
      permissions: { allow: ['Bash(ls:*)'], deny: ['Read(./secrets/**)'] },
    });
    expect(claude.installHooks(root).changed).toBe(true);
    const s = readJson(root, '.claude/settings.json');
    expect(Object.keys(s)).toEqual(['model', 'env', 'hooks', 'permissions']);
    expect(s.model).toBe('opus');
    expect(s.hooks.Notification).toEqual([{ matcher: '', hooks: [{ type: 'command', command: 'notify-send hi' }] }]);
    expect(s.hooks.Stop).toEqual([
      { matcher: '', hooks: [{ type: 'command', command: 'make lint' }, { type: 'command', command: 'entire hooks claude-code stop' }] },
    ]);
    expect(s.hooks.PostToolUse).toEqual([
      {
        matcher: 'Task',
        hooks: [
          { type: 'command', command: 'echo task', timeout: 5 },
          { type: 'command', command: 'entire hooks claude-code post-task' },
        ],
      },
      { matcher: 'TodoWrite', hooks: [{ type: 'command', command: 'entire hooks claude-code post-todo' }] },
    ]);
    expect(s.permissions).toEqual({ allow: ['Bash(ls:*)'], deny: ['Read(./secrets/**)', 'Read(./.entire/metadata/**)'] });
  });

  it('recognises the legacy `hooks claudecode stop` spelling and replaces it instead of adding a second Stop hook', () => {
    const root = tempDir();
    write(root, '.claude/settings.json', {
      hooks: { Stop: [{ matcher: '', hooks: [{ type: 'command', command: 'entire hooks claudecode stop' }] }] },
    });
    expect(claude.hooksInstalled(root)).toBe(true);
    claude.installHooks(root);
    const s = readJson(root, '.claude/settings.json');
    expect(commands(s, 'Stop')).toEqual(['entire hooks claude-code stop']);
    expect(commands(s, 'SessionStart')).toEqual(['entire hooks claude-code session-start']);
  });

  it('removes duplicates of our own commands', () => {
    const root = tempDir();
    const ours = { type: 'command', command: 'entire hooks claude-code stop' };
    write(root, '.claude/settings.json', { hooks: { Stop: [{ matcher: '', hooks: [ours, { type: 'command', command: 'entire hooks claudecode stop' }] }] } });
    claude.installHooks(root);
    expect(commands(readJson(root, '.claude/settings.json'), 'Stop')).toEqual(['entire hooks claude-code stop']);
  });

  it('uninstall removes exactly ours (any spelling) and the deny rule, keeping everything else', () => {
    const root = tempDir();
    write(root, '.claude/settings.json', {
      model: 'opus',
      hooks: {
        Stop: [{ matcher: '', hooks: [{ type: 'command', command: 'make lint' }] }],
        SessionEnd: [{ matcher: '', hooks: [{ type: 'command', command: 'entire hooks claudecode session-end' }] }],
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'entire-like-but-foreign' }] }],
        PostToolUse: [{ matcher: 'Write', hooks: [{ type: 'command', command: 'entire hooks claude-code post-file-edit' }] }],
      },
      permissions: { deny: ['Read(./secrets/**)'] },
    });
    claude.installHooks(root);
    const r = claude.uninstallHooks(root);
    expect(r).toEqual({ files: ['.claude/settings.json'], changed: true });
    expect(readJson(root, '.claude/settings.json')).toEqual({
      model: 'opus',
      hooks: {
        Stop: [{ matcher: '', hooks: [{ type: 'command', command: 'make lint' }] }],
        PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'entire-like-but-foreign' }] }],
      },
      permissions: { deny: ['Read(./secrets/**)'] },
    });
    expect(claude.hooksInstalled(root)).toBe(false);
    expect(claude.uninstallHooks(root).changed).toBe(false);
  });

  it('uninstall of a fresh install leaves an empty object; a missing file stays missing', () => {
    const root = tempDir();
    expect(claude.uninstallHooks(root)).toEqual({ files: [], changed: false });
    expect(existsSync(join(root, '.claude'))).toBe(false);
    claude.installHooks(root);
    claude.uninstallHooks(root);
    expect(read(root, '.claude/settings.json')).toBe('{}\n');
  });

  it('--local writes .claude/settings.local.json; detection and uninstall cover it', () => {
    const root = tempDir();
    const r = claude.installHooks(root, { local: true });
    expect(r.file).toBe('.claude/settings.local.json');
    expect(existsSync(join(root, '.claude/settings.json'))).toBe(false);
    expect(commands(readJson(root, '.claude/settings.local.json'), 'Stop')).toEqual(['entire hooks claude-code stop']);
    expect(claude.hooksInstalled(root)).toBe(true);
    expect(claude.uninstallHooks(root).files).toEqual(['.claude/settings.local.json']);
    expect(claude.hooksInstalled(root)).toBe(false);
  });

  it('force reinstalls ours at the end of their groups', () => {
    const root = tempDir();
    write(root, '.claude/settings.json', {
      hooks: { Stop: [{ matcher: '', hooks: [{ type: 'command', command: 'entire hooks claude-code stop' }, { type: 'command', command: 'make lint' }] }] },
    });
    expect(claude.installHooks(root, { force: true }).changed).toBe(true);
    expect(commands(readJson(root, '.claude/settings.json'), 'Stop')).toEqual(['make lint', 'entire hooks claude-code stop']);
  });

  it('a settings file that is not valid JSON is an INVALID_SETTINGS error and nothing is written', () => {
    const root = tempDir();
    write(root, '.claude/settings.json', '{ "hooks": { ');
    let err: unknown;
    try {
      claude.installHooks(root);
    } catch (e) {
      err = e;
    }
    expect(isEntireError(err, 'INVALID_SETTINGS')).toBe(true);
    expect((err as Error).message).toBe(`${join(root, '.claude/settings.json')} is not valid JSON`);
    expect(read(root, '.claude/settings.json')).toBe('{ "hooks": { ');
    expect(claude.hooksInstalled(root)).toBe(false);
    expect(() => claude.uninstallHooks(root)).toThrow(/is not valid JSON/);
    write(root, '.claude/settings.json', '[]');
    expect(() => claude.installHooks(root)).toThrow(/is not valid JSON/);
  });

  it('a hooks value of the wrong type is refused, not overwritten', () => {
    const root = tempDir();
    write(root, '.claude/settings.json', { hooks: { Stop: 'entire hooks claude-code stop' } });
    expect(() => claude.installHooks(root)).toThrow(/"Stop" must be an array/);
    expect(readJson(root, '.claude/settings.json')).toEqual({ hooks: { Stop: 'entire hooks claude-code stop' } });
  });
});

describe('Gemini CLI settings (SPEC §7.2)', () => {
  it('fresh install: hooksConfig.enabled and the five named entries', () => {
    const root = tempDir();
    expect(gemini.installHooks(root)).toMatchObject({ file: '.gemini/settings.json', changed: true });
    expect(readJson(root, '.gemini/settings.json')).toEqual({
      hooksConfig: { enabled: true },
      hooks: {
        SessionStart: [{ hooks: [{ name: 'entire-session-start', type: 'command', command: 'entire hooks gemini session-start' }] }],
        SessionEnd: [
          { matcher: 'exit', hooks: [{ name: 'entire-session-end-exit', type: 'command', command: 'entire hooks gemini session-end' }] },
          { matcher: 'logout', hooks: [{ name: 'entire-session-end-logout', type: 'command', command: 'entire hooks gemini session-end' }] },
        ],
        BeforeAgent: [{ hooks: [{ name: 'entire-before-agent', type: 'command', command: 'entire hooks gemini before-agent' }] }],
        AfterAgent: [{ hooks: [{ name: 'entire-after-agent', type: 'command', command: 'entire hooks gemini after-agent' }] }],
      },
    });
    expect(read(root, '.gemini/settings.json').endsWith('}\n')).toBe(true);
    expect(gemini.hooksInstalled(root)).toBe(true);
    expect(gemini.installHooks(root).changed).toBe(false);
  });

  it('keeps Go-installed no-op entries on install, removes every entry of ours on uninstall', () => {
    const root = tempDir();
    write(root, '.gemini/settings.json', {
      theme: 'dark',
      hooksConfig: { enabled: true, notifications: true },
      hooks: {
        BeforeModel: [{ hooks: [{ name: 'entire-before-model', type: 'command', command: 'entire hooks gemini before-model' }] }],
        AfterAgent: [{ hooks: [{ name: 'mine', type: 'command', command: './my-hook.sh' }] }],
      },
    });
    gemini.installHooks(root);
    const s = readJson(root, '.gemini/settings.json');
    expect(s.theme).toBe('dark');
    expect(commands(s, 'BeforeModel')).toEqual(['entire hooks gemini before-model']);
    expect(commands(s, 'AfterAgent')).toEqual(['./my-hook.sh', 'entire hooks gemini after-agent']);
    expect(gemini.uninstallHooks(root).changed).toBe(true);
    expect(readJson(root, '.gemini/settings.json')).toEqual({
      theme: 'dark',
      hooksConfig: { enabled: true, notifications: true },
      hooks: { AfterAgent: [{ hooks: [{ name: 'mine', type: 'command', command: './my-hook.sh' }] }] },
    });
    expect(gemini.hooksInstalled(root)).toBe(false);
  });

  it('uninstall of a fresh install removes the hooks switch too', () => {
    const root = tempDir();
    gemini.installHooks(root);
    gemini.uninstallHooks(root);
    expect(read(root, '.gemini/settings.json')).toBe('{}\n');
  });

  it('invalid JSON → INVALID_SETTINGS, file untouched', () => {
    const root = tempDir();
    write(root, '.gemini/settings.json', 'nope');
    expect(() => gemini.installHooks(root)).toThrow(/\.gemini\/settings\.json is not valid JSON/);
    expect(read(root, '.gemini/settings.json')).toBe('nope');
  });
});

describe('Cursor hooks.json (SPEC §7.3)', () => {
  it('fresh install, idempotence, merge and uninstall', () => {
    const root = tempDir();
    expect(cursor.installHooks(root)).toMatchObject({ file: '.cursor/hooks.json', changed: true });
    expect(read(root, '.cursor/hooks.json')).toBe(
      JSON.stringify(
        {
          version: 1,
          hooks: {
            sessionStart: [{ command: 'entire hooks cursor session-start' }],
            beforeSubmitPrompt: [{ command: 'entire hooks cursor before-submit-prompt' }],
            stop: [{ command: 'entire hooks cursor stop' }],
            sessionEnd: [{ command: 'entire hooks cursor session-end' }],
          },
        },
        null,
        2,
      ) + '\n',
    );
    expect(cursor.installHooks(root).changed).toBe(false);
    expect(cursor.hooksInstalled(root)).toBe(true);

    const other = tempDir();
    write(other, '.cursor/hooks.json', { hooks: { stop: [{ command: './audit.sh' }], afterFileEdit: [{ command: 'fmt' }] } });
    cursor.installHooks(other);
    const s = readJson(other, '.cursor/hooks.json');
    expect(Object.keys(s)).toEqual(['version', 'hooks']);
    expect(s.hooks.stop).toEqual([{ command: './audit.sh' }, { command: 'entire hooks cursor stop' }]);
    cursor.uninstallHooks(other);
    expect(readJson(other, '.cursor/hooks.json')).toEqual({ version: 1, hooks: { stop: [{ command: './audit.sh' }], afterFileEdit: [{ command: 'fmt' }] } });
    expect(cursor.hooksInstalled(other)).toBe(false);
  });
});
