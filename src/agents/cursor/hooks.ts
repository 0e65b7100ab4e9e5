/** Cursor hook installation (SPEC §7.3) into `.cursor/hooks.json` `{"version":1,"hooks":{…}}`. */
import { join } from 'node:path';
import { CURSOR_VERBS } from './verbs.js';
import { arrayAt, cloneJson, isObject, loadSettings, objectAt, saveSettingsIfChanged, tryLoadSettings } from '../kit/settings-file.js';
import type { HookInstallOptions, HookInstallResult, HookUninstallResult } from '../types.js';

export const CURSOR_HOOKS_FILE = '.cursor/hooks.json';

export const CURSOR_HOOKS: readonly { event: string; verb: string }[] = [
  { event: 'sessionStart', verb: 'session-start' },
  { event: 'beforeSubmitPrompt', verb: 'before-submit-prompt' },
  { event: 'stop', verb: 'stop' },
  { event: 'sessionEnd', verb: 'session-end' },
];

const OUR_COMMAND_RE = /^\s*entire hooks cursor ([a-z-]+)\s*$/;

export function cursorCommand(verb: string): string {
  return `entire hooks cursor ${verb}`;
}

export function ourCursorVerb(command: string): string | undefined {
  const verb = OUR_COMMAND_RE.exec(command)?.[1];
  return verb !== undefined && Object.prototype.hasOwnProperty.call(CURSOR_VERBS, verb) ? verb : undefined;
}

function commandOf(entry: unknown): string | undefined {
  return isObject(entry) && typeof entry['command'] === 'string' ? entry['command'] : undefined;
}

/** Drop our entries from every event list; lists we emptied are deleted. */
function removeOurs(hooks: Record<string, unknown>): boolean {
  let changed = false;
  for (const event of Object.keys(hooks)) {
    const list = hooks[event];
    if (!Array.isArray(list)) continue;
    const kept = list.filter((e) => {
      const c = commandOf(e);
      return c === undefined || ourCursorVerb(c) === undefined;
    });
    if (kept.length !== list.length) {
      changed = true;
      if (kept.length === 0) delete hooks[event];
      else hooks[event] = kept;
    }
  }
  return changed;
}

export function installCursorHooks(repoRoot: string, options: HookInstallOptions = {}): HookInstallResult {
  const file = CURSOR_HOOKS_FILE;
  const path = join(repoRoot, file);
  const before = loadSettings(path);
  let data = cloneJson(before.data);
  if (data['version'] === undefined) data = { version: 1, ...data };
  const hooks = objectAt(data, 'hooks', path);
  if (options.force) removeOurs(hooks);
  for (const h of CURSOR_HOOKS) {
    const list = arrayAt(hooks, h.event, path);
    const command = cursorCommand(h.verb);
    if (!list.some((e) => commandOf(e) === command)) list.push({ command });
  }
  const changed = saveSettingsIfChanged(repoRoot, path, before, data);
  return { file, path, changed };
}

export function uninstallCursorHooks(repoRoot: string): HookUninstallResult {
  const file = CURSOR_HOOKS_FILE;
  const path = join(repoRoot, file);
  const before = loadSettings(path);
  if (!before.exists) return { files: [], changed: false };
  const data = cloneJson(before.data);
  const hooks = data['hooks'];
  if (isObject(hooks)) removeOurs(hooks);
  const changed = saveSettingsIfChanged(repoRoot, path, before, data);
  return { files: changed ? [file] : [], changed };
}

export function cursorHooksInstalled(repoRoot: string): boolean {
  const hooks = tryLoadSettings(join(repoRoot, CURSOR_HOOKS_FILE))?.['hooks'];
  if (!isObject(hooks) || !Array.isArray(hooks['stop'])) return false;
  return (hooks['stop'] as unknown[]).some((e) => commandOf(e) === cursorCommand('stop'));
}
