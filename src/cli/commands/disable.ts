import type { Command } from 'commander';
import { out } from '../output.js';

/** SPEC §8.2 `entire disable`. */
export function register(program: Command): void {
  program
    .command('disable')
    .description('Turn Entire off for this repository (hooks stay, inert)')
    .option('--project', 'write enabled:false to .entire/settings.json instead of settings.local.json')
    .option('--uninstall', 'remove hooks, local files, session states and shadow branches')
    .option('-f, --force', 'do not ask for confirmation')
    .action(async (opts: { project?: boolean; uninstall?: boolean; force?: boolean }) => {
      const { disable } = await import('../../install/disable.js');
      let interactive = false;
      if (opts.uninstall && !opts.force) {
        const { confirm } = await import('../confirm.js');
        interactive = await confirm('Remove Entire hooks, local state and shadow branches from this repository? [y/N] ', 'disable --uninstall');
        if (!interactive) return;
      }
      for (const line of await disable(process.cwd(), { ...opts, interactive })) out(line);
    });
}
