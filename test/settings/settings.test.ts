import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isEntireError } from '../../src/errors.js';
import {
  ensureEntireGitignore,
  isEnabled,
  loadSettings,
  localSettingsPath,
  mergeSettings,
  projectSettingsPath,
  pushSessionsEnabled,
  saveSettings,
} from '../../src/settings/settings.js';
import { tempDir } from '../helpers/repo.js';

function root(files: { project?: string; local?: string } = {}): string {
  const r = tempDir();
  mkdirSync(join(r, '.entire'), { recursive: true });
  if (files.project !== undefined) writeFileSync(projectSettingsPath(r), files.project);
  if (files.local !== undefined) writeFileSync(localSettingsPath(r), files.local);
  return r;
}

describe('loading and merging', () => {
  it('no settings file → not configured, not enabled', () => {
    const l = loadSettings(root());
    expect(l.configured).toBe(false);
    expect(isEnabled(l)).toBe(false);
  });

  it('a settings file without "enabled" → enabled', () => {
    const l = loadSettings(root({ project: '{"strategy":"manual-commit"}' }));
    expect(l.configured).toBe(true);
    expect(isEnabled(l)).toBe(true);
  });

  it('local overrides project per key (strategy/log_level only when non-empty, strategy_options shallow-merged)', () => {
    const l = loadSettings(
      root({
        project: JSON.stringify({
          strategy: 'manual-commit',
          enabled: true,
          log_level: 'debug',
          local_dev: true,
          strategy_options: { push_sessions: true, summarize: { enabled: true } },
        }),
        local: JSON.stringify({ strategy: '', log_level: '', enabled: false, local_dev: false, strategy_options: { push_sessions: false } }),
      }),
    );
    expect(l.settings).toEqual({
      strategy: 'manual-commit',
      enabled: false,
      log_level: 'debug',
      local_dev: false,
      strategy_options: { push_sessions: false, summarize: { enabled: true } },
    });
    expect(isEnabled(l)).toBe(false);
    expect(pushSessionsEnabled(l.settings)).toBe(false);
    expect(mergeSettings({ log_level: 'info' }, { log_level: 'ERROR' }).log_level).toBe('ERROR');
    expect(mergeSettings({ enabled: false }, {}).enabled).toBe(false);
  });

  it('only push_sessions:false disables pushing', () => {
    expect(pushSessionsEnabled({})).toBe(true);
    expect(pushSessionsEnabled({ strategy_options: { push_sessions: 'false' } })).toBe(true);
    expect(pushSessionsEnabled({ strategy_options: { push_sessions: null } })).toBe(true);
    expect(pushSessionsEnabled({ strategy_options: { push_sessions: false } })).toBe(false);
  });

  it('an unknown key gives exactly one warning line per file and is otherwise ignored', () => {
    const l = loadSettings(root({ project: '{"enabled":true,"colour":"blue"}', local: '{"colour":"red","x":1}' }));
    expect(l.warnings).toEqual([
      '[entire] Warning: unknown key "colour" in .entire/settings.json (ignored)',
      '[entire] Warning: unknown key "colour" in .entire/settings.local.json (ignored)',
      '[entire] Warning: unknown key "x" in .entire/settings.local.json (ignored)',
    ]);
    expect(isEnabled(l)).toBe(true);
  });

  it.each([
    ['not JSON', '{"enabled": tru'],
    ['not an object', '[1,2]'],
    ['a known key of the wrong type', '{"enabled":"yes"}'],
  ])('%s → INVALID_SETTINGS naming the path', (_n, text) => {
    const r = root({ project: text });
    let err: unknown;
    try {
      loadSettings(r);
    } catch (e) {
      err = e;
    }
    expect(isEntireError(err, 'INVALID_SETTINGS')).toBe(true);
    expect((err as Error).message).toContain(projectSettingsPath(r));
  });
});

describe('saving', () => {
  it('a fresh settings.json is byte-exact (SPEC §8.1)', () => {
    const r = tempDir();
    const res = saveSettings(r, projectSettingsPath(r), { strategy: 'manual-commit', enabled: true });
    expect(res.changed).toBe(true);
    expect(readFileSync(projectSettingsPath(r), 'utf8')).toBe('{\n  "strategy": "manual-commit",\n  "enabled": true\n}\n');
    expect(saveSettings(r, projectSettingsPath(r), { strategy: 'manual-commit', enabled: true }).changed).toBe(false);
  });

  it('disable creates settings.local.json = {"enabled": false}', () => {
    const r = tempDir();
    saveSettings(r, localSettingsPath(r), { enabled: false });
    expect(readFileSync(localSettingsPath(r), 'utf8')).toBe('{\n  "enabled": false\n}\n');
  });

  it('keeps the file’s own keys (unknown ones too) in order, changes in place, appends new keys in SPEC order', () => {
    const r = root({ project: '{"telemetry":true,"zz":{"a":1},"enabled":true}' });
    saveSettings(r, projectSettingsPath(r), { enabled: false, log_level: 'warn', strategy: 'manual-commit' });
    expect(readFileSync(projectSettingsPath(r), 'utf8')).toBe(
      '{\n  "telemetry": true,\n  "zz": {\n    "a": 1\n  },\n  "enabled": false,\n  "strategy": "manual-commit",\n  "log_level": "warn"\n}\n',
    );
  });

  it('merges strategy_options and removes keys given as undefined', () => {
    const r = root({ project: '{"strategy":"manual-commit","enabled":true,"strategy_options":{"summarize":{"enabled":true}}}' });
    saveSettings(r, projectSettingsPath(r), { strategy_options: { push_sessions: false } });
    expect(JSON.parse(readFileSync(projectSettingsPath(r), 'utf8'))).toEqual({
      strategy: 'manual-commit',
      enabled: true,
      strategy_options: { summarize: { enabled: true }, push_sessions: false },
    });
    saveSettings(r, projectSettingsPath(r), { enabled: undefined, strategy_options: { summarize: undefined, push_sessions: undefined } });
    expect(readFileSync(projectSettingsPath(r), 'utf8')).toBe('{\n  "strategy": "manual-commit"\n}\n');
  });

  it('refuses to overwrite a broken file', () => {
    const r = root({ local: 'oops' });
    expect(() => saveSettings(r, localSettingsPath(r), { enabled: false })).toThrow(/settings.local.json/);
    expect(readFileSync(localSettingsPath(r), 'utf8')).toBe('oops');
  });
});

describe('.entire/.gitignore', () => {
  it('adds the four lines once, keeping existing content', () => {
    const r = tempDir();
    expect(ensureEntireGitignore(r)).toBe(true);
    expect(readFileSync(join(r, '.entire', '.gitignore'), 'utf8')).toBe('tmp/\nsettings.local.json\nmetadata/\nlogs/\n');
    expect(ensureEntireGitignore(r)).toBe(false);
  });

  it('adds only missing lines (exact match) after existing content without a final newline', () => {
    const r = root();
    writeFileSync(join(r, '.entire', '.gitignore'), 'custom\nlogs/\n tmp/');
    expect(ensureEntireGitignore(r)).toBe(true);
    expect(readFileSync(join(r, '.entire', '.gitignore'), 'utf8')).toBe('custom\nlogs/\n tmp/\ntmp/\nsettings.local.json\nmetadata/\n');
    expect(existsSync(join(r, '.entire', '.gitignore'))).toBe(true);
  });
});
