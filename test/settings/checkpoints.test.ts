/** SPEC-3 §A.5 (read side): the `checkpoints` settings block is a known key, validated, the local block replacing the project's. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadSettings, localSettingsPath, projectSettingsPath } from '../../src/settings/settings.js';
import { checkpointsSetting, checkpointsSettingError } from '../../src/settings/checkpoints.js';
import { cleanupAll, tempDir } from '../helpers/repo.js';

afterAll(() => cleanupAll());

function root(project?: unknown, local?: unknown): string {
  const r = tempDir();
  mkdirSync(join(r, '.entire'), { recursive: true });
  if (project !== undefined) writeFileSync(projectSettingsPath(r), JSON.stringify(project));
  if (local !== undefined) writeFileSync(localSettingsPath(r), JSON.stringify(local));
  return r;
}

describe('the checkpoints settings block', () => {
  it('is a known key: no "unknown key" warning; both types read', () => {
    for (const type of ['git-branch', 'git-refs'] as const) {
      const l = loadSettings(root({ enabled: true, checkpoints: { primary: { type } } }));
      expect(l.warnings).toEqual([]);
      expect(checkpointsSetting(l.settings)).toEqual({ kind: 'set', primary: type });
      expect(checkpointsSettingError(l.settings)).toBeNull();
    }
    expect(checkpointsSetting(loadSettings(root({ enabled: true })).settings)).toEqual({ kind: 'unset' });
  });

  it('a broken block is an error line, never a failure to load (hooks fall back to the branch)', () => {
    for (const bad of ['refs', [], { primary: 'git-refs' }, { primary: { type: 'GIT-REFS' } }, { primary: { type: 3 } }]) {
      const l = loadSettings(root({ enabled: true, checkpoints: bad }));
      expect(checkpointsSetting(l.settings).kind, JSON.stringify(bad)).toBe('invalid');
      expect(checkpointsSettingError(l.settings)).toMatch(/^\[entire\] Error: invalid settings: "checkpoints/);
    }
  });

  it("the local file's block replaces the project's wholesale", () => {
    const l = loadSettings(root({ enabled: true, checkpoints: { primary: { type: 'git-refs' }, extra: 1 } }, { checkpoints: { primary: { type: 'git-branch' } } }));
    expect(l.settings.checkpoints).toEqual({ primary: { type: 'git-branch' } });
    expect(checkpointsSetting(l.settings)).toEqual({ kind: 'set', primary: 'git-branch' });
  });
});
