/**
 * What `enable --agent gemini` says after installing the hooks (SPEC-2 §B.8):
 *
 * - Gemini CLI reads a project's `.gemini/settings.json` (our hooks) only in
 *   a trusted folder; we tell, and never edit its `trustedFolders.json`;
 * - its shell runs git with `GIT_CONFIG_GLOBAL=/dev/null` and
 *   `GIT_CONFIG_NOSYSTEM=1`, so its commits fail with `Author identity
 *   unknown` unless the repository's own config names the author.
 *
 * Trust is decided as the CLI decides it: `GEMINI_RESTRICTED_MODE=true` or
 * `GEMINI_CLI_TRUST_WORKSPACE=false` distrust, `GEMINI_CLI_TRUST_WORKSPACE=true`
 * trusts, `security.folderTrust.enabled: false` in the user settings turns
 * the check off, else the longest rule of `trustedFolders.json` containing
 * the folder (`TRUST_FOLDER`, `TRUST_PARENT` for its parent's subtree,
 * `DO_NOT_TRUST`); no rule is not trusted.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { runGit } from '../../git/exec.js';
import { geminiHome } from './layout.js';
import { isObj } from '../kit/obj.js';
import { realFolder as real, within } from '../kit/trust-folders.js';

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

/** Whether Gemini CLI trusts `folder` (and so runs its project hooks). */
export function geminiTrustsFolder(folder: string, env: NodeJS.ProcessEnv): boolean {
  if (env['GEMINI_RESTRICTED_MODE'] === 'true' || env['GEMINI_CLI_TRUST_WORKSPACE'] === 'false') return false;
  if (env['GEMINI_CLI_TRUST_WORKSPACE'] === 'true') return true;
  const home = geminiHome(env);
  const settings = readJson(join(home, 'settings.json'));
  const security = isObj(settings) ? settings['security'] : undefined;
  const folderTrust = isObj(security) ? security['folderTrust'] : undefined;
  if (isObj(folderTrust) && folderTrust['enabled'] === false) return true;
  const rules = readJson(env['GEMINI_CLI_TRUSTED_FOLDERS_PATH'] || join(home, 'trustedFolders.json'));
  if (!isObj(rules)) return false;
  const location = real(folder);
  let best = -1;
  let level: unknown;
  for (const [rulePath, trust] of Object.entries(rules)) {
    const effective = trust === 'TRUST_PARENT' ? dirname(rulePath) : rulePath;
    if (within(real(effective), location) && rulePath.length > best) {
      best = rulePath.length;
      level = trust;
    }
  }
  return level === 'TRUST_FOLDER' || level === 'TRUST_PARENT';
}

/** Whether git as Gemini's shell runs it (no global or system config) knows who commits. */
async function identityInRepo(repoRoot: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  const get = async (key: string): Promise<boolean> => {
    const r = await runGit(['config', '--get', key], {
      cwd: repoRoot,
      env: { GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
      allowFailure: true,
    });
    return r.code === 0 && r.stdout.toString('utf8').trim() !== '';
  };
  const name = (await get('user.name')) || (!!env['GIT_AUTHOR_NAME'] && !!env['GIT_COMMITTER_NAME']);
  const email = (await get('user.email')) || !!env['EMAIL'] || (!!env['GIT_AUTHOR_EMAIL'] && !!env['GIT_COMMITTER_EMAIL']);
  return name && email;
}

export async function geminiEnableNotes(repoRoot: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  const notes: string[] = [];
  try {
    if (!geminiTrustsFolder(repoRoot, env)) notes.push(`! Gemini CLI runs these hooks only in a trusted folder: trust ${repoRoot} in Gemini`);
  } catch {
    /* a note is advice: never a reason for enable to fail */
  }
  try {
    if (!(await identityInRepo(repoRoot, env))) {
      notes.push(
        '! Gemini CLI runs git without your global config: its commits fail with "Author identity unknown" ' +
          'until this repository names you (git config user.name …; git config user.email …)',
      );
    }
  } catch {
    /* as above */
  }
  return notes;
}
