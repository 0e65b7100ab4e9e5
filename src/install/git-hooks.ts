/**
 * SPEC §8.11: install git hooks where git actually runs them, chaining any
 * hook that was there before (never overwriting it), and the husky variant
 * that appends a marked block to the shared `.husky/<hook>` files. Both are
 * stubs that source the installed package's hooks/run.sh (hooks/README.md).
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, isAbsolute, sep } from 'node:path';

export const GIT_HOOKS = ['prepare-commit-msg', 'commit-msg', 'post-commit', 'pre-push', 'post-rewrite'] as const;
export type GitHookName = (typeof GIT_HOOKS)[number];

export const HOOK_MARKER = '# Entire CLI hooks';
export const HUSKY_END = '# end Entire CLI hooks';
export const BACKUP_SUFFIX = '.pre-entire';

/**
 * What installed hooks source from the package: the fast path and the CLI call live there, so
 * upgrading the package upgrades every installed hook. Hooks of an older style inlined all of
 * it; `enable` replaces them.
 */
export const RUNNER = 'hooks/run.sh';
/** The stub's format, recorded as `entire_stub=` (run.sh's interface with installed stubs). */
export const STUB_FORMAT = 1;

export interface HookTemplates {
  /** hooks/stub.sh without its comment header: what a hook does when the recorded package is gone. */
  stub: string;
}

export function loadTemplates(dir: string): HookTemplates {
  return { stub: code(readFileSync(join(dir, 'stub.sh'), 'utf8')) };
}

