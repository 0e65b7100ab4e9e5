/** SPEC §8.2 `entire disable [--project] [--uninstall] [--force]`. */
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { removeConfined } from '../trust/confined.js';
import { openRepo, type Repo } from '../git/repo.js';
import { runGit, splitZ } from '../git/exec.js';
import { EntireError } from '../errors.js';
import { saveSettings, projectSettingsPath, localSettingsPath } from '../settings/settings.js';
import { uninstallGitHooks } from './git-hooks.js';
import { removeFetchRefspecs } from './fetch-refspecs.js';
import { removeNotesConfig } from './notes-config.js';
import { listAgents, getAgent } from '../agents/registry.js';
import { listStates, deleteState } from '../session/store.js';
import { sessionsDir } from '../session/paths.js';
import { listRefs, updateRefs } from '../git/refs.js';
import { SHADOW_BRANCH_RE } from '../checkpoint/shadow.js';
import { TEMP_REF_PREFIX } from '../git/fastimport.js';

export async function disable(cwd: string, o: { project?: boolean; uninstall?: boolean; force?: boolean; interactive?: boolean }): Promise<string[]> {
  const repo = await openRepo(cwd);
  try {
    if (!o.uninstall) {
      saveSettings(repo.root, o.project ? projectSettingsPath(repo.root) : localSettingsPath(repo.root), { enabled: false });
      return ['Entire is now disabled.'];
    }
    if (!o.force && !o.interactive) throw new EntireError('NEEDS_FORCE', 'disable --uninstall requires --force when not interactive');
    await uninstall(repo);
    return ['Entire CLI uninstalled successfully.'];
  } finally {
    repo.objects.close();
  }
}

/** What `.entire/` may hold of ours that nobody committed: only ever written by `enable` and the hooks. */
const ENTIRE_SCRATCH = ['tmp', 'metadata', 'logs'];
const ENTIRE_CONFIG = ['settings.json', '.gitignore'];

/**
 * Removes everything of ours from the repository, in every worktree (they share the hooks and
 * the sessions): git hooks (restoring chained ones), agent hook entries, `.entire/` scratch and
 * local settings, the `.entire` config files git does not track, session states with the whole
 * sessions directory (index, LIVE marker, stamps), commit intents, shadow branches and temp
 * refs. What stays is what the team shares: committed `.entire` files and
 * `entire/checkpoints/v1` (SPEC §8.2).
 */
async function uninstall(repo: Repo): Promise<void> {
  uninstallGitHooks({ hooksDir: repo.hooksDir, root: repo.root });
  await removeFetchRefspecs(repo);
  await removeNotesConfig(repo).catch(() => undefined);
  for (const a of listAgents()) (await getAgent(a.key)).uninstallHooks(repo.root);
  for (const root of await worktreeRoots(repo)) await removeEntireDir(root);
  for (const s of listStates(repo.commonDir).states) deleteState(repo.commonDir, s.state.session_id);
  rmSync(sessionsDir(repo.commonDir), { recursive: true, force: true });
  for (const gitDir of worktreeGitDirs(repo)) removeIntents(gitDir);
  for (const r of await listRefs(repo, 'refs/heads/entire/')) {
    const name = r.ref.slice('refs/heads/'.length);
    if (SHADOW_BRANCH_RE.test(name)) await updateRefs(repo, [{ ref: r.ref, newOid: null, oldOid: r.oid }]);
  }
  for (const r of await listRefs(repo, TEMP_REF_PREFIX)) await updateRefs(repo, [{ ref: r.ref, newOid: null, oldOid: r.oid }]);
}

/** The work trees of the repository that exist (git's list, without a bare repository's entry). */
async function worktreeRoots(repo: Repo): Promise<string[]> {
  const roots = [repo.root];
  const r = await runGit(['worktree', 'list', '--porcelain', '-z'], { cwd: repo.root, allowFailure: true });
  // records of NUL-terminated fields, each record ended by an empty field
  let path: string | null = null;
  let bare = false;
  for (const field of [...splitZ(r.stdout), '']) {
    if (field.startsWith('worktree ')) path = field.slice('worktree '.length);
    else if (field === 'bare') bare = true;
    else if (field === '') {
      if (path !== null && !bare && !roots.includes(path) && isDir(path)) roots.push(path);
      path = null;
      bare = false;
    }
  }
  return roots;
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false; // listed but gone (prunable)
  }
}

/**
 * One work tree's `.entire/`: scratch dirs and local settings always; the shared config files only
 * if git does not track them (then `enable` wrote them and nobody committed them); the directory
 * itself if that emptied it. The work tree is untrusted: a planted symlink is removed itself,
 * never followed (SPEC-2 §A.4).
 */
async function removeEntireDir(root: string): Promise<void> {
  for (const d of ENTIRE_SCRATCH) removeConfined(root, `.entire/${d}`, { recursive: true });
  removeConfined(root, '.entire/settings.local.json');
  const paths = ENTIRE_CONFIG.map((f) => `.entire/${f}`);
  const r = await runGit(['ls-files', '-z', '--', ...paths], { cwd: root, allowFailure: true }).catch(() => null);
  if (r === null || r.code !== 0) return; // cannot tell what is committed: keep it
  const tracked = new Set(splitZ(r.stdout));
  for (const p of paths) if (!tracked.has(p)) removeConfined(root, p);
  try {
    if (readdirSync(join(root, '.entire')).length === 0) removeConfined(root, '.entire', { recursive: true });
  } catch {
    /* no .entire, or not a directory we read */
  }
}

/** The git dirs of the repository: the common dir and each linked worktree's admin dir. */
function worktreeGitDirs(repo: Repo): string[] {
  const dirs = [repo.commonDir];
  try {
    for (const id of readdirSync(join(repo.commonDir, 'worktrees'))) dirs.push(join(repo.commonDir, 'worktrees', id));
  } catch {
    /* no linked worktrees */
  }
  return dirs;
}

/** `<git dir>/entire-commit-intent.json` and its spare or temporary files (SPEC-2 §A.4's name pattern). */
function removeIntents(gitDir: string): void {
  let names: string[];
  try {
    names = readdirSync(gitDir);
  } catch {
    return;
  }
  for (const n of names) if (n === 'entire-commit-intent.json' || n.startsWith('entire-commit-intent.json.')) rmSync(join(gitDir, n), { force: true });
}
