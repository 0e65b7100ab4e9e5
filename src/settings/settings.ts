/**
 * Settings (SPEC §9): `.entire/settings.json` (project) and
 * `.entire/settings.local.json` (local) at the worktree root.
 *
 * Local overrides project per key: `strategy`/`log_level` when non-empty,
 * the others when present, `strategy_options` shallow-merged. Unknown keys
 * give one warning each (returned, the caller prints) and are kept on save.
 * Saves rewrite only the target file: its own keys (order kept) plus the
 * changed ones (new keys appended in SPEC order).
 */
import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod/mini';
import * as shape from '../shape.js';
import { encodeJson } from '../go-json.js';
import { EntireError } from '../errors.js';
import { writeFileUnder } from '../trust/confined.js';

export const ENTIRE_DIR = '.entire';
export const SETTINGS_FILE = 'settings.json';
export const LOCAL_SETTINGS_FILE = 'settings.local.json';

/** Known keys, in the order new keys are appended. */
export const SETTINGS_KEYS = ['strategy', 'enabled', 'local_dev', 'log_level', 'strategy_options', 'telemetry', 'context_on_start', 'checkpoints'] as const;
export type SettingsKey = (typeof SETTINGS_KEYS)[number];

export const DEFAULT_STRATEGY = 'manual-commit';

export interface EntireSettings {
  /** `manual-commit`; `""` = default; `auto-commit` warns and acts as manual-commit. */
  strategy?: string;
  /** Default true when a settings file exists. */
  enabled?: boolean;
  /** Kept, no effect. */
  local_dev?: boolean;
  /** debug/info/warn/warning/error, any case; `ENTIRE_LOG_LEVEL` wins. */
  log_level?: string;
  /** `push_sessions` (only `false` disables), `summarize` (kept). */
  strategy_options?: Record<string, unknown>;
  /** Kept, unused. */
  telemetry?: boolean | null;
  /** SPEC-2 §F.6: hand a new agent session the branch's latest layered context (default false). */
  context_on_start?: boolean;
  /**
   * SPEC-3 §A.5 `{"primary":{"type":"git-branch"|"git-refs"}}`, kept as read:
   * `settings/checkpoints.ts` validates it, so a broken block is reported by
   * status and doctor instead of failing every hook (hooks fall back to the branch).
   */
  checkpoints?: unknown;
}

export interface SettingsFile {
  path: string;
  /** `.entire/settings.json` or `.entire/settings.local.json`, for messages. */
  displayName: string;
  /** The file's JSON object as read, key order kept (unknown keys included). */
  raw: Record<string, unknown>;
  /** Its known keys. */
  settings: EntireSettings;
}

export interface LoadedSettings {
  /** Merged view (local over project). */
  settings: EntireSettings;
  project: SettingsFile | null;
  local: SettingsFile | null;
  /** `[entire] Warning: unknown key "<k>" in <file> (ignored)` lines, for the caller to print. */
  warnings: string[];
  /** At least one settings file exists. */
  configured: boolean;
}

// zod builds on first use only: the hand check (src/shape.ts) answers for valid files
let settingsSchema: ReturnType<typeof buildSettingsSchema> | undefined;
function buildSettingsSchema() {
  return z.looseObject({
    strategy: z.nullish(z.string()),
    enabled: z.nullish(z.boolean()),
    local_dev: z.nullish(z.boolean()),
    log_level: z.nullish(z.string()),
    strategy_options: z.nullish(z.record(z.string(), z.unknown())),
    telemetry: z.nullish(z.boolean()),
    context_on_start: z.nullish(z.boolean()),
    checkpoints: z.optional(z.unknown()),
  });
}
export const SettingsSchema = (): ReturnType<typeof buildSettingsSchema> => (settingsSchema ??= buildSettingsSchema());
export const settingsShape = shape.looseObject({
  strategy: shape.nullish(shape.str),
  enabled: shape.nullish(shape.bool),
  local_dev: shape.nullish(shape.bool),
  log_level: shape.nullish(shape.str),
  strategy_options: shape.nullish(shape.recordOf(shape.unknown)),
  telemetry: shape.nullish(shape.bool),
  context_on_start: shape.nullish(shape.bool),
  checkpoints: shape.unknown,
});

const KNOWN: ReadonlySet<string> = new Set(SETTINGS_KEYS);

export function entireDir(worktreeRoot: string): string {
  return join(worktreeRoot, ENTIRE_DIR);
}
export function projectSettingsPath(worktreeRoot: string): string {
  return join(worktreeRoot, ENTIRE_DIR, SETTINGS_FILE);
}
export function localSettingsPath(worktreeRoot: string): string {
  return join(worktreeRoot, ENTIRE_DIR, LOCAL_SETTINGS_FILE);
}

