/**
 * The installation steps `entire enable` performs (SPEC §8.1), reusable by
 * hooks that repair a missing install (§6.1 step 4) and by doctor.
 */
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Repo } from '../git/repo.js';
import { err } from '../cli/output.js';
import { installGitHooks, loadTemplates, type InstallResult } from './git-hooks.js';

/** The `hooks/` template dir shipped beside `dist/` (and `src/` in a checkout). */
export function templatesDir(): string {
  const candidates: string[] = [];
  if (typeof __dirname === 'string') candidates.push(join(__dirname, '..', 'hooks'), join(__dirname, '..', '..', 'hooks'));
  if (process.argv[1]) {
    try {
      candidates.push(join(dirname(realpathSync(process.argv[1])), '..', 'hooks'));
    } catch {
      /* ignore */
    }
  }
  candidates.push(join(process.cwd(), 'hooks'));
  for (const c of candidates) if (existsSync(join(c, 'common.sh'))) return c;
  return candidates[0] ?? 'hooks';
}

/** Absolute node binary and CLI launcher recorded into per-machine hooks. */
export function launchPaths(): { node: string; cli: string } {
  let cli = process.argv[1] ?? '';
  try {
    cli = realpathSync(cli);
  } catch {
    /* keep as given */
  }
  return { node: process.execPath, cli };
}

export async function installHooksForRepo(repo: Repo, log?: (line: string) => void): Promise<InstallResult> {
  return installGitHooks({
    hooksDir: repo.hooksDir,
    root: repo.root,
    gitDirs: [repo.gitDir, repo.commonDir],
    templates: loadTemplates(templatesDir()),
    launch: launchPaths(),
    log,
  });
}

import { openRepo } from '../git/repo.js';
import { EntireError } from '../errors.js';
import { getAgent, DEFAULT_AGENT } from '../agents/registry.js';
import {
  loadSettings,
  isEnabled,
  saveSettings,
  ensureEntireGitignore,
  projectSettingsPath,
  localSettingsPath,
} from '../settings/settings.js';
import { ensureMetadataBranch } from '../store/branch.js';
import { relative } from 'node:path';

export interface EnableOptions {
  agent?: string;
  local?: boolean;
  project?: boolean;
  force?: boolean;
  skipPushSessions?: boolean;
}

/** SPEC §8.1 `entire enable`; returns the lines to print. Idempotent. */
export async function enable(cwd: string, o: EnableOptions): Promise<string[]> {
  if (o.local && o.project) throw new EntireError('INVALID_USAGE', 'cannot specify both --project and --local');
  const adapter = await getAgent(o.agent ?? DEFAULT_AGENT);
  const repo = await openRepo(cwd);
  try {
    const lines: string[] = [];
    const target = o.local ? localSettingsPath(repo.root) : projectSettingsPath(repo.root);
    const before = loadSettings(repo.root);
    for (const w of before.warnings) err(w);
    const patch: Parameters<typeof saveSettings>[2] = { strategy: 'manual-commit', enabled: true };
    if (o.skipPushSessions) patch.strategy_options = { push_sessions: false };
    saveSettings(repo.root, target, patch);
    // after enable, Entire is enabled: clear a disabling value in the other file too
    const after = loadSettings(repo.root);
    if (!isEnabled(after)) {
      for (const f of [after.local, after.project]) {
        if (f && f.settings.enabled === false) saveSettings(repo.root, f.path, { enabled: true });
      }
    }
    ensureEntireGitignore(repo.root);
    const hooks = await installHooksForRepo(repo, (l) => err(l));
    lines.push(hooks.changed.length > 0 ? `✓ Git hooks installed in ${hooks.dir}` : `✓ Git hooks already installed in ${hooks.dir}`);
    if (o.force) adapter.uninstallHooks(repo.root);
    const agentRes = adapter.installHooks(repo.root, { local: o.local, force: o.force });
    lines.push(`✓ ${adapter.displayName} hooks installed (${agentRes.file})`);
    lines.push(...((await adapter.enableNotes?.(repo.root, process.env)) ?? []));
    await ensureMetadataBranch(repo);
    lines.push(`✓ Project configured (${relative(repo.root, target)})`);
    lines.push('Ready.');
    return lines;
  } finally {
    repo.objects.close();
  }
}
