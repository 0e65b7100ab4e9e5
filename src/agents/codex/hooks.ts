/**
 * Codex hook installation (SPEC-2 §C.1) into `.codex/hooks.json`, whose top
 * level is exactly `{"hooks":{…}}` (Codex skips a file with a `version` key).
 * Each of our handlers sits in a group of its own, so the approval key Codex
 * gives a foreign handler (`<file>:<event>:<group>:<handler>`) never moves
 * when we add ours. Codex clamps SessionEnd to 3 s: our handler says so, and
 * any change to a handler (even its timeout) makes Codex ask for approval
 * again, so a rerun leaves the file byte-identical.
 */
import { join } from 'node:path';
import { groupsAt, hasCommand, removeOurEntries } from '../kit/hook-groups.js';
import { cloneJson, isObject, loadSettings, objectAt, saveSettingsIfChanged, tryLoadSettings, type JsonObject } from '../kit/settings-file.js';
import type { HookInstallOptions, HookInstallResult, HookUninstallResult } from '../types.js';
import { CODEX_VERBS } from './verbs.js';

export const CODEX_HOOKS_FILE = '.codex/hooks.json';

/** Our handlers, in the order a fresh file lists them. */
export const CODEX_HOOKS: readonly { event: string; verb: string; timeout: number }[] = [
  { event: 'SessionStart', verb: 'session-start', timeout: 30 },
  { event: 'UserPromptSubmit', verb: 'user-prompt-submit', timeout: 30 },
  { event: 'Stop', verb: 'stop', timeout: 30 },
  { event: 'SessionEnd', verb: 'session-end', timeout: 3 },
];

const OUR_COMMAND_RE = /^\s*entire hooks codex ([a-z-]+)\s*$/;

export function codexCommand(verb: string): string {
  return `entire hooks codex ${verb}`;
}

/** The verb of one of our commands, else undefined. */
export function ourCodexVerb(command: string): string | undefined {
  const verb = OUR_COMMAND_RE.exec(command)?.[1];
  return verb !== undefined && Object.prototype.hasOwnProperty.call(CODEX_VERBS, verb) ? verb : undefined;
}

const isOurs = (cmd: string) => ourCodexVerb(cmd) !== undefined;

function ourEntry(h: (typeof CODEX_HOOKS)[number]): JsonObject {
  return { type: 'command', command: codexCommand(h.verb), timeout: h.timeout };
}

/** Our handler exactly as we write it (anything else of ours is stale). */
function isCurrent(event: string, entry: unknown): boolean {
  if (!isObject(entry)) return false;
  const h = CODEX_HOOKS.find((x) => x.event === event && codexCommand(x.verb) === entry['command']);
  return h !== undefined && JSON.stringify(entry) === JSON.stringify(ourEntry(h));
}

/** Drop our stale handlers (wrong event, timeout or shape) and duplicates; keep everything else. */
function dropStale(hooks: JsonObject): void {
  for (const event of Object.keys(hooks)) {
    const groups = hooks[event];
    if (!Array.isArray(groups)) continue;
    let seen = false;
    for (const group of groups) {
      if (!isObject(group) || !Array.isArray(group['hooks'])) continue;
      group['hooks'] = (group['hooks'] as unknown[]).filter((entry) => {
        const cmd = isObject(entry) && typeof entry['command'] === 'string' ? entry['command'] : undefined;
        if (cmd === undefined || !isOurs(cmd)) return true;
        if (!isCurrent(event, entry) || seen) return false;
        seen = true;
        return true;
      });
    }
    const kept = groups.filter((g) => !(isObject(g) && Array.isArray(g['hooks']) && g['hooks'].length === 0));
    if (kept.length === 0) delete hooks[event];
    else hooks[event] = kept;
  }
}

export function installCodexHooks(repoRoot: string, options: HookInstallOptions = {}): HookInstallResult {
  const file = CODEX_HOOKS_FILE;
  const path = join(repoRoot, file);
  const before = loadSettings(path);
  const data = cloneJson(before.data);
  // a `version` key makes Codex skip the whole file: our hooks would be silently inert
  delete data['version'];
  const hooks = objectAt(data, 'hooks', path);
  if (options.force) removeOurEntries(hooks, isOurs);
  else dropStale(hooks);
  for (const h of CODEX_HOOKS) {
    const groups = groupsAt(hooks, h.event, path);
    if (!hasCommand(groups, codexCommand(h.verb))) groups.push({ hooks: [ourEntry(h)] });
  }
  const changed = saveSettingsIfChanged(repoRoot, path, before, data);
  return { file, path, changed };
}

export function uninstallCodexHooks(repoRoot: string): HookUninstallResult {
  const file = CODEX_HOOKS_FILE;
  const path = join(repoRoot, file);
  const before = loadSettings(path);
  if (!before.exists) return { files: [], changed: false };
  const data = cloneJson(before.data);
  const hooks = data['hooks'];
  if (isObject(hooks) && removeOurEntries(hooks, isOurs) && Object.keys(hooks).length === 0) delete data['hooks'];
  const changed = saveSettingsIfChanged(repoRoot, path, before, data);
  return { files: changed ? [file] : [], changed };
}

export function codexHooksInstalled(repoRoot: string): boolean {
  const hooks = tryLoadSettings(join(repoRoot, CODEX_HOOKS_FILE))?.['hooks'];
  if (!isObject(hooks) || !Array.isArray(hooks['Stop'])) return false;
  return hasCommand(hooks['Stop'] as unknown[], codexCommand('stop'));
}
