/**
 * Copilot CLI loads a repository's `.github/hooks/*.json` (ours included, in
 * `-p` runs too) only in a folder it trusts (SPEC-2 §C.3): one the user
 * trusted when it asked (kept in `trustedFolders`, formerly `trusted_folders`,
 * of `$COPILOT_HOME/config.json`; a folder below a trusted one is trusted), or
 * any folder when `COPILOT_ALLOW_ALL=true`. We say so, and never edit that file.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { isObj } from '../kit/obj.js';
import { realFolder as real, within } from '../kit/trust-folders.js';
import { copilotHome } from './transcript.js';

export function copilotConfigPath(env: NodeJS.ProcessEnv): string {
  return join(copilotHome(env), 'config.json');
}

/** Whether Copilot CLI trusts `folder` (and so runs its repository hooks). */
export function copilotTrustsFolder(folder: string, env: NodeJS.ProcessEnv): boolean {
  if ((env['COPILOT_ALLOW_ALL'] ?? '').toLowerCase() === 'true') return true;
  let config: unknown;
  try {
    config = JSON.parse(readFileSync(copilotConfigPath(env), 'utf8'));
  } catch {
    return false;
  }
  if (!isObj(config)) return false;
  const here = real(folder);
  for (const key of ['trustedFolders', 'trusted_folders']) {
    const list = config[key];
    if (!Array.isArray(list)) continue;
    for (const t of list) if (typeof t === 'string' && t !== '' && isAbsolute(t) && within(real(t), here)) return true;
  }
  return false;
}

/**
 * What stops the installed hooks from running here, as `! …` lines (none: they run): what
 * `enable` prints, and `status` and `doctor` (`agent-hooks-untrusted`) report.
 */
export async function copilotTrustGaps(repoRoot: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  try {
    if (copilotTrustsFolder(repoRoot, env)) return [];
  } catch {
    /* advice only: never a reason to fail */
  }
  return [
    `! Copilot CLI runs these hooks only in a trusted folder: start \`copilot\` in ${repoRoot} and choose to trust it for future sessions ` +
      `(or add it to "trustedFolders" in ${copilotConfigPath(env)}); COPILOT_ALLOW_ALL=true also trusts it`,
  ];
}