function displayNameOf(path: string): string {
  const base = path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
  return base === SETTINGS_FILE || base === LOCAL_SETTINGS_FILE ? `${ENTIRE_DIR}/${base}` : path;
}

function parseRaw(text: string, path: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new EntireError('INVALID_SETTINGS', `invalid settings file ${path}: not valid JSON (${(e as Error).message})`, {
      cause: e,
      detail: { path },
    });
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw new EntireError('INVALID_SETTINGS', `invalid settings file ${path}: expected a JSON object`, { detail: { path } });
  }
  return v as Record<string, unknown>;
}

function toSettings(raw: Record<string, unknown>, path: string): EntireSettings {
  const r = shape.parseWith<z.infer<ReturnType<typeof buildSettingsSchema>>>(raw, settingsShape, SettingsSchema);
  if (!r.success) {
    const issue = r.error.issues[0];
    const where = issue ? issue.path.map(String).join('.') : '';
    throw new EntireError('INVALID_SETTINGS', `invalid settings file ${path}: ${where ? `"${where}": ` : ''}${issue?.message ?? 'invalid'}`, {
      detail: { path },
    });
  }
  const v = r.data;
  const s: EntireSettings = {};
  if (v.strategy !== undefined && v.strategy !== null) s.strategy = v.strategy;
  if (v.enabled !== undefined && v.enabled !== null) s.enabled = v.enabled;
  if (v.local_dev !== undefined && v.local_dev !== null) s.local_dev = v.local_dev;
  if (v.log_level !== undefined && v.log_level !== null) s.log_level = v.log_level;
  if (v.strategy_options !== undefined && v.strategy_options !== null) s.strategy_options = { ...v.strategy_options };
  if (v.telemetry !== undefined) s.telemetry = v.telemetry;
  if (v.context_on_start !== undefined && v.context_on_start !== null) s.context_on_start = v.context_on_start;
  if (v.checkpoints !== undefined) s.checkpoints = v.checkpoints;
  return s;
}

/**
 * Read one settings file. Missing → null. Not JSON / not an object / a
 * known key of the wrong type → EntireError('INVALID_SETTINGS') naming the path.
 */
export function readSettingsFile(path: string, warnings?: string[]): SettingsFile | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new EntireError('INVALID_SETTINGS', `cannot read settings file ${path}: ${(e as Error).message}`, { cause: e, detail: { path } });
  }
  const raw = parseRaw(text, path);
  const settings = toSettings(raw, path);
  const displayName = displayNameOf(path);
  if (warnings) {
    for (const k of Object.keys(raw)) {
      if (!KNOWN.has(k)) warnings.push(`[entire] Warning: unknown key "${k}" in ${displayName} (ignored)`);
    }
  }
  return { path, displayName, raw, settings };
}

/**
 * Local over project (SPEC §9). `context_on_start` only from the local file: the project file
 * is committed, so a cloned repository could otherwise switch on handing its stored text to
 * every new agent session (issue 25 #3d; `enable` says when the project file asks for it).
 */
export function mergeSettings(project: EntireSettings | null, local: EntireSettings | null): EntireSettings {
  const out: EntireSettings = { ...(project ?? {}) };
  delete out.context_on_start;
  if (project?.strategy_options) out.strategy_options = { ...project.strategy_options };
  if (!local) return out;
  if (local.strategy) out.strategy = local.strategy;
  if (local.log_level) out.log_level = local.log_level;
  if (local.enabled !== undefined) out.enabled = local.enabled;
  if (local.local_dev !== undefined) out.local_dev = local.local_dev;
  if (local.telemetry !== undefined) out.telemetry = local.telemetry;
  if (local.context_on_start !== undefined) out.context_on_start = local.context_on_start;
  if (local.strategy_options) out.strategy_options = { ...(out.strategy_options ?? {}), ...local.strategy_options };
  // SPEC-3 §A.5: the local file's block replaces the project's wholesale
  if (local.checkpoints !== undefined) out.checkpoints = local.checkpoints;
  return out;
}

/** Load and merge both files of a worktree. Throws INVALID_SETTINGS for a broken file. */
export function loadSettings(worktreeRoot: string): LoadedSettings {
  const warnings: string[] = [];
  const project = readSettingsFile(projectSettingsPath(worktreeRoot), warnings);
  const local = readSettingsFile(localSettingsPath(worktreeRoot), warnings);
  return {
    settings: mergeSettings(project?.settings ?? null, local?.settings ?? null),
    project,
    local,
    warnings,
    configured: project !== null || local !== null,
  };
}

