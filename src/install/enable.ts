/**
 * The installation steps `entire enable` performs (SPEC §8.1), reusable by
 * hooks that repair a missing install (§6.1 step 4) and by doctor.
 */
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import type { Repo } from '../git/repo.js';
import { err } from '../cli/output.js';
import { installGitHooks, loadTemplates, RUNNER, type InstallResult } from './git-hooks.js';
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
import { resolveCheckpointRemote } from './checkpoint-remote.js';
import { ensureNotesConfig } from './notes-config.js';
import { ensureFetchRefspecs, listRemotes } from './fetch-refspecs.js';
import { checkpointRemoteSetting } from '../sync/checkpoint-remote.js';
import type { EntireSettings } from '../settings/settings.js';

/**
 * SPEC-2 §E.4: fetch refspecs on the checkpoint remote when one is set, else
 * on every remote, so `git fetch` brings teammates' checkpoints.
 */
async function fetchRefspecLines(repo: Repo, settings: EntireSettings): Promise<string[]> {
  const cr = checkpointRemoteSetting(settings);
  const all = await listRemotes(repo);
  const remotes = cr.kind === 'unset' ? all : cr.kind === 'remote' && all.includes(cr.name) ? [cr.name] : [];
  const lines: string[] = [];
  if (cr.kind === 'remote' && !all.includes(cr.name)) {
    lines.push(`! Checkpoint remote ${cr.name} is not configured here: checkpoints stay local until you run git remote add ${cr.name} <url>`);
  }
  const changed = await ensureFetchRefspecs(repo, remotes);
  if (changed.length > 0) lines.push(`✓ git fetch brings checkpoints from ${changed.join(', ')}`);
  return lines;
}

/** SPEC-2 §D.1: git copies our notes on rewrites, and fetches the remotes' (a failure costs only the index). */
async function ensureNotesIndex(repo: Repo): Promise<void> {
  try {
    await ensureNotesConfig(repo);
  } catch (e) {
    err(`[entire] warning: cannot configure the notes index: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`);
  }
}

/**
 * The directory of the package this process runs from (bin/, dist/, hooks/). Installed hooks
 * record it and source its hooks/run.sh, so it must be the package itself: never a directory
 * found from the working directory (that would run a repository's own script from its hooks).
 */
export function packageDir(): string {
  const candidates: string[] = [];
  // the bundles run from dist/ (bin/entire.cjs hands them __dirname)
  if (typeof __dirname === 'string') candidates.push(join(__dirname, '..'));
  if (process.argv[1]) {
    try {
      candidates.push(join(dirname(realpathSync(process.argv[1])), '..'));
    } catch {
      /* not a file */
    }
  }
  for (const c of candidates) {
    if ([RUNNER, 'hooks/stub.sh', 'bin/entire.cjs'].every((f) => existsSync(join(c, f)))) {
      try {
        return realpathSync(c);
      } catch {
        /* vanished meanwhile */
      }
    }
  }
  throw new EntireError('INTERNAL', `this installation of entire has no ${RUNNER} (reinstall the package)`);
}

export async function installHooksForRepo(repo: Repo, log?: (line: string) => void): Promise<InstallResult> {
  const pkg = packageDir();
  return installGitHooks({
    hooksDir: repo.hooksDir,
    root: repo.root,
    gitDirs: [repo.gitDir, repo.commonDir],
    templates: loadTemplates(join(pkg, 'hooks')),
    launch: { node: process.execPath, pkg },
    log,
  });
}

export interface EnableOptions {
  agent?: string;
  local?: boolean;
  project?: boolean;
  force?: boolean;
  skipPushSessions?: boolean;
  /** Grant the agent's own trust/approval of our hooks (SPEC-2 §C.1), after a terminal confirmation. */
  approveAgentHooks?: boolean;
  /** A remote name or URL: checkpoints are pushed only there (SPEC-2 §E.5). */
  checkpointRemote?: string;
}

/** The adapter for `key`; an unknown key fails with one line naming the known agents (the registry's error). */
async function agentFor(key: string) {
  return getAgent(key);
}

/**
 * `--approve-agent-hooks`: the agent's own approval of our hooks is written only when the user
 * says yes at a terminal (never behind their back); without one, nothing is written.
 */
async function approveAgentHooks(adapter: Awaited<ReturnType<typeof getAgent>>, root: string): Promise<string[]> {
  if (!adapter.approveHooks) return [`! ${adapter.displayName} has no hook approval to grant`];
  const { confirm } = await import('../commands/common.js');
  const answer = await confirm(`Approve Entire's hooks in ${adapter.displayName}'s own configuration?`);
  if (answer === 'no-tty') return ['! --approve-agent-hooks asks at a terminal first; none here, so nothing was approved'];
  if (answer !== 'yes') return ['Nothing approved.'];
  // a wider grant than our hooks (issue 25, point 5): its own question
  return adapter.approveHooks(root, process.env, async (q) => (await confirm(q)) === 'yes');
}

/** SPEC §8.1 `entire enable`; returns the lines to print. Idempotent. */
export async function enable(cwd: string, o: EnableOptions): Promise<string[]> {
  if (o.local && o.project) throw new EntireError('INVALID_USAGE', 'cannot specify both --project and --local');
  const adapter = await agentFor(o.agent ?? DEFAULT_AGENT);
  const repo = await openRepo(cwd);
  try {
    const lines: string[] = [];
    const target = o.local ? localSettingsPath(repo.root) : projectSettingsPath(repo.root);
    const before = loadSettings(repo.root);
    for (const w of before.warnings) err(w);
    const patch: Parameters<typeof saveSettings>[2] = { strategy: 'manual-commit', enabled: true };
    if (o.skipPushSessions) patch.strategy_options = { push_sessions: false };
    if (o.checkpointRemote !== undefined) {
      const cr = await resolveCheckpointRemote(repo, o.checkpointRemote);
      patch.strategy_options = { ...patch.strategy_options, checkpoint_remote: cr.name };
      if (cr.added) lines.push(`✓ Added git remote ${cr.name} (${o.checkpointRemote}) for checkpoints`);
    }
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
    if (o.approveAgentHooks) lines.push(...(await approveAgentHooks(adapter, repo.root)));
    lines.push(...((await adapter.enableNotes?.(repo.root, process.env)) ?? []));
    await ensureMetadataBranch(repo);
    lines.push(...(await fetchRefspecLines(repo, after.settings)));
    await ensureNotesIndex(repo);
    lines.push(`✓ Project configured (${relative(repo.root, target)})`);
    // issue 25 #3d: a committed file cannot switch the start context on; say that it asks
    if (after.project?.settings.context_on_start === true && after.local?.settings.context_on_start === undefined) {
      lines.push('Note: .entire/settings.json asks for "context_on_start"; it is honoured only from .entire/settings.local.json (set it there to hand new sessions the stored context).');
    }
    lines.push('Ready.');
    return lines;
  } finally {
    repo.objects.close();
  }
}
