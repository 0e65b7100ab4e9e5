/**
 * Copilot CLI hook installation (SPEC-2 §C.3): our own file
 * `.github/hooks/entire.json` `{"version":1,"hooks":{"<event>":[{"type":"command","bash":…,"timeoutSec":30}]}}`.
 * Copilot loads every `.github/hooks/*.json`; the other files there are never touched.
 */
import { join } from 'node:path';
import { COPILOT_VERBS } from './verbs.js';
import { removeConfined } from '../../trust/confined.js';
import { arrayAt, cloneJson, isObject, loadSettings, objectAt, saveSettingsIfChanged, tryLoadSettings } from '../kit/settings-file.js';
import type { HookInstallOptions, HookInstallResult, HookUninstallResult } from '../types.js';

export const COPILOT_HOOKS_FILE = '.github/hooks/entire.json';
export const COPILOT_HOOK_TIMEOUT_SEC = 30;

/** Our entries, in the order a fresh file lists them. */
export const COPILOT_HOOKS: readonly { event: string; verb: string }[] = [
  { event: 'sessionStart', verb: 'session-start' },
  { event: 'userPromptSubmitted', verb: 'user-prompt-submitted' },
  { event: 'agentStop', verb: 'agent-stop' },
  { event: 'sessionEnd', verb: 'session-end' },
];

const OUR_COMMAND_RE = /^\s*entire hooks copilot-cli ([a-z-]+)\s*$/;

export function copilotCommand(verb: string): string {
  return `entire hooks copilot-cli ${verb}`;
}

/** The verb of one of our commands (any verb the Go tool installs), else undefined. */
export function ourCopilotVerb(command: string): string | undefined {
  const verb = OUR_COMMAND_RE.exec(command)?.[1];
  return verb !== undefined && Object.prototype.hasOwnProperty.call(COPILOT_VERBS, verb) ? verb : undefined;
}

/** An entry's shell command (`bash`; `command` as some writers spell it). */
function commandOf(entry: unknown): string | undefined {
  if (!isObject(entry)) return undefined;
  if (typeof entry['bash'] === 'string') return entry['bash'];
  return typeof entry['command'] === 'string' ? entry['command'] : undefined;
}

const isOurs = (entry: unknown): boolean => {
  const c = commandOf(entry);
  return c !== undefined && ourCopilotVerb(c) !== undefined;
};

function ourEntry(verb: string): Record<string, unknown> {
  return { type: 'command', bash: copilotCommand(verb), timeoutSec: COPILOT_HOOK_TIMEOUT_SEC };
}

function sameEntry(a: unknown, b: Record<string, unknown>): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Drop our entries from every event list (`keep` spares exact current ones); lists we emptied are deleted. */
function removeOurs(hooks: Record<string, unknown>, keep: (event: string, entry: unknown) => boolean = () => false): boolean {
  let changed = false;
  for (const event of Object.keys(hooks)) {
    const list = hooks[event];
    if (!Array.isArray(list)) continue;
    const kept = list.filter((e) => !isOurs(e) || keep(event, e));
    if (kept.length !== list.length) {
      changed = true;
      if (kept.length === 0) delete hooks[event];
      else hooks[event] = kept;
    }
  }
  return changed;
}

export function installCopilotHooks(repoRoot: string, options: HookInstallOptions = {}): HookInstallResult {
  const file = COPILOT_HOOKS_FILE;
  const path = join(repoRoot, file);
  const before = loadSettings(path);
  let data = cloneJson(before.data);
  if (data['version'] === undefined) data = { version: 1, ...data };
  const hooks = objectAt(data, 'hooks', path);
  // stale entries of ours (another verb, event or timeout, duplicates) go; exact current ones stay in place
  const wanted = new Map(COPILOT_HOOKS.map((h) => [h.event, ourEntry(h.verb)]));
  const seen = new Set<string>();
  removeOurs(hooks, (event, entry) => {
    const w = wanted.get(event);
    if (options.force || w === undefined || !sameEntry(entry, w) || seen.has(event)) return false;
    seen.add(event);
    return true;
  });
  for (const h of COPILOT_HOOKS) {
    if (seen.has(h.event)) continue;
    arrayAt(hooks, h.event, path).push(ourEntry(h.verb));
  }
  const changed = saveSettingsIfChanged(repoRoot, path, before, data);
  return { file, path, changed };
}

export function uninstallCopilotHooks(repoRoot: string): HookUninstallResult {
  const file = COPILOT_HOOKS_FILE;
  const path = join(repoRoot, file);
  const before = loadSettings(path);
  if (!before.exists) return { files: [], changed: false };
  const data = cloneJson(before.data);
  const hooks = data['hooks'];
  if (!isObject(hooks) || !removeOurs(hooks)) return { files: [], changed: false };
  // the file is ours: once it holds nothing else it goes, rather than stay behind empty
  const onlyOurs = Object.keys(hooks).length === 0 && Object.keys(data).every((k) => k === 'version' || k === 'hooks');
  if (onlyOurs && removeConfined(repoRoot, file)) return { files: [file], changed: true };
  const changed = saveSettingsIfChanged(repoRoot, path, before, data);
  return { files: changed ? [file] : [], changed };
}

export function copilotHooksInstalled(repoRoot: string): boolean {
  const hooks = tryLoadSettings(join(repoRoot, COPILOT_HOOKS_FILE))?.['hooks'];
  if (!isObject(hooks) || !Array.isArray(hooks['agentStop'])) return false;
  return (hooks['agentStop'] as unknown[]).some((e) => commandOf(e) === copilotCommand('agent-stop'));
}