/** No settings file at all → not enabled; else `enabled` (default true). */
export function isEnabled(loaded: Pick<LoadedSettings, 'settings' | 'configured'>): boolean {
  return loaded.configured && loaded.settings.enabled !== false;
}

/** `strategy_options.push_sessions`: only `false` disables. */
export function pushSessionsEnabled(settings: EntireSettings): boolean {
  return settings.strategy_options?.['push_sessions'] !== false;
}

/** A warning line for a strategy we act on as manual-commit, or null. */
export function strategyWarning(settings: EntireSettings): string | null {
  const s = settings.strategy ?? '';
  if (s === '' || s === DEFAULT_STRATEGY || s === 'shadow') return null;
  if (s === 'auto-commit' || s === 'dual') {
    return '[entire] Warning: the auto-commit strategy is not supported; using manual-commit';
  }
  return `[entire] Warning: unknown strategy "${s}"; using manual-commit`;
}

/**
 * A change to one settings file. A key given as `undefined` is removed.
 * `strategy_options` is merged into the file's object (a sub-key given as
 * `undefined` is removed; an emptied object is removed).
 */
export type SettingsPatch = {
  strategy?: string | undefined;
  enabled?: boolean | undefined;
  local_dev?: boolean | undefined;
  log_level?: string | undefined;
  strategy_options?: Record<string, unknown> | undefined;
  telemetry?: boolean | null | undefined;
  context_on_start?: boolean | undefined;
  /** SPEC-3 §A.5's block, written whole (`enable --checkpoint-backend`). */
  checkpoints?: unknown;
};

/** The bytes `saveSettings` would write for `patch` over `raw` (pure). */
export function renderSettings(raw: Record<string, unknown>, patch: SettingsPatch): string {
  const out: Record<string, unknown> = { ...raw };
  for (const key of SETTINGS_KEYS) {
    if (!(key in patch)) continue;
    const value = patch[key];
    if (key === 'strategy_options' && value !== undefined) {
      const cur = out[key];
      const merged: Record<string, unknown> =
        typeof cur === 'object' && cur !== null && !Array.isArray(cur) ? { ...(cur as Record<string, unknown>) } : {};
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        if (v === undefined) delete merged[k];
        else merged[k] = v;
      }
      if (Object.keys(merged).length === 0) delete out[key];
      else out[key] = merged; // an existing key keeps its position
      continue;
    }
    if (value === undefined) delete out[key];
    else out[key] = value; // existing keys keep their position; new ones append in SETTINGS_KEYS order
  }
  return encodeJson(out);
}

/**
 * Apply `patch` to one settings file (created if missing, with `.entire/`),
 * atomically, keeping its other keys and their order. Unchanged bytes are
 * not rewritten. Throws INVALID_SETTINGS if the existing file is broken.
 */
/** Write `patch` into the settings file `file` below the worktree `root` (no symlink followed, SPEC-2 §A.4). */
export function saveSettings(root: string, file: string, patch: SettingsPatch): { changed: boolean; content: string } {
  let before: string | null = null;
  try {
    before = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new EntireError('INVALID_SETTINGS', `cannot read settings file ${file}: ${(e as Error).message}`, { cause: e, detail: { path: file } });
    }
  }
  const raw = before === null ? {} : parseRaw(before, file);
  const content = renderSettings(raw, patch);
  if (content === before) return { changed: false, content };
  let mode = 0o644;
  try {
    const st = lstatSync(file);
    if (st.isFile()) mode = st.mode & 0o777;
  } catch {
    /* new file */
  }
  writeFileUnder(root, file, content, mode, 0o755);
  return { changed: true, content };
}

/** The lines `.entire/.gitignore` must contain (SPEC §9). */
export const GITIGNORE_LINES = ['tmp/', 'settings.local.json', 'metadata/', 'logs/'] as const;

/** Add the missing §9 lines to `.entire/.gitignore` (exact-line match). Returns whether the file changed. */
export function ensureEntireGitignore(worktreeRoot: string): boolean {
  const path = join(entireDir(worktreeRoot), '.gitignore');
  let text = '';
  if (existsSync(path)) text = readFileSync(path, 'utf8');
  const have = new Set(text.split('\n').map((l) => l.replace(/\r$/, '')));
  const missing = GITIGNORE_LINES.filter((l) => !have.has(l));
  if (missing.length === 0) return false;
  const prefix = text === '' || text.endsWith('\n') ? text : text + '\n';
  writeFileUnder(worktreeRoot, path, prefix + missing.map((l) => l + '\n').join(''), 0o644, 0o755);
  return true;
}
