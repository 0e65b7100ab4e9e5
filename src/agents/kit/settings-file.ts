/**
 * Reading and writing agents' JSON settings files (each agent's folder names
 * its own). Unknown keys are kept in
 * their order; files are written as 2-space JSON + newline, atomically, and
 * only when their content changes.
 */
import { readFileSync } from 'node:fs';
import { writeFileUnder } from '../../trust/confined.js';
import { encodeJson } from '../../go-json.js';
import { EntireError } from '../../errors.js';

export type JsonObject = Record<string, unknown>;

export function isObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export interface LoadedSettings {
  exists: boolean;
  data: JsonObject;
}

function invalid(path: string, cause?: unknown): EntireError {
  return new EntireError('INVALID_SETTINGS', `${path} is not valid JSON`, { cause, detail: { path } });
}

/** Parse a settings file; a missing file is `{}`. Not JSON / not an object → INVALID_SETTINGS. */
export function loadSettings(path: string): LoadedSettings {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { exists: false, data: {} };
    throw new EntireError('INVALID_SETTINGS', `cannot read ${path}`, { cause: e, detail: { path } });
  }
  // An empty file is treated like a missing one (editors create them).
  if (text.trim() === '') return { exists: true, data: {} };
  let v: unknown;
  try {
    v = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (e) {
    throw invalid(path, e);
  }
  if (!isObject(v)) throw invalid(path);
  return { exists: true, data: v };
}

/** Parse without throwing (detection paths). */
export function tryLoadSettings(path: string): JsonObject | undefined {
  try {
    const s = loadSettings(path);
    return s.exists ? s.data : undefined;
  } catch {
    return undefined;
  }
}

/** Write `data` if the file is missing or its encoding differs from `before`'s. Returns whether it wrote. */
export function saveSettingsIfChanged(root: string, path: string, before: LoadedSettings, data: JsonObject): boolean {
  const next = encodeJson(data);
  if (before.exists && encodeJson(before.data) === next) return false;
  try {
    // the agent's settings dir is in the work tree: no symlink followed (SPEC-2 §A.4)
    writeFileUnder(root, path, next, 0o644);
  } catch (e) {
    throw new EntireError('INVALID_SETTINGS', `cannot write ${path}`, { cause: e, detail: { path } });
  }
  return true;
}

/** Deep copy of a JSON value (settings are small). */
export function cloneJson<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

/** `obj[key]` as an object, creating it (appended) when missing; a non-object value → INVALID_SETTINGS. */
export function objectAt(obj: JsonObject, key: string, path: string): JsonObject {
  const v = obj[key];
  if (v === undefined) {
    const created: JsonObject = {};
    obj[key] = created;
    return created;
  }
  if (!isObject(v)) {
    throw new EntireError('INVALID_SETTINGS', `${path}: "${key}" must be an object`, { detail: { path, key } });
  }
  return v;
}

/** `obj[key]` as an array (created when missing); a non-array value → INVALID_SETTINGS. */
export function arrayAt(obj: JsonObject, key: string, path: string): unknown[] {
  const v = obj[key];
  if (v === undefined) {
    const created: unknown[] = [];
    obj[key] = created;
    return created;
  }
  if (!Array.isArray(v)) {
    throw new EntireError('INVALID_SETTINGS', `${path}: "${key}" must be an array`, { detail: { path, key } });
  }
  return v;
}
