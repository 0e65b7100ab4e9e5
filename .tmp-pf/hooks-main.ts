import { runHookCommand } from '../src/cli/hooks.js';
runHookCommand(process.argv.slice(3)).catch(() => {});
