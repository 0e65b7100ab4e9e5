/** SPEC §8.2 `entire disable [--project] [--uninstall] [--force]`. */
import { removeConfined } from '../trust/confined.js';
import { openRepo } from '../git/repo.js';
import { EntireError } from '../errors.js';
import { saveSettings, projectSettingsPath, localSettingsPath } from '../settings/settings.js';
import { uninstallGitHooks } from './git-hooks.js';
import { listAgents, getAgent } from '../agents/registry.js';
import { listStates, deleteState } from '../session/store.js';
import { listRefs, updateRefs } from '../git/refs.js';
import { SHADOW_BRANCH_RE } from '../checkpoint/shadow.js';
import { updateLiveMarker } from '../session/index.js';

export async function disable(cwd: string, o: { project?: boolean; uninstall?: boolean; force?: boolean; interactive?: boolean }): Promise<string[]> {
  const repo = await openRepo(cwd);
  try {
    if (!o.uninstall) {
      saveSettings(repo.root, o.project ? projectSettingsPath(repo.root) : localSettingsPath(repo.root), { enabled: false });
      return ['Entire is now disabled.'];
    }
    if (!o.force && !o.interactive) throw new EntireError('NEEDS_FORCE', 'disable --uninstall requires --force when not interactive');
    uninstallGitHooks({ hooksDir: repo.hooksDir, root: repo.root });
    for (const a of listAgents()) (await getAgent(a.key)).uninstallHooks(repo.root);
    // the work tree is untrusted: a planted symlink is removed itself, never followed (SPEC-2 §A.4)
    for (const d of ['tmp', 'metadata', 'logs']) removeConfined(repo.root, `.entire/${d}`, { recursive: true });
    removeConfined(repo.root, '.entire/settings.local.json');
    // this repository's sessions and shadow branches (never the metadata branch)
    for (const s of listStates(repo.commonDir).states) deleteState(repo.commonDir, s.state.session_id);
    try {
      updateLiveMarker(repo.commonDir);
    } catch {
      /* best effort */
    }
    for (const r of await listRefs(repo, 'refs/heads/entire/')) {
      const name = r.ref.slice('refs/heads/'.length);
      if (SHADOW_BRANCH_RE.test(name)) await updateRefs(repo, [{ ref: r.ref, newOid: null, oldOid: r.oid }]);
    }
    return ['Entire CLI uninstalled successfully.'];
  } finally {
    repo.objects.close();
  }
}
