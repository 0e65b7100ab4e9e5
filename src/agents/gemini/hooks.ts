/** Gemini CLI hook installation (SPEC §7.2) into `.gemini/settings.json`. */
import { join } from 'node:path';
import { addEntry, groupsAt, hasCommand, removeOurEntries, rewriteEntries } from '../kit/hook-groups.js';
import { GEMINI_VERBS } from './verbs.js';
import { cloneJson, isObject, loadSettings, objectAt, saveSettingsIfChanged, tryLoadSettings } from '../kit/settings-file.js';
import type { HookInstallOptions, HookInstallResult, HookUninstallResult } from '../types.js';

export const GEMINI_SETTINGS_FILE = '.gemini/settings.json';

/** Our entries (SPEC §7.2), in the order a fresh file lists them. */
export const GEMINI_HOOKS: readonly { event: string; matcher: string; name: string; verb: string }[] = [
  { event: 'SessionStart', matcher: '', name: 'entire-session-start', verb: 'session-start' },
  { event: 'SessionEnd', matcher: 'exit', name: 'entire-session-end-exit', verb: 'session-end' },
  { event: 'SessionEnd', matcher: 'logout', name: 'entire-session-end-logout', verb: 'session-end' },
  { event: 'BeforeAgent', matcher: '', name: 'entire-before-agent', verb: 'before-agent' },
  { event: 'AfterAgent', matcher: '', name: 'entire-after-agent', verb: 'after-agent' },
];

const OUR_COMMAND_RE = /^\s*(?:entire|go run \$\{CLAUDE_PROJECT_DIR\}\/cmd\/entire\/main\.go) hooks gemini ([a-z-]+)\s*$/;

export function geminiCommand(verb: string): string {
  return `entire hooks gemini ${verb}`;
}

/** The verb of one of our commands (including the Go tool's no-op verbs), else undefined. */
export function ourGeminiVerb(command: string): string | undefined {
  const m = OUR_COMMAND_RE.exec(command);
  const verb = m?.[1];
  return verb !== undefined && Object.prototype.hasOwnProperty.call(GEMINI_VERBS, verb) ? verb : undefined;
}

const isOurs = (cmd: string) => ourGeminiVerb(cmd) !== undefined;

export function installGeminiHooks(repoRoot: string, options: HookInstallOptions = {}): HookInstallResult {
  const file = GEMINI_SETTINGS_FILE;
  const path = join(repoRoot, file);
  const before = loadSettings(path);
  const data = cloneJson(before.data);
  const hooksConfig = objectAt(data, 'hooksConfig', path);
  if (hooksConfig['enabled'] !== true) hooksConfig['enabled'] = true;
  const hooks = objectAt(data, 'hooks', path);

  if (options.force) {
    removeOurEntries(hooks, isOurs);
  } else {
    for (const event of new Set(GEMINI_HOOKS.map((h) => h.event))) {
      const groups = hooks[event];
      if (!Array.isArray(groups)) continue;
      rewriteEntries(groups, (cmd) => {
        const verb = ourGeminiVerb(cmd);
        return verb === undefined ? undefined : geminiCommand(verb);
      });
    }
  }

  for (const h of GEMINI_HOOKS) {
    const groups = groupsAt(hooks, h.event, path);
    const command = geminiCommand(h.verb);
    if (hasCommand(groups, command, h.matcher)) continue;
    addEntry(groups, h.matcher, { name: h.name, type: 'command', command }, false);
  }

  const changed = saveSettingsIfChanged(repoRoot, path, before, data);
  return { file, path, changed };
}

export function uninstallGeminiHooks(repoRoot: string): HookUninstallResult {
  const file = GEMINI_SETTINGS_FILE;
  const path = join(repoRoot, file);
  const before = loadSettings(path);
  if (!before.exists) return { files: [], changed: false };
  const data = cloneJson(before.data);
  const hooks = data['hooks'];
  if (isObject(hooks) && removeOurEntries(hooks, isOurs) && Object.keys(hooks).length === 0) {
    delete data['hooks'];
    // The switch we turned on goes too, unless the user configured more there.
    const hc = data['hooksConfig'];
    if (isObject(hc) && Object.keys(hc).length === 1 && hc['enabled'] === true) delete data['hooksConfig'];
  }
  const changed = saveSettingsIfChanged(repoRoot, path, before, data);
  return { files: changed ? [file] : [], changed };
}

export function geminiHooksInstalled(repoRoot: string): boolean {
  const hooks = tryLoadSettings(join(repoRoot, GEMINI_SETTINGS_FILE))?.['hooks'];
  if (!isObject(hooks) || !Array.isArray(hooks['AfterAgent'])) return false;
  return hasCommand(hooks['AfterAgent'] as unknown[], geminiCommand('after-agent'));
}
