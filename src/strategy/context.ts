/**
 * What every hook flow gets: the repository, settings, a logger, and the
 * clock. Built once per hook process; nothing global.
 */
import { openRepo, currentBranch, type Repo } from '../git/repo.js';
import { loadSettings, isEnabled, type LoadedSettings } from '../settings/settings.js';
import { createLogger, type Logger } from '../log.js';
import { EntireError } from '../errors.js';
import { mark } from '../timing.js';

export interface HookContext {
  repo: Repo;
  settings: LoadedSettings;
  log: Logger;
  head: string | null;
  branch: string | null;
  now: () => Date;
}

export type OpenResult = { ok: true; ctx: HookContext } | { ok: false; reason: 'not-a-repo' | 'disabled' | 'bad-settings'; error?: unknown };

/**
 * Resolve the repository and settings for a hook. Hooks exit silently
 * outside a repository and when not enabled (SPEC §6).
 */
export async function openHookContext(cwd: string, component: string, hook: string, opts: { inheritedIndexFile?: string; fast?: boolean } = {}): Promise<OpenResult> {
  let repo: Repo;
  try {
    repo = await openRepo(cwd, { fast: true, ...opts });
  } catch (e) {
    if (e instanceof EntireError && e.code === 'NOT_A_REPO') return { ok: false, reason: 'not-a-repo' };
    throw e;
  }
  mark('context: repo');
  let settings: LoadedSettings;
  try {
    settings = loadSettings(repo.root);
  } catch (e) {
    repo.objects.close();
    return { ok: false, reason: 'bad-settings', error: e };
  }
  mark('context: settings');
  if (!isEnabled(settings)) {
    repo.objects.close();
    return { ok: false, reason: 'disabled' };
  }
  const log = createLogger({
    root: repo.root,
    level: settings.settings.log_level ?? null,
    component,
  }).with({ hook });
  const head = repo.initialHead;
  return { ok: true, ctx: { repo, settings, log, head, branch: currentBranch(repo), now: () => new Date() } };
}
