/**
 * The installation steps `entire enable` performs (SPEC §8.1), reusable by
 * hooks that repair a missing install (§6.1 step 4) and by doctor.
 */
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Repo } from '../git/repo.js';
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
