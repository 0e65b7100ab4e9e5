/**
 * Claude Code hook installation (SPEC §7.1) into `.claude/settings.json`
 * (`--local`: `.claude/settings.local.json`).
 */
import { join } from 'node:path';
import { addEntry, groupsAt, hasCommand, removeOurEntries, rewriteEntries } from '../kit/hook-groups.js';
import {
  arrayAt,
  cloneJson,
  isObject,
  loadSettings,
  objectAt,
  saveSettingsIfChanged,
  tryLoadSettings,
} from '../kit/settings-file.js';
import type { HookInstallOptions, HookInstallResult, HookUninstallResult } from '../types.js';

export const CLAUDE_SETTINGS_FILE = '.claude/settings.json';
export const CLAUDE_LOCAL_SETTINGS_FILE = '.claude/settings.local.json';
export const METADATA_DENY_RULE = 'Read(./.entire/metadata/**)';

/** Our entries, in the order a fresh file lists them. */
export const CLAUDE_HOOKS: readonly { event: string; matcher: string; verb: string }[] = [
  { event: 'SessionStart', matcher: '', verb: 'session-start' },
  { event: 'SessionEnd', matcher: '', verb: 'session-end' },
  { event: 'UserPromptSubmit', matcher: '', verb: 'user-prompt-submit' },
  { event: 'Stop', matcher: '', verb: 'stop' },
  { event: 'PreToolUse', matcher: 'Task', verb: 'pre-task' },
  { event: 'PostToolUse', matcher: 'Task', verb: 'post-task' },
  { event: 'PostToolUse', matcher: 'TodoWrite', verb: 'post-todo' },
];

/** Verbs the Go tool may have installed (post-file-edit is a later Go addition we accept as a no-op). */
const KNOWN_VERBS = new Set([...CLAUDE_HOOKS.map((h) => h.verb), 'post-file-edit']);
const OUR_COMMAND_RE =
  /^\s*(?:entire|go run \$\{CLAUDE_PROJECT_DIR\}\/cmd\/entire\/main\.go) hooks (?:claude-code|claudecode) ([a-z-]+)\s*$/;
const LEGACY_STOP_RE = /^\s*(?:entire|go run \$\{CLAUDE_PROJECT_DIR\}\/cmd\/entire\/main\.go) rewind claude-hook --stop\s*$/;

export function claudeCommand(verb: string): string {
  return `entire hooks claude-code ${verb}`;
}

/** The verb of one of our commands (current or legacy spelling), else undefined. */
export function ourClaudeVerb(command: string): string | undefined {
  const m = OUR_COMMAND_RE.exec(command);
  if (m && m[1] !== undefined && KNOWN_VERBS.has(m[1])) return m[1];
  if (LEGACY_STOP_RE.test(command)) return 'stop';
  return undefined;
}

const isOurs = (cmd: string) => ourClaudeVerb(cmd) !== undefined;

/** Merge our hooks and the deny rule into the settings file; idempotent. */
export function installClaudeHooks(repoRoot: string, options: HookInstallOptions = {}): HookInstallResult {
  const file = options.local ? CLAUDE_LOCAL_SETTINGS_FILE : CLAUDE_SETTINGS_FILE;
  const path = join(repoRoot, file);
  const before = loadSettings(path);
  const data = cloneJson(before.data);
  const hooks = objectAt(data, 'hooks', path);

  if (options.force) {
    removeOurEntries(hooks, isOurs);
  } else {
    // Legacy spellings become the current command (in place); duplicates go.
    for (const event of new Set(CLAUDE_HOOKS.map((h) => h.event))) {
      const groups = hooks[event];
      if (!Array.isArray(groups)) continue;
      rewriteEntries(groups, (cmd) => {
        const verb = ourClaudeVerb(cmd);
        return verb === undefined || verb === 'post-file-edit' ? undefined : claudeCommand(verb);
      });
    }
  }

  for (const h of CLAUDE_HOOKS) {
    const groups = groupsAt(hooks, h.event, path);
    const command = claudeCommand(h.verb);
    // Events without tool matchers: any group running it counts (as in Go).
    if (hasCommand(groups, command, h.matcher === '' ? undefined : h.matcher)) continue;
    addEntry(groups, h.matcher, { type: 'command', command }, true);
  }

  const permissions = objectAt(data, 'permissions', path);
  const deny = arrayAt(permissions, 'deny', path);
  if (!deny.includes(METADATA_DENY_RULE)) deny.push(METADATA_DENY_RULE);

  const changed = saveSettingsIfChanged(repoRoot, path, before, data);
  return { file, path, changed };
}

/** Remove exactly our entries (any spelling) and the deny rule from both settings files. */
export function uninstallClaudeHooks(repoRoot: string): HookUninstallResult {
  const files: string[] = [];
  for (const file of [CLAUDE_SETTINGS_FILE, CLAUDE_LOCAL_SETTINGS_FILE]) {
    const path = join(repoRoot, file);
    const before = loadSettings(path);
    if (!before.exists) continue;
    const data = cloneJson(before.data);
    const hooks = data['hooks'];
    if (isObject(hooks) && removeOurEntries(hooks, isOurs) && Object.keys(hooks).length === 0) delete data['hooks'];
    const permissions = data['permissions'];
    if (isObject(permissions) && Array.isArray(permissions['deny'])) {
      const deny = permissions['deny'] as unknown[];
      const kept = deny.filter((r) => r !== METADATA_DENY_RULE);
      if (kept.length !== deny.length) {
        if (kept.length > 0) permissions['deny'] = kept;
        else delete permissions['deny'];
        if (Object.keys(permissions).length === 0) delete data['permissions'];
      }
    }
    if (saveSettingsIfChanged(repoRoot, path, before, data)) files.push(file);
  }
  return { files, changed: files.length > 0 };
}

/** True when either settings file runs our Stop hook (legacy spellings included). */
export function claudeHooksInstalled(repoRoot: string): boolean {
  for (const file of [CLAUDE_SETTINGS_FILE, CLAUDE_LOCAL_SETTINGS_FILE]) {
    const data = tryLoadSettings(join(repoRoot, file));
    const hooks = data?.['hooks'];
    if (!isObject(hooks) || !Array.isArray(hooks['Stop'])) continue;
    for (const group of hooks['Stop'] as unknown[]) {
      if (!isObject(group) || !Array.isArray(group['hooks'])) continue;
      for (const entry of group['hooks'] as unknown[]) {
        if (isObject(entry) && typeof entry['command'] === 'string' && ourClaudeVerb(entry['command']) === 'stop') return true;
      }
    }
  }
  return false;
}