function shq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Strip the template's own comment header (lines before the first code line). */
function code(t: string): string {
  return t.replace(/^(#[^\n]*\n)+/, '');
}

export interface Launch {
  /** Absolute node binary recorded at enable (per-machine dirs only). */
  node?: string;
  /** Absolute directory of the installed package, holding hooks/run.sh (per-machine dirs only). */
  pkg?: string;
}

function stubVars(hook: GitHookName, launch: Launch): string {
  return `entire_stub=${STUB_FORMAT} entire_hook=${hook}\nentire_node=${shq(launch.node ?? '')}\nentire_pkg=${shq(launch.pkg ?? '')}\n`;
}

/**
 * A complete hook script for a per-machine (or shared non-husky) hook dir. Its one line that
 * sources the recorded runner ends the script (after the chain); the shell parses the rest
 * (hooks/stub.sh: the package is gone, or none is recorded) only when it did not.
 */
export function renderHook(hook: GitHookName, t: HookTemplates, launch: Launch): string {
  const prev = `"\${0%/*}/${hook}${BACKUP_SUFFIX}"`;
  // pre-push: the hook that was here before `entire enable` runs first, with git's stdin, and its failure stops the push
  const before = hook === 'pre-push' ? `if [ -x ${prev} ]; then ${prev} "$@" || exit $?; fi\n` : '';
  // post-rewrite: run.sh read git's list of rewritten commits (entire_rw); the chained hook gets it as its stdin
  const chain =
    hook === 'post-rewrite'
      ? `if [ -n "\${entire_rw+x}" ]; then printf '%s' "$entire_rw" | ${prev} "$@"; else ${prev} "$@"; fi; exit $?`
      : `${prev} "$@"; exit $?`;
  const done = hook === 'pre-push' ? 'exit 0' : `if [ -x ${prev} ]; then ${chain}; fi; exit 0`;
  return (
    '#!/bin/sh\n' +
    `${HOOK_MARKER}\n` +
    `# Links commits to AI agent sessions: ${RUNNER} of the entire package named below does the work,\n` +
    `# so upgrading entire upgrades this hook. ${hook}${BACKUP_SUFFIX}, the hook that was here before,\n` +
    '# keeps running. Fail-open: it never stops git. Remove with `entire disable --uninstall`.\n' +
    stubVars(hook, launch) +
    before +
    `entire_done() { ${done}; }\n` +
    `[ -n "$entire_pkg" ] && [ -f "$entire_pkg/${RUNNER}" ] && { command . "$entire_pkg/${RUNNER}"; entire_done "$@"; }\n` +
    t.stub +
    'entire_done "$@"\n'
  );
}

/** The block appended to a husky file: PATH only, no machine paths, never fails. */
export function renderHuskyBlock(hook: GitHookName, t: HookTemplates): string {
  return `${HOOK_MARKER}\n(\nentire_stub=${STUB_FORMAT} entire_hook=${hook}\n${t.stub}) || true\n${HUSKY_END}\n`;
}

/** An installed hook (or husky block) of the older style that inlined the whole logic. */
export function isInlinedHook(text: string): boolean {
  return isOurHook(text) && !/^entire_stub=/m.test(text);
}

/** The package directory a hook records ('' in shared files; null in hooks of the older style). */
export function recordedPackage(text: string): string | null {
  const m = /^entire_pkg='((?:[^']|'\\'')*)'$/m.exec(text);
  return m ? m[1]!.replace(/'\\''/g, "'") : null;
}

export function isOurHook(text: string): boolean {
  return text.split('\n').some((l) => l.trim() === HOOK_MARKER);
}

export type HookLayout = 'direct' | 'husky';

export function isHuskyDir(hooksDir: string, root: string): boolean {
  const rel = relative(root, hooksDir).split(sep).join('/');
  return rel === '.husky' || rel === '.husky/_';
}

/** A hooks dir inside the work tree (committed, shared with teammates) gets no machine paths. */
export function isSharedDir(hooksDir: string, root: string, gitDirs: string[]): boolean {
  const rel = relative(root, hooksDir);
  if (rel.startsWith('..') || isAbsolute(rel)) return false;
  return !gitDirs.some((g) => {
    const r = relative(g, hooksDir);
    return !r.startsWith('..') && !isAbsolute(r);
  });
}

export interface InstallResult {
  dir: string;
  layout: HookLayout;
  changed: GitHookName[];
  backedUp: string[];
}

/**
 * Writes an executable script as a new file renamed into place: a shell running the old one
 * (a commit during `enable`) goes on reading the old bytes, never a mix of both.
 */
function replaceScript(file: string, text: string): void {
  const tmp = `${file}.entire-tmp-${process.pid}`;
  rmSync(tmp, { force: true });
  writeFileSync(tmp, text, { mode: 0o755, flag: 'wx' });
  try {
    chmodSync(tmp, 0o755); // whatever the umask
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

function utcStamp(d = new Date()): string {
  return d.toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

export function installGitHooks(o: {
  hooksDir: string;
  root: string;
  gitDirs: string[];
  templates: HookTemplates;
  launch: Launch;
  log?: (line: string) => void;
}): InstallResult {
  const layout: HookLayout = isHuskyDir(o.hooksDir, o.root) ? 'husky' : 'direct';
  const result: InstallResult = { dir: o.hooksDir, layout, changed: [], backedUp: [] };
  if (layout === 'husky') {
    const huskyDir = join(o.root, '.husky');
    mkdirSync(huskyDir, { recursive: true });
    for (const hook of GIT_HOOKS) {
      const file = join(huskyDir, hook);
      const block = renderHuskyBlock(hook, o.templates);
      const existing = existsSync(file) ? readFileSync(file, 'utf8') : null;
      const without = existing === null ? null : removeHuskyBlock(existing);
      const base = without === null ? '#!/usr/bin/env sh\n' : without.endsWith('\n') || without === '' ? without : without + '\n';
      const next = base + block;
      if (next !== existing) {
        replaceScript(file, next);
        result.changed.push(hook);
      }
    }
    return result;
  }
  const shared = isSharedDir(o.hooksDir, o.root, o.gitDirs);
  const launch = shared ? {} : o.launch;
  mkdirSync(o.hooksDir, { recursive: true });
  for (const hook of GIT_HOOKS) {
    const file = join(o.hooksDir, hook);
    const script = renderHook(hook, o.templates, launch);
    const existing = existsSync(file) ? readFileSync(file, 'utf8') : null;
    if (existing !== null && !isOurHook(existing)) {
      const backup = file + BACKUP_SUFFIX;
      if (existsSync(backup)) {
        const old = `${backup}.${utcStamp()}`;
        renameSync(backup, old);
        result.backedUp.push(old);
      }
      renameSync(file, backup);
      result.backedUp.push(backup);
      o.log?.(`[entire] Backed up existing ${hook} to ${hook}${BACKUP_SUFFIX}`);
    }
    if (existing !== script) {
      replaceScript(file, script);
      result.changed.push(hook);
    } else if ((statSync(file).mode & 0o777) !== 0o755) {
      // same content but not executable: git would skip it silently
      chmodSync(file, 0o755);
      result.changed.push(hook);
    }
  }
  return result;
}

export function removeHuskyBlock(text: string): string {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.trim() === HOOK_MARKER);
  if (start < 0) return text;
  const end = lines.findIndex((l, i) => i > start && l.trim() === HUSKY_END);
  if (end < 0) return text;
  lines.splice(start, end - start + 1);
  return lines.join('\n');
}

export function uninstallGitHooks(o: { hooksDir: string; root: string }): { removed: GitHookName[]; restored: GitHookName[] } {
  const out = { removed: [] as GitHookName[], restored: [] as GitHookName[] };
  if (isHuskyDir(o.hooksDir, o.root)) {
    for (const hook of GIT_HOOKS) {
      const file = join(o.root, '.husky', hook);
      if (!existsSync(file)) continue;
      const text = readFileSync(file, 'utf8');
      const next = removeHuskyBlock(text);
      if (next === text) continue;
      if (next.trim() === '' || next.trim() === '#!/usr/bin/env sh') rmSync(file);
      else writeFileSync(file, next);
      out.removed.push(hook);
    }
    return out;
  }
  for (const hook of GIT_HOOKS) {
    const file = join(o.hooksDir, hook);
    const backup = file + BACKUP_SUFFIX;
    if (existsSync(file) && isOurHook(readFileSync(file, 'utf8'))) {
      rmSync(file);
      out.removed.push(hook);
    }
    if (existsSync(backup) && !existsSync(file)) {
      renameSync(backup, file);
      out.restored.push(hook);
    }
  }
  return out;
}

export type HookState = 'installed' | 'missing' | 'foreign';

export function hookStates(o: { hooksDir: string; root: string }): Record<GitHookName, HookState> {
  const states = {} as Record<GitHookName, HookState>;
  for (const [hook, text] of hookTexts(o)) states[hook] = text === null ? 'missing' : isOurHook(text) ? 'installed' : 'foreign';
  return states;
}

/** Each hook's file (husky: `.husky/<hook>`) as text, null if absent. */
function hookTexts(o: { hooksDir: string; root: string }): [GitHookName, string | null][] {
  const husky = isHuskyDir(o.hooksDir, o.root);
  return GIT_HOOKS.map((hook) => {
    const file = husky ? join(o.root, '.husky', hook) : join(o.hooksDir, hook);
    try {
      return [hook, readFileSync(file, 'utf8')];
    } catch {
      return [hook, null];
    }
  });
}

/**
 * Why an installed hook of ours no longer does its work as it should, or null: one of the older
 * style (it inlined the logic, so upgrades never reach it), or one whose recorded package is
 * gone (it falls back to PATH). `enable` rewrites both.
 */
export function staleness(text: string): string | null {
  if (!isOurHook(text)) return null;
  if (isInlinedHook(text)) return 'is of an older style that upgrades of entire do not reach';
  const pkg = recordedPackage(text);
  if (pkg && !existsSync(join(pkg, RUNNER))) return `records a package that no longer exists (${pkg})`;
  return null;
}

/** Hooks `enable` would change for the better: missing, not ours, or stale. */
export function hooksToReinstall(o: { hooksDir: string; root: string }): GitHookName[] {
  return hookTexts(o)
    .filter(([, text]) => text === null || !isOurHook(text) || staleness(text) !== null)
    .map(([hook]) => hook);
}
