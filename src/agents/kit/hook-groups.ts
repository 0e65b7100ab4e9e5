/**
 * Matcher-group hook lists, as several agents store them:
 * `hooks.<Event> = [{ "matcher"?: M, "hooks": [{ "type": "command", "command": C, … }] }]`.
 * Entries that are not ours are never touched; groups and event keys are
 * dropped only when our removal emptied them.
 */
import { arrayAt, isObject, type JsonObject } from './settings-file.js';

export function matcherOf(group: JsonObject): string {
  return typeof group['matcher'] === 'string' ? group['matcher'] : '';
}

function commandOf(entry: unknown): string | undefined {
  return isObject(entry) && typeof entry['command'] === 'string' ? entry['command'] : undefined;
}

/**
 * Walk one event's groups: `map(command)` returns `null` to drop an entry,
 * a string to set its command, or undefined to keep it as it is. Duplicate
 * entries (same group matcher, same resulting command) among those `map`
 * touched are dropped. Returns true when anything changed.
 */
export function rewriteEntries(groups: unknown[], map: (command: string) => string | null | undefined): boolean {
  let changed = false;
  const seen = new Set<string>();
  for (let gi = 0; gi < groups.length; gi++) {
    const group = groups[gi];
    if (!isObject(group) || !Array.isArray(group['hooks'])) continue;
    const entries = group['hooks'] as unknown[];
    const kept: unknown[] = [];
    for (const entry of entries) {
      const cmd = commandOf(entry);
      const next = cmd === undefined ? undefined : map(cmd);
      if (next === null) {
        changed = true;
        continue;
      }
      if (next !== undefined) {
        const key = `${matcherOf(group)}\u0000${next}`;
        if (seen.has(key)) {
          changed = true;
          continue;
        }
        seen.add(key);
        if (next !== cmd) {
          (entry as JsonObject)['command'] = next;
          changed = true;
        }
      }
      kept.push(entry);
    }
    if (kept.length !== entries.length) {
      if (kept.length === 0) {
        groups.splice(gi, 1);
        gi--;
      } else {
        group['hooks'] = kept;
      }
    }
  }
  return changed;
}

/** Whether a group (with the given matcher, or any when `matcher` is undefined) has an entry running `command`. */
export function hasCommand(groups: readonly unknown[], command: string, matcher?: string): boolean {
  for (const group of groups) {
    if (!isObject(group) || !Array.isArray(group['hooks'])) continue;
    if (matcher !== undefined && matcherOf(group) !== matcher) continue;
    for (const entry of group['hooks'] as unknown[]) if (commandOf(entry) === command) return true;
  }
  return false;
}

/** Append `entry` to the first group with `matcher`, else add a new group (`withMatcherKey`: write `"matcher"` even when empty). */
export function addEntry(groups: unknown[], matcher: string, entry: JsonObject, withMatcherKey: boolean): void {
  for (const group of groups) {
    if (isObject(group) && Array.isArray(group['hooks']) && matcherOf(group) === matcher) {
      (group['hooks'] as unknown[]).push(entry);
      return;
    }
  }
  groups.push(withMatcherKey || matcher !== '' ? { matcher, hooks: [entry] } : { hooks: [entry] });
}

/**
 * Remove every entry `isOurs` recognises from all event lists of `hooks`;
 * event keys our removal emptied are deleted. Returns true when anything changed.
 */
export function removeOurEntries(hooks: JsonObject, isOurs: (command: string) => boolean): boolean {
  let changed = false;
  for (const event of Object.keys(hooks)) {
    const groups = hooks[event];
    if (!Array.isArray(groups)) continue;
    if (rewriteEntries(groups, (cmd) => (isOurs(cmd) ? null : undefined))) {
      changed = true;
      if (groups.length === 0) delete hooks[event];
    }
  }
  return changed;
}

/** The groups array of `hooks[event]` (created when missing; not an array → INVALID_SETTINGS). */
export function groupsAt(hooks: JsonObject, event: string, path: string): unknown[] {
  return arrayAt(hooks, event, path);
}
