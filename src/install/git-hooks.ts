/**
 * SPEC §8.11: install git hooks where git actually runs them, chaining any
 * hook that was there before (never overwriting it), and the husky variant
 * that appends a marked block to the shared `.husky/<hook>` files.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, isAbsolute, sep } from 'node:path';

export const GIT_HOOKS = ['prepare-commit-msg', 'commit-msg', 'post-commit', 'pre-push'] as const;
export type GitHookName = (typeof GIT_HOOKS)[number];

export const HOOK_MARKER = '# Entire CLI hooks';
export const HUSKY_END = '# end Entire CLI hooks';
export const BACKUP_SUFFIX = '.pre-entire';

export interface HookTemplates {
  common: string;
  bodies: Record<GitHookName, string>;
}

export function loadTemplates(dir: string): HookTemplates {
  const read = (n: string) => readFileSync(join(dir, n), 'utf8');
  return {
    common: read('common.sh'),
    bodies: {
      'prepare-commit-msg': read('prepare-commit-msg.sh'),
      'commit-msg': read('commit-msg.sh'),
      'post-commit': read('post-commit.sh'),
      'pre-push': read('pre-push.sh'),
    },
  };
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
  /** Absolute path of the CLI launcher (per-machine dirs only). */
  cli?: string;
}

/** A complete hook script for a per-machine (or shared non-husky) hook dir. */
export function renderHook(hook: GitHookName, t: HookTemplates, launch: Launch): string {
  const chain =
    hook === 'pre-push'
      ? `# The hook that was here before \`entire enable\` runs first, with the original stdin.\nif [ -x "\${0%/*}/${hook}${BACKUP_SUFFIX}" ]; then\n  "\${0%/*}/${hook}${BACKUP_SUFFIX}" "$@" || exit $?\nfi\n`
      : '';
  const tail =
    hook === 'pre-push'
      ? 'exit 0\n'
      : `# Chain: the hook that was here before \`entire enable\` keeps running.\nif [ -x "\${0%/*}/${hook}${BACKUP_SUFFIX}" ]; then\n  "\${0%/*}/${hook}${BACKUP_SUFFIX}" "$@"\n  exit $?\nfi\nexit 0\n`;
  return (
    '#!/bin/sh\n' +
    `${HOOK_MARKER}\n` +
    '# Links commits to AI agent sessions. Fail-open: it never stops git.\n' +
    '# Remove with `entire disable --uninstall`.\n' +
    `entire_node=${shq(launch.node ?? '')}\n` +
    `entire_cli=${shq(launch.cli ?? '')}\n` +
    code(t.common) +
    chain +
    code(t.bodies[hook]) +
    tail
  );
}

/** The block appended to a husky file: PATH only, no machine paths, never fails. */
export function renderHuskyBlock(hook: GitHookName, t: HookTemplates): string {
  const inner = code(t.common) + code(t.bodies[hook]);
  return `${HOOK_MARKER}\n(\nentire_node=''\nentire_cli=''\n${inner}) || true\n${HUSKY_END}\n`;
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
        writeFileSync(file, next);
        chmodSync(file, 0o755);
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
      writeFileSync(file, script, { mode: 0o755 });
      chmodSync(file, 0o755);
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
  const husky = isHuskyDir(o.hooksDir, o.root);
  const states = {} as Record<GitHookName, HookState>;
  for (const hook of GIT_HOOKS) {
    const file = husky ? join(o.root, '.husky', hook) : join(o.hooksDir, hook);
    if (!existsSync(file)) states[hook] = 'missing';
    else states[hook] = isOurHook(readFileSync(file, 'utf8')) ? 'installed' : 'foreign';
  }
  return states;
}
